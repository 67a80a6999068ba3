// Standard Webhooks signing (standardwebhooks.com) with the reference library itself: `v1,` + base64 of
// HMAC-SHA256 over `id.timestamp.body` with the decoded `whsec_` secret. While a rotated-out secret still
// signs, the header carries both signatures (space-separated), so receivers holding either secret accept it.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function signatureHeaders(
  secrets: readonly string[],
  msgId: string,
  nowMs: number,
  body: string,
): Record<string, string> {
  const at = new Date(nowMs);
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(Math.floor(nowMs / 1000)),
    'webhook-signature': secrets.map((s) => new Webhook(s).sign(msgId, at, body)).join(' '),
  };
}
