// The provider interface: everything the verification logic knows of delivery. Carrier adapters implement
// it; the development provider (dev-provider.ts) is the default.
import type { Db } from '../store/database.js';
import type { Channel } from '../vocabulary/channels.js';
import type { Mode } from '../vocabulary/modes.js';
import type { NumberRow } from '../workspaces/repository.js';
import type { DeliveryErrorCode } from './error-codes.js';
import type { VoiceScript } from './voice-script.js';

export interface OutboundMessage {
  verificationId: string;
  workspaceId: string;
  channel: Channel;
  /** E.164 destination. */
  to: string;
  /** E.164 sender: a number of the workspace. */
  from: string;
  /** BCP 47 locale of the destination, for the voice. */
  locale: string;
  /** The SMS text (channel sms). */
  text: string;
  /** The call's script (channel voice). */
  voice: VoiceScript;
  /** The verification's mode: a test-mode message only ever reaches the outbox (router.ts). */
  mode: Mode;
}

/**
 * A failure worth retrying (timeout, refused connection, 5xx, 429): providers throw it, and the caller retries
 * with backoff within the code's lifetime. A definitive rejection is a HandOver with ok: false instead.
 */
export class TransientDeliveryError extends Error {
  /** The carrier's Retry-After, where it gave one. */
  readonly retryAfterMs: number | undefined;
  constructor(message: string, retryAfterMs?: number) {
    super(message);
    this.name = 'TransientDeliveryError';
    this.retryAfterMs = retryAfterMs;
  }
}

/** A carrier's report on a delivery, parsed from its status callback. */
export interface StatusReport {
  providerId: string;
  state: 'accepted' | 'delivered' | 'failed';
  /** The carrier's own code and words, kept in error_message. */
  carrierCode?: string;
  carrierMessage?: string;
}

/** The first hand-over's outcome: accepted by the provider, or definitively rejected. */
export type HandOver =
  | { ok: true; providerId: string }
  | { ok: false; providerId: string | null; errorCode: DeliveryErrorCode; errorMessage: string };

/** A provider reports a delivery's later failure here (a carrier's status callback, say). */
export interface DeliveryReportSink {
  /** False when it changed nothing: no such verification, or this very failure was already recorded. */
  deliveryFailed(report: {
    verificationId: string;
    providerId: string;
    errorCode: DeliveryErrorCode;
    errorMessage: string;
  }): Promise<boolean>;
}

export interface DeliveryProvider {
  /** Stable name, kept with each verification (`delivery_provider`). */
  readonly name: string;
  /**
   * Present when the hand-over is a write to this service's own database (the development outbox): made through
   * `db`, the caller's transaction, it commits with the verification or not at all. A send makes it in its own
   * transaction (no delivery job, no second commit); a carrier's hand-over leaves the process, and waits.
   */
  readonly sendIn?: (db: Db, message: OutboundMessage) => Promise<HandOver>;
  send(message: OutboundMessage): Promise<HandOver>;
}

/**
 * Picks the provider for a sender number: its carrier account's adapter, else the development provider; for a
 * test-mode verification the test outbox whatever the number's carrier (default mode: live).
 */
export interface ProviderRouter {
  providerFor(sender: NumberRow, mode?: Mode): Promise<DeliveryProvider>;
  /**
   * The same choice when it needs no read and is a write to this database (the development provider, the test
   * outbox); undefined for a number of a carrier account.
   */
  localProviderFor(sender: NumberRow, mode: Mode): LocalProvider | undefined;
}

/** A provider whose hand-over is a write to this database. */
export type LocalProvider = DeliveryProvider & Required<Pick<DeliveryProvider, 'sendIn'>>;
