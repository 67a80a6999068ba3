// Our resources as Twilio's: the one table of statuses and of channels (docs/twilio-compatibility.md shows them),
// and the Verification, VerificationCheck and Service bodies.
import { toTimestamp } from '../clock.js';
import type { CheckResult, Verification } from '../verification/schemas.js';
import type { Channel } from '../vocabulary/channels.js';
import type { Status } from '../vocabulary/statuses.js';
import type { WorkspaceRow } from '../workspaces/repository.js';
import type {
  TwilioChannel,
  TwilioService,
  TwilioStatus,
  TwilioVerification,
  TwilioVerificationCheck,
} from './schemas.js';
import { twilioAccountSid, twilioServiceSid, verificationSid } from './sids.js';

/** One to one: each of our statuses is the Twilio status that means the same. */
export const STATUS_TO_TWILIO: Record<Status, TwilioStatus> = {
  pending: 'pending',
  verified: 'approved',
  canceled: 'canceled',
  failed: 'max_attempts_reached',
  expired: 'expired',
  undelivered: 'failed',
};

export const CHANNEL_TO_TWILIO: Record<Channel, TwilioChannel> = { sms: 'sms', voice: 'call' };
export const CHANNEL_FROM_TWILIO: Record<TwilioChannel, Channel> = { sms: 'sms', call: 'voice' };

/** Where the workspace's service lives: the SIDs its resources carry and the base of their URLs. */
export interface ServiceContext {
  serviceSid: string;
  accountSid: string;
  /** PUBLIC_URL + /twilio/v2/Services/VA… */
  url: string;
}

export function serviceContext(publicUrl: string, workspaceId: string): ServiceContext {
  const serviceSid = twilioServiceSid(workspaceId);
  return {
    serviceSid,
    accountSid: twilioAccountSid(workspaceId),
    url: `${publicUrl}/twilio/v2/Services/${serviceSid}`,
  };
}

/**
 * The last change a Verification shows: when it was approved, when it expired, else when it was made (our
 * Verification carries no other change time; docs/twilio-compatibility.md says so).
 */
function lastChange(v: Verification): string {
  if (v.verified_at !== null) return v.verified_at;
  return v.status === 'expired' ? v.expires_at : v.created_at;
}

export function presentVerification(v: Verification, ctx: ServiceContext): TwilioVerification {
  const sid = verificationSid(v.id);
  const channel = CHANNEL_TO_TWILIO[v.channel];
  return {
    sid,
    service_sid: ctx.serviceSid,
    account_sid: ctx.accountSid,
    to: v.phone,
    channel,
    status: STATUS_TO_TWILIO[v.status],
    valid: v.status === 'verified',
    // No number look-up is made: the fields are there, empty, for code that reads them.
    lookup: {
      carrier: {
        error_code: null,
        name: null,
        mobile_country_code: null,
        mobile_network_code: null,
        type: null,
      },
    },
    amount: null,
    payee: null,
    // One attempt: retries and fail-over stay inside it, on its channel.
    send_code_attempts: [{ attempt_sid: `VL${sid.slice(2)}`, channel, time: v.created_at }],
    date_created: v.created_at,
    date_updated: lastChange(v),
    sna: null,
    url: `${ctx.url}/Verifications/${sid}`,
  };
}

/** A check's answer: its status from the check itself, the rest from the verification it judged. */
export function presentCheck(
  result: CheckResult,
  v: Verification,
  ctx: ServiceContext,
): TwilioVerificationCheck {
  return {
    sid: verificationSid(v.id),
    service_sid: ctx.serviceSid,
    account_sid: ctx.accountSid,
    to: v.phone,
    channel: CHANNEL_TO_TWILIO[v.channel],
    status: STATUS_TO_TWILIO[result.status],
    valid: result.verified,
    amount: null,
    payee: null,
    date_created: v.created_at,
    date_updated: lastChange(v),
    sna_attempts_error_codes: null,
  };
}

/** Codes are 6 digits unless a send asks otherwise (the Twilio API cannot: Twilio sets it per service). */
export const SERVICE_CODE_LENGTH = 6;

export function presentService(
  ws: Pick<WorkspaceRow, 'name' | 'created_at' | 'updated_at'>,
  ctx: ServiceContext,
): TwilioService {
  return {
    sid: ctx.serviceSid,
    account_sid: ctx.accountSid,
    friendly_name: ws.name,
    code_length: SERVICE_CODE_LENGTH,
    lookup_enabled: false,
    psd2_enabled: false,
    skip_sms_to_landlines: false,
    dtmf_input_required: false,
    tts_name: null,
    do_not_share_warning_enabled: false,
    custom_code_enabled: false,
    push: null,
    totp: null,
    default_template_sid: null,
    whatsapp: null,
    verify_event_subscription_enabled: false,
    date_created: toTimestamp(ws.created_at),
    date_updated: toTimestamp(ws.updated_at),
    url: ctx.url,
    links: {
      verifications: `${ctx.url}/Verifications`,
      verification_checks: `${ctx.url}/VerificationCheck`,
    },
  };
}
