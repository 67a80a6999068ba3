// The carrier-neutral delivery error codes of `delivery.error_code` (docs/api.md lists them).
// A carrier's own code, where there is one, is kept in `error_message`.
export const DELIVERY_ERROR_CODES = {
  destination_rejected:
    'The carrier refused the destination at hand-over (unknown, barred or invalid number).',
  delivery_failed: 'The carrier accepted the message or call, then reported that it did not reach the phone.',
  provider_error: 'The delivery provider failed or could not be reached.',
} as const;

export type DeliveryErrorCode = keyof typeof DELIVERY_ERROR_CODES;
