// Where a webhook may go (docs/webhooks.md "Safe destinations"). A URL is checked when an endpoint is added
// (shape, scheme, no credentials, no literal private address) and again at every delivery against the address
// its host resolves to then, which is the address the request connects to (no DNS rebinding in between).
import { BlockList, isIP } from 'node:net';
import { invalidField } from '../errors.js';

export const MAX_URL_LENGTH = 2048;

/**
 * Addresses no webhook reaches unless the operator allows private destinations (WEBHOOK_ALLOW_PRIVATE=true). Two
 * lists: a BlockList checks an IPv4 address against IPv6 rules as its IPv4-mapped form, so ::ffff:0:0/96 in one
 * list with IPv4 addresses would block them all.
 */
const BLOCKED_V4 = new BlockList();
const BLOCKED_V6 = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // RFC 1918
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12], // RFC 1918
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // RFC 1918
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  BLOCKED_V4.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::ffff:0:0', 96], // IPv4-mapped: the IPv4 address behind it would escape the list above
  ['64:ff9b::', 96], // NAT64: likewise
  ['fc00::', 7], // unique-local (incl. fd00:ec2::254, a cloud's metadata)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  BLOCKED_V6.addSubnet(net, bits, 'ipv6');
}

/** Whether an IP address is one a webhook must not reach (loopback, private, link-local, metadata, …). */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return family === 4 ? BLOCKED_V4.check(address, 'ipv4') : BLOCKED_V6.check(address, 'ipv6');
}

/** A URL's host as an IP literal (brackets of IPv6 removed), or undefined for a name. */
export function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) ? bare : undefined;
}

export interface DestinationRules {
  /** NODE_ENV=production: only https:// URLs. */
  production: boolean;
  /** WEBHOOK_ALLOW_PRIVATE=true: loopback and private destinations allowed (local development, tests). */
  allowPrivate: boolean;
}

/** An endpoint URL as given, checked; throws a 400 naming `field` with what is wrong. */
export function validateWebhookUrl(raw: unknown, rules: DestinationRules, field = 'url'): string {
  if (typeof raw !== 'string' || raw.length === 0) throw invalidField(field, 'is required');
  if (raw.length > MAX_URL_LENGTH) throw invalidField(field, `must be at most ${MAX_URL_LENGTH} characters`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters (NUL above all) are refused
  if (/[\u0000-\u0020\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/.test(raw)) {
    throw invalidField(field, 'must not hold spaces, control or invisible formatting characters');
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidField(field, 'must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalidField(field, 'must be an https:// URL');
  }
  if (rules.production && url.protocol !== 'https:') {
    throw invalidField(field, 'must be an https:// URL (NODE_ENV=production)');
  }
  if (url.username !== '' || url.password !== '') {
    throw invalidField(field, 'must not hold credentials (user:password@)');
  }
  if (url.hostname === '') throw invalidField(field, 'must name a host');
  if (url.hash !== '') throw invalidField(field, 'must not hold a #fragment');
  if (!rules.allowPrivate) {
    const literal = literalAddress(url.hostname);
    const local = url.hostname === 'localhost' || url.hostname.endsWith('.localhost');
    if (local || (literal !== undefined && isPrivateAddress(literal))) {
      throw invalidField(
        field,
        'must not point to a loopback, private, link-local or metadata address (WEBHOOK_ALLOW_PRIVATE=true allows it for local development)',
      );
    }
  }
  return url.href;
}
