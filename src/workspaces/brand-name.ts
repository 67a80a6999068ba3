// Brand names are spoken and written in every message: printable, one line, and never a link (anti-phishing).
import LinkifyIt from 'linkify-it';
import { invalidField } from '../errors.js';

export const BRAND_NAME_MAX = 60;

const linkify = new LinkifyIt();
// Control, format and separator characters other than the plain space: no line breaks, no invisible tricks.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|[^\S ]/u;

export function validateBrandName(value: string, field = 'brand_name'): string {
  if (value.trim().length === 0) throw invalidField(field, 'must not be empty');
  if ([...value].length > BRAND_NAME_MAX)
    throw invalidField(field, `must be at most ${BRAND_NAME_MAX} characters`);
  if (UNPRINTABLE.test(value)) throw invalidField(field, 'must be printable text on one line');
  if (linkify.test(value) || /[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    throw invalidField(field, 'must not contain a URL, domain or e-mail address');
  }
  return value.trim();
}
