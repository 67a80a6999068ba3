// The provider interface: everything the verification logic knows of delivery. Carrier adapters implement
// it; the development provider (dev-provider.ts) is the default.
import type { Channel } from '../workspaces/channels.js';
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
}

/** The first hand-over's outcome: accepted by the provider, or definitively rejected. */
export type HandOver =
  | { ok: true; providerId: string }
  | { ok: false; providerId: string | null; errorCode: DeliveryErrorCode; errorMessage: string };

/** A provider reports a delivery's later failure here (a carrier's status callback, say). */
export interface DeliveryReportSink {
  deliveryFailed(report: {
    verificationId: string;
    providerId: string;
    errorCode: DeliveryErrorCode;
    errorMessage: string;
  }): Promise<void>;
}

export interface DeliveryProvider {
  /** Stable name, kept with each verification (`delivery_provider`). */
  readonly name: string;
  send(message: OutboundMessage): Promise<HandOver>;
}

/** Picks the provider for a sender number: one place where carrier accounts will plug in. */
export interface ProviderRouter {
  providerFor(from: string, workspaceId: string): DeliveryProvider;
}
