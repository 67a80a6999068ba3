// Which workspace number sends on which channel. SMS needs a mobile number; voice works from any number whose
// carrier places calls (SMPP carries SMS only). There is never a fallback to another channel.
import { AppError } from '../errors.js';
import type { Channel } from './channel-names.js';
import type { SenderRow } from './repository.js';

/** Carrier types that carry SMS alone. */
const SMS_ONLY_CARRIERS: ReadonlySet<string> = new Set(['smpp']);

/** Whether the number can send on the channel: SMS from a mobile, voice through a carrier that calls. */
export function canSend(number: SenderRow, channel: Channel): boolean {
  if (channel === 'sms') return number.type === 'mobile';
  return number.carrier_type === null || !SMS_ONLY_CARRIERS.has(number.carrier_type);
}

/** The sender for a destination: a capable number of the destination's country where there is one. */
export function selectSender<N extends SenderRow>(
  numbers: readonly N[],
  channel: Channel,
  destinationCountry: string,
): N {
  if (numbers.length === 0) {
    throw new AppError(
      'channel_unavailable',
      'The workspace has no number to send from. Add one with `phone-verify number add`.',
      { reason: 'no_sender_number' },
    );
  }
  const capable = numbers.filter((n) => canSend(n, channel));
  const first = capable[0];
  if (!first && channel === 'voice') {
    throw new AppError(
      'channel_unavailable',
      'Voice needs a number whose carrier places calls, and every number of the workspace sends through SMPP, which carries SMS only. Use channel "sms" or add a number for calls.',
      { reason: 'no_voice_number' },
    );
  }
  if (!first) {
    const types = [...new Set(numbers.map((n) => n.type))].join(', ');
    throw new AppError(
      'channel_unavailable',
      `SMS needs a mobile number on the workspace, and it has only ${types} numbers. Use channel "voice" or add a mobile number.`,
      { reason: 'no_mobile_number' },
    );
  }
  return capable.find((n) => n.country === destinationCountry) ?? first;
}

/**
 * The senders a delivery may use, in order: the number the send chose, then, for fail-over, one number of
 * each other carrier account that can send on the same channel (the destination's country first). Numbers
 * without a carrier never take over from a carrier (their codes reach no phone), and the channel never changes.
 * Empty when the chosen number is gone from the workspace.
 */
export function deliverySenders<N extends SenderRow>(
  numbers: readonly N[],
  channel: Channel,
  destinationCountry: string,
  chosen: string,
): N[] {
  const primary = numbers.find((n) => n.number === chosen);
  if (!primary) return [];
  if (primary.carrier_id === null) return [primary];
  const capable = numbers.filter(
    (n) => n.carrier_id !== null && n.carrier_id !== primary.carrier_id && canSend(n, channel),
  );
  const ordered = [
    ...capable.filter((n) => n.country === destinationCountry),
    ...capable.filter((n) => n.country !== destinationCountry),
  ];
  const seen = new Set([primary.carrier_id]);
  const others = ordered.filter((n) => !seen.has(n.carrier_id as string) && seen.add(n.carrier_id as string));
  return [primary, ...others];
}
