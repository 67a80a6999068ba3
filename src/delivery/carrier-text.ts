// The one rule for words that come from a carrier (or from whatever answers at its address) and end up in
// error_message: the API's delivery.error_message, the timeline and the dashboard. Text only, on one line,
// without control or invisible formatting characters, and bounded, whatever the carrier sent.

/** At most this many characters (UTF-16 code units) of a carrier's words reach error_message. */
export const MAX_CARRIER_TEXT = 200;

/** Controls (C0 with NUL, DEL, C1), invisible formatting (bidi overrides, zero-width), line separators, lone surrogates. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]+/gu;
const SPACES = /\s+/g;

/**
 * A carrier's string or number as error_message may carry it: unprintable characters become spaces, runs of
 * spaces one, and text beyond `max` characters is cut (at a character boundary) and ends in "…". Anything but a
 * string or a finite number is ''.
 */
export function carrierText(value: unknown, max = MAX_CARRIER_TEXT): string {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== 'string') return '';
  // Only the head is looked at, so a huge answer costs no more than a short one.
  const window = Math.max(64, max * 4);
  const head = text.length > window ? text.slice(0, window) : text;
  const clean = head.replace(UNPRINTABLE, ' ').replace(SPACES, ' ').trim();
  if (head === text && clean.length <= max) return clean;
  return `${within(clean, max - 1)}…`;
}

/** The first `max` code units, never half of a surrogate pair (the text has no lone surrogates left). */
function within(text: string, max: number): string {
  let end = Math.min(Math.max(0, max), text.length);
  const last = text.charCodeAt(end - 1);
  if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end).trimEnd();
}
