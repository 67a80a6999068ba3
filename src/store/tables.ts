// Row types of every table. Times are epoch milliseconds (bigint in PostgreSQL, integer in SQLite);
// booleans are 0/1 integers and JSON is text, so one migration set serves both stores. Columns that hold one
// of a fixed set of names take their type from the list the schemas and services use.

import type { AuditAction } from '../vocabulary/audit-actions.js';
import type { Channel } from '../vocabulary/channels.js';
import type { Country } from '../vocabulary/countries.js';
import type { EventKind } from '../vocabulary/event-kinds.js';
import type { NumberType } from '../vocabulary/number-types.js';
import type { Status } from '../vocabulary/statuses.js';
export interface WorkspacesTable {
  id: string;
  name: string;
  /** JSON array of ISO country codes, or null for every supported country. */
  allowed_countries: string | null;
  send_limit: number;
  send_window_seconds: number;
  request_limit_per_minute: number;
  created_at: number;
  updated_at: number;
}

export interface WorkspaceNumbersTable {
  id: string;
  workspace_id: string;
  number: string;
  type: NumberType;
  country: Country;
  created_at: number;
  /** Order of addition (clock.ts monotonicStamps): the first number gives the default country. */
  seq: number;
  /** The carrier account that sends from this number; null: the development provider. */
  carrier_id: string | null;
}

export interface CarrierAccountsTable {
  id: string;
  workspace_id: string;
  /** The carrier's type: a descriptor's `type` (src/delivery/carriers/index.ts lists them). */
  type: string;
  /** AES-256-GCM ciphertext of the credentials JSON (carriers/credentials.ts); never plain text. */
  credentials: string;
  /** Replaces the carrier's API base (a regional edge, a proxy, a test double); null: the carrier's own. */
  base_url: string | null;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  workspace_id: string;
  name: string;
  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  key_hash: string;
  /** The first characters of the key, shown in lists so a key can be recognised. */
  prefix: string;
  /** JSON array of scope names. */
  scopes: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  last_used_at: number | null;
}

export interface VerificationsTable {
  id: string;
  workspace_id: string;
  phone: string;
  channel: Channel;
  status: Status;
  /** HMAC-SHA256 of the code under the server secret, hex. */
  code_hash: string;
  code_length: number;
  attempts: number;
  max_attempts: number;
  brand_name: string;
  metadata: string;
  expires_at: number;
  verified_at: number | null;
  created_at: number;
  updated_at: number;
  delivery_ok: number | null;
  delivery_provider: string | null;
  provider_id: string | null;
  from_number: string;
  error_code: string | null;
  error_message: string | null;
  /** The send's ordinal among the number's sends in the workspace: "newest" without clock ties. */
  seq: number;
  /** The destination's country (ISO code); null on rows written before it was kept. */
  country: Country | null;
}

export interface PhoneLocksTable {
  workspace_id: string;
  phone: string;
  touched_at: number;
  /** How many sends the number has had in the workspace; taken with the lock. */
  seq: number;
}

export interface RequestCountersTable {
  workspace_id: string;
  window_start: number;
  count: number;
}

export interface OutboxMessagesTable {
  id: string;
  verification_id: string;
  workspace_id: string;
  channel: Channel;
  to_number: string;
  from_number: string;
  body: string;
  /** The voice call's markup (SSML) as a text-to-speech engine would get it; null for SMS. */
  markup: string | null;
  created_at: number;
  /** For simulated late failures: when the carrier's failure report is due, and whether it was applied. */
  report_due_at: number | null;
  report_applied: number;
  /** Monotonic order of creation (clock.ts monotonicStamp), for "newest first". */
  seq: number;
}

export interface UsersTable {
  id: string;
  /** Lower-cased. */
  email: string;
  /** scrypt, self-describing (accounts/password.ts). */
  password_hash: string;
  created_at: number;
}

export interface MembershipsTable {
  user_id: string;
  workspace_id: string;
  role: string;
  created_at: number;
}

export interface SessionsTable {
  /** SHA-256 of the session cookie's token; the token itself is never stored. */
  token_hash: string;
  user_id: string;
  /** The workspace the session is looking at. */
  workspace_id: string | null;
  created_at: number;
  expires_at: number;
  last_seen_at: number;
}

export interface SigninThrottleTable {
  key: string;
  window_start: number;
  count: number;
}

export interface VerificationEventsTable {
  id: string;
  verification_id: string;
  workspace_id: string;
  kind: EventKind;
  detail: string | null;
  at: number;
  seq: number;
}

export interface DeliveryJobsTable {
  /** One job per verification: the hand-over still to be made. */
  verification_id: string;
  workspace_id: string;
  /** The code, sealed under deriveKey(secret, 'delivery-jobs') with the verification id as additional data. */
  sealed_code: string;
  /** Hand-over attempts that failed transiently so far. */
  attempts: number;
  next_attempt_at: number;
  /** The job is being worked by whoever holds lease_token until then (0: free). */
  lease_until: number;
  lease_token: string | null;
  last_error: string | null;
  created_at: number;
}

/** How far a background read-model has got: every verification created before `done_before` is in it. */
export interface WatermarksTable {
  /** The read-model: 'verification_rollups' or 'phone_directory'. */
  name: string;
  done_before: number;
}

/** The overview's counts for one workspace, UTC hour of creation, channel and destination (stats/rollups.ts). */
export interface VerificationRollupsTable {
  workspace_id: string;
  /** Epoch ms of the hour's first millisecond. */
  hour: number;
  channel: Channel;
  /** The destination's country; '' for rows written before it was kept (then `prefix` says where). */
  country: Country | '';
  /** The number's first five characters where the country is ''; '' otherwise. */
  prefix: string;
  sends: number;
  verified: number;
  undelivered: number;
  /** How long the verified ones took: JSON [[whole seconds, count], …]. */
  verify_seconds: string;
}

/** The numbers a workspace's verifications went to, keyed by their digits reversed (last digits: a range). */
export interface PhoneDirectoryTable {
  workspace_id: string;
  /** The E.164 digits, last first ("+61412345678" -> "87654321416"). */
  reversed: string;
  phone: string;
  /** Verifications to the number indexed so far: at least as many as are stored (retention deletes, never this). */
  sends: number;
  /** The newest verification to the number when it was last indexed (retention removes entries by it). */
  last_created_at: number;
}

/** One entry of the audit trail (src/audit/): who did what in a workspace. Never a secret (see record.ts). */
export interface AuditLogTable {
  id: string;
  workspace_id: string;
  at: number;
  /** Strictly increasing within a process: the order of "newest first". */
  seq: number;
  /** 'cli' (the operator's CLI), 'system', or the id of the dashboard account that acted. */
  actor: string;
  /** The dashboard account's e-mail when it acted; null for 'cli' and 'system'. */
  actor_email: string | null;
  action: AuditAction;
  /** The id of what was acted on (a key, a number, a carrier account, an account, the workspace). */
  target: string | null;
  /** JSON object: what changed (old and new values, names, scopes), never a secret. */
  details: string;
  /** The client address of a dashboard request; null for the CLI. */
  address: string | null;
}

export interface Database {
  workspaces: WorkspacesTable;
  workspace_numbers: WorkspaceNumbersTable;
  api_keys: ApiKeysTable;
  verifications: VerificationsTable;
  phone_locks: PhoneLocksTable;
  request_counters: RequestCountersTable;
  outbox_messages: OutboxMessagesTable;
  users: UsersTable;
  memberships: MembershipsTable;
  sessions: SessionsTable;
  signin_throttle: SigninThrottleTable;
  verification_events: VerificationEventsTable;
  carrier_accounts: CarrierAccountsTable;
  delivery_jobs: DeliveryJobsTable;
  watermarks: WatermarksTable;
  verification_rollups: VerificationRollupsTable;
  phone_directory: PhoneDirectoryTable;
  audit_log: AuditLogTable;
}
