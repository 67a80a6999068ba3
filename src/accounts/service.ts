// Dashboard accounts: first-run set-up, accounts (also from the CLI), sign-in with throttling, sessions.
// A session is a random token in an HttpOnly cookie; only its hash is stored, and it grants the dashboard
// alone (the API takes API keys only). Members added and sign-ins (successful, or failed with a wrong password)
// are written to the audit trail of each workspace concerned.
import { createHash, randomBytes } from 'node:crypto';
import type { Actor } from '../audit/actor.js';
import type { AuditRecorder } from '../audit/record.js';
import type { Clock } from '../clock.js';
import { AppError, invalidField } from '../errors.js';
import { newId } from '../ids.js';
import type { Db } from '../store/database.js';
import type { WorkspaceService } from '../workspaces/service.js';
import { createAccountAdmin } from './admin.js';
import { PASSWORD_MAX, PASSWORD_MIN, type PasswordHasher, passwordHasher } from './password.js';
import * as repo from './repository.js';
import { createSigninLimit } from './signin-limit.js';
import { type AccountView, presentAccount } from './view.js';

export const SESSION_TTL_MS = 7 * 86_400_000;
/** RFC 5321's limit on a path: a longer e-mail cannot be delivered, and is refused before it is stored or counted. */
export const EMAIL_MAX = 254;
// No spaces, control or format characters (NUL cannot even be stored in PostgreSQL text).
const EMAIL = /^[^\s@\p{C}]+@[^\s@\p{C}]+\.[^\s@\p{C}]+$/u;

export type { AccountView };

export interface SessionContext {
  tokenHash: string;
  user: { id: string; email: string };
  workspaces: { id: string; name: string }[];
  /** The workspace being looked at: the session's choice, else the first. Undefined with no workspace. */
  workspace: { id: string; name: string } | undefined;
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

function normaliseEmail(email: string): string {
  const e = email.trim().toLowerCase();
  if (e.length > EMAIL_MAX) throw invalidField('email', `must be at most ${EMAIL_MAX} characters`);
  if (!EMAIL.test(e)) throw invalidField('email', 'must be an e-mail address');
  return e;
}

function checkPassword(password: string): void {
  if (password.length < PASSWORD_MIN)
    throw invalidField('password', `must be at least ${PASSWORD_MIN} characters`);
  if (password.length > PASSWORD_MAX)
    throw invalidField('password', `must be at most ${PASSWORD_MAX} characters`);
}

/** A dashboard account acting from a client address. */
const accountActor = (user: { id: string; email: string }, address: string | undefined): Actor => ({
  kind: 'account',
  id: user.id,
  email: user.email,
  address,
});

export function createAccountService(deps: {
  db: Db;
  clock: Clock;
  workspaces: WorkspaceService;
  audit: AuditRecorder;
  /** How passwords are hashed (default: OWASP's scrypt parameters, passwordHasher()). */
  passwords?: PasswordHasher;
}) {
  const { db, clock, workspaces, audit } = deps;
  const passwords = deps.passwords ?? passwordHasher();
  const signinLimit = createSigninLimit({ db, clock });

  /** Makes the account a member of the workspace, recorded as `by`'s doing; false when it was one already. */
  async function addMember(tx: Db, user: repo.UserRow, workspaceId: string, by: Actor): Promise<boolean> {
    if (!(await repo.addMembership(tx, user.id, workspaceId, clock.now()))) return false;
    await audit.record(tx, by, {
      workspaceId,
      action: 'member.added',
      target: user.id,
      details: { email: user.email },
    });
    return true;
  }

  /**
   * A sign-in, in the trail of every workspace the account belongs to (an account of none: nowhere); returns
   * those workspaces. The actor is the account signed in to: after a failure, whoever typed its password, from
   * `address`. (Only an existing account's failure writes: a fraction of a millisecond beside the password hash's
   * own variation, with at most 5 tries per e-mail a window to measure it, so it cannot tell which e-mails exist.)
   */
  async function recordSignin(
    tx: Db,
    user: repo.UserRow,
    action: 'signin.succeeded' | 'signin.failed',
    address: string,
  ): Promise<{ id: string }[]> {
    const memberOf = await repo.listUserWorkspaces(tx, user.id);
    for (const workspace of memberOf) {
      await audit.record(tx, accountActor(user, address), {
        workspaceId: workspace.id,
        action,
        target: user.id,
      });
    }
    return memberOf;
  }

  const present = (user: repo.UserRow): Promise<AccountView> => presentAccount(db, user);

  async function insertAccount(tx: Db, email: string, passwordHash: string): Promise<repo.UserRow> {
    if (await repo.findUserByEmail(tx, email))
      throw new AppError('conflict', `An account for ${email} exists already.`);
    const user = { id: newId('usr'), email, password_hash: passwordHash, created_at: clock.now() };
    await repo.insertUser(tx, user);
    return user;
  }

  async function startSession(tx: Db, userId: string, workspaceId: string | null): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const now = clock.now();
    await repo.insertSession(tx, {
      token_hash: hashToken(token),
      user_id: userId,
      workspace_id: workspaceId,
      created_at: now,
      expires_at: now + SESSION_TTL_MS,
      last_seen_at: now,
    });
    return token;
  }

  return {
    ...createAccountAdmin({ db, clock, audit, checkPassword, passwords }),

    async needsSetup(): Promise<boolean> {
      return (await repo.countUsers(db)) === 0;
    },

    /**
     * First run: the first account and its workspace, and a session. Refused once any account exists. Recorded
     * as the new account's doing, from `address`.
     */
    async setup(input: {
      email: string;
      password: string;
      workspaceName: string;
      address?: string;
    }): Promise<{ token: string }> {
      const email = normaliseEmail(input.email);
      checkPassword(input.password);
      if (!(await this.needsSetup())) throw new AppError('conflict', 'Set-up is done already: sign in.');
      const passwordHash = await passwords.hash(input.password);
      // The account, its workspace and the membership appear together or not at all (two racing set-ups).
      return db.transaction().execute(async (tx) => {
        if ((await repo.countUsers(tx)) > 0)
          throw new AppError('conflict', 'Set-up is done already: sign in.');
        const user = await insertAccount(tx, email, passwordHash);
        const by = accountActor(user, input.address);
        const workspace = await workspaces.createWorkspace({ name: input.workspaceName }, by, tx);
        await addMember(tx, user, workspace.id, by);
        return { token: await startSession(tx, user.id, workspace.id) };
      });
    },

    /** An account (the CLI's `account create`), optionally a member of workspaces. */
    async createAccount(
      input: {
        email: string;
        password: string;
        workspaceIds?: string[];
      },
      by: Actor,
    ): Promise<AccountView> {
      const email = normaliseEmail(input.email);
      checkPassword(input.password);
      for (const id of input.workspaceIds ?? []) await workspaces.requireWorkspace(id);
      const passwordHash = await passwords.hash(input.password);
      const user = await db.transaction().execute(async (tx) => {
        const created = await insertAccount(tx, email, passwordHash);
        for (const id of input.workspaceIds ?? []) await addMember(tx, created, id, by);
        return created;
      });
      return present(user);
    },

    /** A member already is left as it is, and nothing is recorded. */
    async addToWorkspace(email: string, workspaceId: string, by: Actor): Promise<AccountView> {
      await workspaces.requireWorkspace(workspaceId);
      const user = await repo.findUserByEmail(db, normaliseEmail(email));
      if (!user) throw new AppError('not_found', `No account for ${email}.`);
      await db.transaction().execute((tx) => addMember(tx, user, workspaceId, by));
      return present(user);
    },

    /**
     * Signs in, or refuses with one message for an unknown e-mail and a wrong password (same work either way).
     * The attempt is counted against the sign-in limit before the password is looked at (signin-limit.ts).
     * Audit trail: a success, and a wrong password for an existing account, are recorded with the client address
     * in that account's workspaces. An unknown e-mail belongs to no workspace and is not recorded; nor is an
     * attempt the limit refuses (nothing about it is judged, and it could be repeated without bound).
     */
    async signIn(input: { email: string; password: string; address: string }): Promise<{ token: string }> {
      const email = normaliseEmail(input.email);
      const attempt = await signinLimit.take(email, input.address);
      const user = await repo.findUserByEmail(db, email);
      const ok = await passwords.verify(input.password, user?.password_hash ?? (await passwords.decoy()));
      if (!user || !ok) {
        if (user)
          await db.transaction().execute((tx) => recordSignin(tx, user, 'signin.failed', input.address));
        throw new AppError('invalid_credentials', 'The e-mail address or the password is wrong.');
      }
      await signinLimit.giveBack(attempt);
      // The one moment the password is known: a hash made with older parameters is replaced by today's.
      if (passwords.needsRehash(user.password_hash)) {
        const rehashed = await passwords.hash(input.password);
        await repo.replacePasswordHash(db, user.id, user.password_hash, rehashed);
      }
      const token = await db.transaction().execute(async (tx) => {
        // The session starts in the account's first workspace.
        const [first] = await recordSignin(tx, user, 'signin.succeeded', input.address);
        return startSession(tx, user.id, first?.id ?? null);
      });
      return { token };
    },

    /** Deletes expired sessions and the sign-in counts of ended windows (the sweeper's retention step). */
    async pruneExpired(): Promise<{ sessions: number; signinWindows: number }> {
      return {
        sessions: await repo.deleteSessionsExpiredBy(db, clock.now()),
        signinWindows: await signinLimit.pruneEnded(),
      };
    },

    async resolveSession(token: string | undefined): Promise<SessionContext | undefined> {
      if (!token || token.length > 100) return undefined;
      const tokenHash = hashToken(token);
      const session = await repo.findSession(db, tokenHash);
      const now = clock.now();
      if (!session || session.expires_at <= now) return undefined;
      const user = await repo.findUser(db, session.user_id);
      if (!user) return undefined;
      if (now - session.last_seen_at > 60_000) await repo.updateSession(db, tokenHash, { last_seen_at: now });
      const list = await repo.listUserWorkspaces(db, user.id);
      return {
        tokenHash,
        user: { id: user.id, email: user.email },
        workspaces: list,
        workspace: list.find((w) => w.id === session.workspace_id) ?? list[0],
      };
    },

    async selectWorkspace(session: SessionContext, workspaceId: string): Promise<void> {
      // A user sees only their workspaces: a foreign id is answered like an unknown one.
      if (!session.workspaces.some((w) => w.id === workspaceId))
        throw new AppError('not_found', 'No such workspace.');
      await repo.updateSession(db, session.tokenHash, { workspace_id: workspaceId });
    },

    /** The workspace's members, oldest membership first (the audit page's actor filter). */
    listMembers(workspaceId: string): Promise<{ id: string; email: string }[]> {
      return repo.listMembers(db, workspaceId);
    },

    async signOut(session: SessionContext): Promise<void> {
      await repo.deleteSession(db, session.tokenHash);
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
