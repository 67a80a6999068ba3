// Which workspace number sends on which channel. SMS needs a mobile number; either channel needs a carrier that
// carries it (each carrier's descriptor says which it does: some carry SMS only). There is never a fallback to
// another channel.
import { AppError } from '../errors.js';
import type { Channel } from '../vocabulary/channels.js';
import type { SenderRow } from './repository.js';

/** What the channel rules need of a carrier (its descriptor has it). */
export interface CarrierChannels {
  type: string;
  label: string;
  channels: readonly Channel[];
}

/** Whether the number's carrier carries the channel (the development provider and unknown types: yes). */
function carries(number: SenderRow, channel: Channel, carriers: readonly CarrierChannels[]): boolean {
  if (number.carrier_type === null) return true;
  const carrier = carriers.find((c) => c.type === number.carrier_type);
  return carrier === undefined || carrier.channels.includes(channel);
}

/** Whether the number can send on the channel: SMS from a mobile, each through a carrier that carries it. */
export function canSend(number: SenderRow, channel: Channel, carriers: readonly CarrierChannels[]): boolean {
  if (channel === 'sms' && number.type !== 'mobile') return false;
  return carries(number, channel, carriers);
}

/** "X, which carries SMS only" for the carriers of these numbers. */
function smsOnly(numbers: readonly SenderRow[], carriers: readonly CarrierChannels[]): string {
  const labels = [
    ...new Set(numbers.map((n) => carriers.find((c) => c.type === n.carrier_type)?.label ?? n.carrier_type)),
  ];
  return `${labels.join(' or ')}, which ${labels.length === 1 ? 'carries' : 'carry'} SMS only`;
}

/** The sender for a destination: a capable number of the destination's country where there is one. */
export function selectSender<N extends SenderRow>(
  numbers: readonly N[],
  channel: Channel,
  destinationCountry: string,
  carriers: readonly CarrierChannels[],
): N {
  if (numbers.length === 0) {
    throw new AppError(
      'channel_unavailable',
      'The workspace has no number to send from. Add one with `phone-verify number add`.',
      { reason: 'no_sender_number' },
    );
  }
  const capable = numbers.filter((n) => canSend(n, channel, carriers));
  const first = capable[0];
  if (!first && channel === 'voice') {
    throw new AppError(
      'channel_unavailable',
      `Voice needs a number whose carrier places calls, and every number of the workspace sends through ${smsOnly(numbers, carriers)}. Use channel "sms" or add a number for calls.`,
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
  carriers: readonly CarrierChannels[],
): N[] {
  const primary = numbers.find((n) => n.number === chosen);
  if (!primary) return [];
  if (primary.carrier_id === null) return [primary];
  const capable = numbers.filter(
    (n) => n.carrier_id !== null && n.carrier_id !== primary.carrier_id && canSend(n, channel, carriers),
  );
  const ordered = [
    ...capable.filter((n) => n.country === destinationCountry),
    ...capable.filter((n) => n.country !== destinationCountry),
  ];
  const seen = new Set([primary.carrier_id]);
  const others = ordered.filter((n) => !seen.has(n.carrier_id as string) && seen.add(n.carrier_id as string));
  return [primary, ...others];
}
