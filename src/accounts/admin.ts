// The operator's account commands (`phone-verify account list|remove|reset-password`): the way back for a
// locked-out operator, and the way out for one who left. Each change is one transaction with its audit entries,
// written in every workspace the account belongs to (an account of none is recorded nowhere, as its sign-ins are).
import { randomBytes } from 'node:crypto';
import type { Actor } from '../audit/actor.js';
import type { AuditRecorder } from '../audit/record.js';
import { type Clock, toTimestamp } from '../clock.js';
import { AppError } from '../errors.js';
import type { Db } from '../store/database.js';
import type { PasswordHasher } from './password.js';
import * as repo from './repository.js';
import { type AccountView, presentAccount } from './view.js';

export interface PasswordReset {
  account: AccountView;
  /** The password made for the account, shown this once; absent when the operator gave one. */
  password?: string;
  /** Sessions ended by the reset. */
  sessions_ended: number;
}

/** 18 random bytes: 24 URL-safe characters, 144 bits. */
const generatePassword = () => randomBytes(18).toString('base64url');

export function createAccountAdmin(deps: {
  db: Db;
  clock: Clock;
  audit: AuditRecorder;
  /** The account service's rule for a password (length), so the CLI and the dashboard agree. */
  checkPassword: (password: string) => void;
  passwords: PasswordHasher;
}) {
  const { db, audit } = deps;

  async function requireUser(tx: Db, id: string): Promise<repo.UserRow> {
    const user = await repo.findUser(tx, id);
    if (!user) throw new AppError('not_found', `No account ${id}.`);
    return user;
  }

  const view = presentAccount;

  return {
    /** Every account with its workspaces, oldest first: never a password or its hash. */
    async listAccounts(): Promise<AccountView[]> {
      const [users, memberships] = [await repo.listUsers(db), await repo.listAllMemberships(db)];
      return users.map((u) => ({
        id: u.id,
        email: u.email,
        created_at: toTimestamp(u.created_at),
        workspaces: memberships.filter((m) => m.user_id === u.id).map((m) => ({ id: m.id, name: m.name })),
      }));
    },

    /**
     * Removes the account, its memberships and sessions (signed out at once). Refused while it is the last member
     * of a workspace, which would be left with nobody to sign in to it: add another account first, or delete the
     * workspace. Each workspace's member count is read under its row lock, in a fixed order.
     */
    async removeAccount(id: string, by: Actor): Promise<AccountView> {
      return db.transaction().execute(async (tx) => {
        const user = await requireUser(tx, id);
        const account = await view(tx, user);
        const alone: string[] = [];
        for (const w of [...account.workspaces].sort((a, b) => a.id.localeCompare(b.id))) {
          if ((await repo.lockAndCountMembers(tx, w.id)) === 1) alone.push(`${w.id} (${w.name})`);
        }
        if (alone.length > 0) {
          throw new AppError(
            'conflict',
            `Account ${id} is the last member of ${alone.join(', ')}: add another account to it first (phone-verify account add), or delete the workspace.`,
          );
        }
        for (const w of account.workspaces) {
          await audit.record(tx, by, {
            workspaceId: w.id,
            action: 'account.removed',
            target: id,
            details: { email: user.email },
          });
        }
        await repo.deleteUser(tx, id);
        return account;
      });
    },

    /**
     * Gives the account a new password (the one given, else a generated one returned this once), ends its sessions
     * and lifts its sign-in lock (the failures counted against its e-mail; those of a client address stay theirs).
     */
    async resetPassword(id: string, given: string | undefined, by: Actor): Promise<PasswordReset> {
      const password = given ?? generatePassword();
      deps.checkPassword(password);
      const hash = await deps.passwords.hash(password);
      return db.transaction().execute(async (tx) => {
        const user = await requireUser(tx, id);
        await repo.setPasswordHash(tx, id, hash);
        const sessionsEnded = await repo.deleteSessionsOf(tx, id);
        await repo.deleteSigninCounts(tx, `email:${user.email}`);
        const account = await view(tx, user);
        for (const w of account.workspaces) {
          await audit.record(tx, by, {
            workspaceId: w.id,
            action: 'account.password_reset',
            target: id,
            details: { email: user.email, sessions_ended: sessionsEnded },
          });
        }
        return { account, ...(given === undefined ? { password } : {}), sessions_ended: sessionsEnded };
      });
    },
  };
}
