// The two JSON Web Tokens Vonage uses, signed and checked with node:crypto (no SDK, no JWT library):
// - outbound: RS256, signed with the Vonage application's private key, claims application_id, iat, jti, exp
//   (developer.vonage.com "Authentication" > JSON Web Tokens; the claims match @vonage/jwt tokenGenerate).
// - inbound webhooks: HS256 with the account's signature secret (see webhook.ts).
import { createHmac, createPrivateKey, randomUUID, sign, timingSafeEqual } from 'node:crypto';

const base64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/** Lifetime of the token we send: long enough for one request, short enough to be worthless if leaked. */
const TOKEN_TTL_SECONDS = 300;

export function signApplicationJwt(
  credentials: { applicationId: string; privateKey: string },
  nowMs: number = Date.now(),
): string {
  const iat = Math.floor(nowMs / 1000);
  const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const claims = base64url(
    JSON.stringify({
      application_id: credentials.applicationId,
      iat,
      jti: randomUUID(),
      exp: iat + TOKEN_TTL_SECONDS,
    }),
  );
  const signature = sign(
    'sha256',
    Buffer.from(`${header}.${claims}`),
    createPrivateKey(credentials.privateKey),
  );
  return `${header}.${claims}.${base64url(signature)}`;
}

/**
 * The claims of an HS256 token whose signature matches `secret` (compared in constant time), or undefined for
 * anything else: malformed, another algorithm (no "none", no RS256 key confusion), or a wrong signature.
 */
export function verifyHs256Jwt(token: string, secret: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [header, claims, signature] = parts as [string, string, string];
  const parsedHeader = parseSegment(header);
  if (parsedHeader?.alg !== 'HS256') return undefined;
  const expected = createHmac('sha256', secret).update(`${header}.${claims}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return parseSegment(claims);
}

function parseSegment(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
