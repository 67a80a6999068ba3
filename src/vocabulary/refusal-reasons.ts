// Why a send was refused before any verification was made: the pumping guard's rules (a range's velocity, a range's
// or a country's low conversion, a number type no code goes to) and the number's failed-guess ceiling.
export const REFUSAL_REASONS = ['range_velocity', 'low_conversion', 'number_type', 'guess_ceiling'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];
