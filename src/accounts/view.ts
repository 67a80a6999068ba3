// An account as the CLI and the dashboard show it: never a password or its hash.
import { toTimestamp } from '../clock.js';
import type { Db } from '../store/database.js';
import * as repo from './repository.js';

export interface AccountView {
  id: string;
  email: string;
  created_at: string;
  workspaces: { id: string; name: string }[];
}

/** The account with the workspaces it belongs to, read through `db` (a transaction where the caller holds one). */
export async function presentAccount(db: Db, user: repo.UserRow): Promise<AccountView> {
  return {
    id: user.id,
    email: user.email,
    created_at: toTimestamp(user.created_at),
    workspaces: await repo.listUserWorkspaces(db, user.id),
  };
}
