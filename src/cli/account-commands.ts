// Dashboard accounts from the CLI, beyond create and add: list them, remove one, and reset a password (the way
// back for an operator locked out of the dashboard). See docs/dashboard.md "Accounts from the CLI".

import type { PasswordReset } from '../accounts/admin.js';
import type { AccountView } from '../accounts/service.js';
import { OPERATOR } from '../audit/actor.js';
import { type Command, flag, idArgument, readStdin } from './options.js';
import { printRecord, printTable, UsageError } from './output.js';

const workspacesOf = (a: AccountView) => a.workspaces.map((w) => `${w.id} (${w.name})`).join(', ') || '-';

export const ACCOUNT_COMMANDS: Record<string, Command> = {
  'account list': {
    summary: 'list the dashboard accounts and their workspaces (never a password or its hash)',
    example: 'phone-verify account list --json | jq -r \'.[] | select(.email == "ops@example.com") | .id\'',
    usage: 'account list',
    options: {},
    run: (s) => s.accounts.listAccounts(),
    print: (r) =>
      printTable(
        (r as AccountView[]).map((a) => ({ ...a, workspaces: workspacesOf(a) })),
        ['id', 'email', 'created_at', 'workspaces'],
      ),
  },
  'account remove': {
    summary: "remove an account and end its sessions (refused for a workspace's last member)",
    example: 'phone-verify account remove usr_…',
    usage: 'account remove ACCOUNT_ID',
    options: {},
    positionals: 1,
    run: (s, _v, p) => s.accounts.removeAccount(idArgument(p[0], 'ACCOUNT_ID'), OPERATOR),
    print: (r) => {
      const account = r as AccountView;
      printRecord({ ...account, workspaces: workspacesOf(account) });
      process.stderr.write('\nThe account is removed and signed out everywhere.\n');
    },
  },
  'account reset-password': {
    summary: 'give an account a new password, end its sessions and lift its sign-in lock',
    example: 'printf \'%s\' "$NEW_PASSWORD" | phone-verify account reset-password usr_… --password-stdin',
    usage:
      'account reset-password ACCOUNT_ID [--password-stdin]\n' +
      '      without --password-stdin, a new password is made and printed this once',
    options: { 'password-stdin': flag('read the new password from standard input instead of making one') },
    positionals: 1,
    run: async (s, v, p) => {
      const id = idArgument(p[0], 'ACCOUNT_ID');
      let given: string | undefined;
      if (v['password-stdin'] === true) {
        given = await readStdin();
        if (given === '') throw new UsageError('--password-stdin: standard input held no password');
      }
      return s.accounts.resetPassword(id, given, OPERATOR);
    },
    print: (r) => {
      const reset = r as PasswordReset;
      printRecord({
        id: reset.account.id,
        email: reset.account.email,
        sessions_ended: reset.sessions_ended,
        ...(reset.password === undefined ? {} : { password: reset.password }),
      });
      process.stderr.write(
        reset.password === undefined
          ? '\nThe password is changed; the account is signed out everywhere and may sign in again at once.\n'
          : '\nThe password is shown this once and cannot be retrieved: hand it over now. The account is signed out everywhere and may sign in again at once.\n',
      );
    },
  },
};
