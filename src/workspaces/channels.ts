// Which workspace number sends on which channel. SMS needs a mobile number; voice works from any number.
// There is never a fallback to another channel.
import { AppError } from '../errors.js';
import type { NumberRow } from './repository.js';

export const CHANNELS = ['voice', 'sms'] as const;
export type Channel = (typeof CHANNELS)[number];

/** The sender for a destination: a capable number of the destination's country where there is one. */
export function selectSender(
  numbers: readonly NumberRow[],
  channel: Channel,
  destinationCountry: string,
): NumberRow {
  if (numbers.length === 0) {
    throw new AppError(
      'channel_unavailable',
      'The workspace has no number to send from. Add one with `phone-verify number add`.',
      { reason: 'no_sender_number' },
    );
  }
  const capable = channel === 'sms' ? numbers.filter((n) => n.type === 'mobile') : numbers;
  const first = capable[0];
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
export function deliverySenders(
  numbers: readonly NumberRow[],
  channel: Channel,
  destinationCountry: string,
  chosen: string,
): NumberRow[] {
  const primary = numbers.find((n) => n.number === chosen);
  if (!primary) return [];
  if (primary.carrier_id === null) return [primary];
  const capable = numbers.filter(
    (n) =>
      n.carrier_id !== null &&
      n.carrier_id !== primary.carrier_id &&
      (channel === 'voice' || n.type === 'mobile'),
  );
  const ordered = [
    ...capable.filter((n) => n.country === destinationCountry),
    ...capable.filter((n) => n.country !== destinationCountry),
  ];
  const seen = new Set([primary.carrier_id]);
  const others = ordered.filter((n) => !seen.has(n.carrier_id as string) && seen.add(n.carrier_id as string));
  return [primary, ...others];
}
