// Brand names are spoken and written in every message: printable, one line, and never a link (anti-phishing).
import LinkifyIt from 'linkify-it';
import { invalidField } from '../errors.js';

export const BRAND_NAME_MAX = 60;

const linkify = new LinkifyIt();
// Control, format and separator characters other than the plain space: no line breaks, no invisible tricks.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|[^\S ]/u;
// linkify-it knows only a few generic TLDs (com, net, org, …) besides the two-letter country codes, so newer
// ones (acme.app, acme.xyz, acme.online) pass it. A dot between a letter or digit and three or more letters is
// domain-shaped: rejected too.
const DOMAIN_SHAPED = /[\p{L}\p{N}]\.\p{L}{3,}/u;

export function validateBrandName(value: string, field = 'brand_name'): string {
  if (value.trim().length === 0) throw invalidField(field, 'must not be empty');
  if ([...value].length > BRAND_NAME_MAX)
    throw invalidField(field, `must be at most ${BRAND_NAME_MAX} characters`);
  if (UNPRINTABLE.test(value)) throw invalidField(field, 'must be printable text on one line');
  if (linkify.test(value) || DOMAIN_SHAPED.test(value) || /[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    throw invalidField(field, 'must not contain a URL, domain or e-mail address');
  }
  return value.trim();
}
