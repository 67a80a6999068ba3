// Row types of every table. Times are epoch milliseconds (bigint in PostgreSQL, integer in SQLite);
// booleans are 0/1 integers and JSON is text, so one migration set serves both stores. Columns that hold one
// of a fixed set of names take their type from the list the schemas and services use.

import type { AuditAction } from '../vocabulary/audit-actions.js';
import type { Channel } from '../vocabulary/channels.js';
import type { Country } from '../vocabulary/countries.js';
import type { EventKind } from '../vocabulary/event-kinds.js';
import type { Mode } from '../vocabulary/modes.js';
import type { NumberType } from '../vocabulary/number-types.js';
import type { Status } from '../vocabulary/statuses.js';
import type { WebhookEventType } from '../vocabulary/webhook-events.js';
export interface WorkspacesTable {
  id: string;
  name: string;
  /** JSON array of ISO country codes, or null for every supported country. */
  allowed_countries: string | null;
  send_limit: number;
  send_window_seconds: number;
  request_limit_per_minute: number;
  /** Failed checks one number may have in the window before every check and send to it is refused. */
  guess_limit: number;
  /** The guess ceiling's sliding window. */
  guess_window_seconds: number;
  created_at: number;
  updated_at: number;
  /** Enabled webhook endpoints (src/webhooks/): 0 means no event is emitted, at no cost on the request paths. */
  webhook_endpoints: number;
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
  /** The mode its prefix names (pv_live_ / pv_test_): a CHECK holds the two together. */
  mode: Mode;
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
  /** The mode of the key that sent it: a key of the other mode finds it nowhere. */
  mode: Mode;
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

/** One failed check of a number (a wrong code judged against its pending verification), for the guess ceiling. */
export interface GuessFailuresTable {
  workspace_id: string;
  phone: string;
  at: number;
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
  /** The verification's mode: the dashboard's inbox shows test messages only when asked. */
  mode: Mode;
}

/** A workspace's test number: a test key's send to it makes a verification whose code is `code`. */
export interface TestNumbersTable {
  workspace_id: string;
  /** E.164. */
  phone: string;
  code: string;
  created_at: number;
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

/** An hour's sends of one channel and destination (the overview's roll-up key). */
interface RollupKey {
  workspace_id: string;
  /** Epoch ms of the hour's first millisecond. */
  hour: number;
  channel: Channel;
  /** The destination's country; '' for rows written before it was kept (then `prefix` says where). */
  country: Country | '';
  /** The number's first five characters where the country is ''; '' otherwise. */
  prefix: string;
}

/** Sends, and how many of them are in each status: every send is exactly one of the six. */
export interface SendCounts {
  sends: number;
  verified: number;
  undelivered: number;
  /** The sends that are none of verified and undelivered, by status (0 in hours rolled up before 0014). */
  pending: number;
  canceled: number;
  expired: number;
  failed: number;
}

/**
 * The overview's counts of the hours not rolled up yet, kept by triggers on verifications (migration 0017): one
 * row per roll-up key, seconds to verify and shard (PostgreSQL: the server process that wrote).
 */
export interface VerificationCountsTable extends RollupKey, SendCounts {
  /** Whole seconds from send to verification of the verified ones counted here; -1 for all the others. */
  seconds: number;
  shard: number;
}

/** The overview's counts for one workspace, UTC hour of creation, channel and destination (stats/rollups.ts). */
export interface VerificationRollupsTable extends RollupKey, SendCounts {
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

/** An Idempotency-Key of a workspace (verification/idempotency.ts): the send it guards, then that send's answer. */
export interface IdempotencyKeysTable {
  workspace_id: string;
  /** The key exactly as the client sent it (not a secret: the client's name for one request). */
  key: string;
  /** SHA-256, hex, of the method, the route and the raw body bytes of the request that took the key. */
  request_hash: string;
  /** 'in_flight' while its send runs; 'done' once the answer is stored. */
  state: 'in_flight' | 'done';
  /** Who runs the send: only the holder of this token stores the answer or releases the key. */
  lease_token: string;
  /** While in flight, until when the holder may run (afterwards a retry takes the key over). */
  lease_until: number;
  /** The stored answer ('done'): its status and the exact bytes of its body. */
  response_status: number | null;
  response_body: string | null;
  created_at: number;
  /** created_at + 24 h: after it the key is free again, and retention deletes the row. */
  expires_at: number;
}

/** The pumping guard's settings of a workspace (src/fraud/); no row: the defaults. */
export interface FraudSettingsTable {
  workspace_id: string;
  range_limit: number;
  range_window_seconds: number;
  block_seconds: number;
  /** The conversion signal judges a range's last this many finished sends... */
  conversion_sends: number;
  /** ...and blocks it when fewer than this percent were verified (0: off). */
  conversion_percent: number;
  /** The same signal per destination country: its last this many finished sends... */
  country_conversion_sends: number;
  /** ...and the percent verified below which the country is blocked (0: off). */
  country_conversion_percent: number;
  updated_at: number;
}

/** A number or range (E.164 prefix) the pumping guard never blocks. */
export interface FraudAllowTable {
  workspace_id: string;
  prefix: string;
  created_at: number;
}

/** A number range sends touched (its lock row, and its active block if any), or a country the signal judged. */
export interface FraudRangesTable {
  workspace_id: string;
  /** The E.164 number minus its last 3 digits; or a country's two letters (src/fraud/rules.ts isCountryKey). */
  range_prefix: string;
  touched_at: number;
  /** Until when sends to the range are refused; null (or past): not blocked. */
  blocked_until: number | null;
  block_id: string | null;
  block_reason: string | null;
}

/** The last send to a number, under its range (the velocity rule counts them). */
export interface FraudRangeNumbersTable {
  workspace_id: string;
  phone: string;
  range_prefix: string;
  last_sent_at: number;
}

/** One block of a range or a country, active or past. */
export interface FraudBlocksTable {
  id: string;
  workspace_id: string;
  /** The range, or the country's two letters (a country block: low_conversion only). */
  range_prefix: string;
  /** 'range_velocity' or 'low_conversion' */
  reason: string;
  /**
   * range_velocity: distinct numbers of the range in the window when it tripped (the refused one included);
   * low_conversion: the finished sends judged (the setting N).
   */
  distinct_numbers: number;
  /** low_conversion: how many of the judged sends were verified; null for range_velocity. */
  verified: number | null;
  created_at: number;
  blocked_until: number;
  lifted_at: number | null;
  /** Who lifted it by hand (an account's e-mail, or 'cli'). */
  lifted_by: string | null;
  /** Sends it refused, the one that tripped it included. */
  refused: number;
}

/** A send refused before any verification was made (src/verification/refused-sends.ts). Nothing secret. */
export interface RefusedSendsTable {
  id: string;
  workspace_id: string;
  /** E.164. */
  phone: string;
  country: string;
  /** The channel the send asked for. */
  channel: string;
  /** The rule that refused it: range_velocity, low_conversion, number_type or guess_ceiling. */
  reason: string;
  /** The pumping guard's block that refused it; null for the other rules. */
  block_id: string | null;
  created_at: number;
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
  guess_failures: GuessFailuresTable;
  outbox_messages: OutboxMessagesTable;
  test_numbers: TestNumbersTable;
  users: UsersTable;
  memberships: MembershipsTable;
  sessions: SessionsTable;
  signin_throttle: SigninThrottleTable;
  verification_events: VerificationEventsTable;
  carrier_accounts: CarrierAccountsTable;
  delivery_jobs: DeliveryJobsTable;
  watermarks: WatermarksTable;
  verification_rollups: VerificationRollupsTable;
  verification_counts: VerificationCountsTable;
  phone_directory: PhoneDirectoryTable;
  idempotency_keys: IdempotencyKeysTable;
  fraud_settings: FraudSettingsTable;
  fraud_allow: FraudAllowTable;
  fraud_ranges: FraudRangesTable;
  fraud_range_numbers: FraudRangeNumbersTable;
  fraud_blocks: FraudBlocksTable;
  refused_sends: RefusedSendsTable;
  audit_log: AuditLogTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_messages: WebhookMessagesTable;
  webhook_attempts: WebhookAttemptsTable;
}

/** A workspace's webhook endpoint (src/webhooks/). */
export interface WebhookEndpointsTable {
  id: string;
  workspace_id: string;
  url: string;
  /** null: every event type; else ',type,type,'. */
  events: string | null;
  /** The signing secret (whsec_…), sealed under deriveKey(secret, 'webhook-secrets') with the endpoint id. */
  sealed_secret: string;
  /** The secret before the last rotation, still signing until previous_until. */
  sealed_previous_secret: string | null;
  previous_until: number | null;
  /** When the endpoint began failing (cleared by a success); five days of it disable the endpoint. */
  failing_since: number | null;
  disabled_at: number | null;
  created_at: number;
}

/** One event to one endpoint: the delivery job, kept once settled until retention prunes it. */
export interface WebhookMessagesTable {
  /** The webhook-id header: the same for every endpoint and every retry of the event. */
  event_id: string;
  endpoint_id: string;
  workspace_id: string;
  /** An event type, or 'webhook.test' (the dashboard's test event). */
  type: WebhookEventType | 'webhook.test';
  verification_id: string | null;
  /** The exact body sent on every attempt (snapshot taken when the event was emitted). */
  body: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: number;
  lease_until: number;
  lease_token: string | null;
  created_at: number;
  settled_at: number | null;
}

/** One delivery attempt of a message. */
export interface WebhookAttemptsTable {
  id: string;
  workspace_id: string;
  endpoint_id: string;
  event_id: string;
  type: WebhookEventType | 'webhook.test';
  at: number;
  status: number | null;
  latency_ms: number;
  error: string | null;
  excerpt: string | null;
}
