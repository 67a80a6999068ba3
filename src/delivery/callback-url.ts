// The status callback URL of an account: where its carrier's signed status callbacks are answered
// (POST /webhooks/<type>/:accountId). A carrier without a webhook (its reports come some other way) has none.
import { isIP } from 'node:net';
import { type AnyCarrier, findCarrier } from './carriers/descriptor.js';

/** Where the carrier posts status callbacks for one account (the webhook routes answer there). */
export function statusCallbackUrl(publicUrl: string, account: { id: string; type: string }): string {
  return `${publicUrl.replace(/\/+$/, '')}/webhooks/${account.type}/${account.id}`;
}

/** The callback URL an operator sees for an account (CLI list, dashboard); null for a carrier without one. */
export function callbackUrlOf(
  carriers: readonly AnyCarrier[],
  publicUrl: string,
  account: { id: string; type: string },
): string | null {
  return findCarrier(carriers, account.type)?.webhook ? statusCallbackUrl(publicUrl, account) : null;
}

/**
 * Why a carrier on the internet could not reach this callback URL, or undefined when it may: the host is this
 * machine (localhost, 127.0.0.0/8, ::1, 0.0.0.0) or a private network's (10/8, 172.16/12, 192.168/16, fc00::/7,
 * *.local). Carriers then never report delivery, and codes stay "handed over" until they expire.
 */
export function unreachableByCarriers(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return 'it is not a URL';
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return `${host} is this machine`;
  if (host.endsWith('.local') || host.endsWith('.internal')) return `${host} is a local network name`;
  if (isIP(host) === 0) return undefined;
  if (/^(127\.|0\.0\.0\.0$)/.test(host) || host === '::1' || host === '::') return `${host} is this machine`;
  if (/^(10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|169\.254\.)/.test(host) || /^f[cd]|^fe80:/.test(host)) {
    return `${host} is a private address`;
  }
  return undefined;
}
