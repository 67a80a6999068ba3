// Who makes a change: the `by` every service method that changes a workspace takes, and writes into the audit
// trail with the change. The dashboard passes the signed-in account (and the client's address), the CLI passes
// OPERATOR; SYSTEM is for changes the service makes by itself.
export type Actor =
  | { kind: 'account'; id: string; email: string; address?: string }
  | { kind: 'cli' }
  | { kind: 'system' };

/** The operator at the command line (`phone-verify …`). */
export const OPERATOR: Actor = Object.freeze({ kind: 'cli' });

/** The service itself, acting on a rule rather than on someone's request. */
export const SYSTEM: Actor = Object.freeze({ kind: 'system' });
