// Brand names are spoken and written in every message: printable, one line, and never a link (anti-phishing).
import { isIP } from 'node:net';
import LinkifyIt from 'linkify-it';
import { invalidField } from '../errors.js';

export const BRAND_NAME_MAX = 60;

// fuzzyIP: bare IPv4 addresses (8.8.8.8, 10.0.0.1:8080) are links too.
const linkify = new LinkifyIt().set({ fuzzyIP: true });
// Control, format and separator characters other than the plain space: no line breaks, no invisible tricks
// (a zero-width joiner or soft hyphen inside a domain is refused here).
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|[^\S ]/u;
// The full stops that IDNA (UTS #46) reads as the dot between domain labels: ideographic, full-width and
// half-width. A phone's link detector may turn acme。com into a link to acme.com.
const LABEL_DOTS = /[\u3002\uFF0E\uFF61]/g;
// linkify-it knows only a few generic TLDs (com, net, org, …) besides the two-letter country codes, so newer
// ones (acme.app, acme.xyz, acme.online) pass it. A dot between a letter or digit and three or more letters
// (combining marks included) is domain-shaped, as is one before two or more non-ASCII letters (IDN country
// codes such as .中国 or .рф). Two ASCII letters are left to linkify-it, which knows the country codes, so
// initials (E.ON, J.P. Morgan) pass.
const DOMAIN_SHAPED = /[\p{L}\p{N}]\p{M}*\.(?:\p{L}[\p{L}\p{M}]{2,}|(?:(?![\0-\x7F])\p{L}\p{M}*){2,})/u;
// A dotted quad anywhere, even run into a word (Acme8.8.8.8); linkify-it needs it to stand alone.
const IPV4 = /(?<!\d)\d{1,3}(?:\.\d{1,3}){3}(?!\d)/;
const SCHEME = /[a-z][a-z0-9+.-]*:\/\//i;

/** The text as a reader or a phone's link detector may take it: compatibility forms folded, label dots made ".". */
function asLinkDetectorsSee(value: string): string {
  // NFKC folds full-width letters and digits (ａｃｍｅ, ８), ․ and ﹒ into ".", ＠ into "@", ：／ into ":/".
  return value.normalize('NFKC').replace(LABEL_DOTS, '.');
}

/** An IPv6 (or IPv4) address as a word of its own, bracketed or with a port: [::1]:8080, 2001:db8::1. */
function hasIpWord(text: string): boolean {
  return text.split(/[\s,;]+/).some((word) => {
    const bare = word.replace(/^\[(.*)\](?::\d+)?$/, '$1').replace(/[.:]$/, '');
    return isIP(bare) !== 0;
  });
}

function isLinkLike(value: string): boolean {
  const text = asLinkDetectorsSee(value);
  return (
    linkify.test(text) || DOMAIN_SHAPED.test(text) || SCHEME.test(text) || IPV4.test(text) || hasIpWord(text)
  );
}

/** The name as given (trimmed), if it may be a brand; it is checked as link detectors would read it. */
export function validateBrandName(value: string, field = 'brand_name'): string {
  if (value.trim().length === 0) throw invalidField(field, 'must not be empty');
  if ([...value].length > BRAND_NAME_MAX)
    throw invalidField(field, `must be at most ${BRAND_NAME_MAX} characters`);
  if (UNPRINTABLE.test(value)) throw invalidField(field, 'must be printable text on one line');
  if (isLinkLike(value)) {
    throw invalidField(field, 'must not contain a URL, domain, IP address or e-mail address');
  }
  return value.trim();
}
