// What a carrier is to the rest of the service: one descriptor, exported by the carrier's own folder. The
// account rules, the router, the status webhooks, the dashboard's forms, the CLI's options and the channel rules
// read descriptors; none of them names a carrier. Adding a carrier is adding a folder (docs/adding-a-carrier.md).

import type { CarrierAccountOf, CredentialField } from '../../carrier-accounts/account-types.js';
import type { CredentialTestResult } from '../../carrier-accounts/credential-test.js';
import type { Channel } from '../../vocabulary/channels.js';
import type { DeliveryProvider, StatusReport } from '../provider.js';

export type { CarrierAccountOf, CredentialField, CredentialTestResult };

export interface AdapterContext<R> {
  /** Where the carrier posts this account's status callbacks (for carriers that have them). */
  statusCallbackUrl: string;
  /** How long one request to the carrier may take (CARRIER_TIMEOUT_MS). */
  timeoutMs?: number;
  /** The process's runtime of this carrier, where it has one and this process set it up. */
  runtime?: R;
}

/** A signed status callback as received: the route keeps the exact bytes, which signatures cover. */
export interface WebhookRequest {
  /** The public URL the carrier called (PUBLIC_URL, the route's path and any query string). */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
  /** Now, from the service's clock (signatures with a timestamp are checked against it). */
  now: number;
}

export interface CarrierWebhook<C> {
  verify(account: CarrierAccountOf<C>, request: WebhookRequest): boolean;
  /** The report a verified body carries; undefined when it carries none (the carrier is answered 204 anyway). */
  parse(rawBody: string): StatusReport | undefined;
  /**
   * Whether an unsigned callback may be the carrier's own, sent unsigned after an internal error: it is then
   * refused with a 503, which makes the carrier try again (signed), instead of a 403, which would lose it.
   */
  unsignedMayBeGenuine?(request: WebhookRequest): boolean;
}

/** What a credential probe is given besides the account. */
export interface ProbeContext<R> {
  /** The probe's whole deadline (PROBE_TIMEOUT_MS, probe.ts; tests shorten it). */
  timeoutMs: number;
  /** The process's runtime of this carrier, where it has one. */
  runtime?: R;
  /** Replaces the global fetch (tests). */
  fetch?: typeof fetch;
}

/** What a carrier's per-process runtime may use. */
export interface RuntimeContext {
  timeoutMs: number;
  log?: { info(message: string): void; warn(message: string): void };
  /** Applies a status report that arrived by the runtime's own means, within the account's workspace. */
  report(input: { workspaceId: string; report: StatusReport }): Promise<unknown>;
}

/** State a carrier keeps for the life of a process (sessions, say), released as accounts go. */
export interface CarrierRuntime {
  /** Lets go of what the process holds for one account (it was removed). */
  release(accountId: string): Promise<void>;
  /** Lets go of every account not among these (removed through another process); how many. */
  releaseAllBut(accountIds: ReadonlySet<string>): Promise<number>;
  close(): Promise<void>;
}

export interface CarrierDescriptor<C = Record<string, unknown>, R extends CarrierRuntime = CarrierRuntime> {
  /** The type stored with each account, in URLs and in `--type`: lower case, stable. */
  type: string;
  /** How people read it (its brand). Also the prefix of failure messages from its reports. */
  label: string;
  /** The credentials, in the order forms show them. Any other field is refused. */
  fields: readonly CredentialField[];
  /**
   * Whether the carrier's API base can be replaced (a regional edge, a proxy, a test double): by the operator
   * alone, with the CLI's --base-url; the dashboard shows it on the account's card and never takes it (SSRF).
   */
  baseUrl: boolean;
  /** The channels its numbers can send on. */
  channels: readonly Channel[];
  /**
   * The dashboard's words under an account's callback URL (what to set at the carrier); for a carrier without
   * a webhook, where its reports come from instead.
   */
  callbackHint: string;
  createAdapter(account: CarrierAccountOf<C>, context: AdapterContext<R>): DeliveryProvider;
  /** Its signed status callbacks, answered at POST /webhooks/<type>/:accountId. None: no callback URL. */
  webhook?: CarrierWebhook<C>;
  /**
   * "Test credentials": one harmless call with the account's credentials at its API base (a read, a bind and
   * unbind), never following a redirect. Its outcome's detail is printable, bounded and never a secret; it
   * resolves whatever happens (ok, refused, unreachable). None: the account has no test.
   */
  probe?(account: CarrierAccountOf<C>, context: ProbeContext<R>): Promise<CredentialTestResult>;
  /** Per-process state, built once by the composition root. */
  createRuntime?(context: RuntimeContext): R;
}

/** A descriptor as lists hold it; credentials reach its functions validated against its own fields. */
// biome-ignore lint/suspicious/noExplicitAny: the list holds carriers of different credential types.
export type AnyCarrier = CarrierDescriptor<any, any>;

/** The carrier of a type in a list; undefined for a type it does not hold. */
export function findCarrier(carriers: readonly AnyCarrier[], type: string): AnyCarrier | undefined {
  return carriers.find((c) => c.type === type);
}

/** A provider that takes nothing: the account cannot send, and every send says why. */
export function refusingProvider(name: string, errorMessage: string): DeliveryProvider {
  return {
    name,
    send: async () => ({ ok: false, providerId: null, errorCode: 'provider_error', errorMessage }),
  };
}
