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
