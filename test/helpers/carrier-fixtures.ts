// Credentials for carrier tests: well-formed, not real.
import { generateKeyPairSync } from 'node:crypto';

export const TWILIO = {
  accountSid: 'AC11111111111111111111111111111111',
  authToken: 'twilio-auth-token-d41d8cd98f00b204',
};

const ed25519 = generateKeyPairSync('ed25519');
export const TELNYX = {
  apiKey: 'KEY0123456789ABCDEF_telnyx-secret-key',
  connectionId: '1494404757140276705',
  messagingProfileId: '40017f8e-49bd-4f16-9e3d-ef103f916228',
  /** The raw 32-byte key, base64, as the Telnyx portal shows it. */
  publicKey: ed25519.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64'),
};
export const TELNYX_SIGNING_KEY = ed25519.privateKey;

const rsa = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});
export const VONAGE = {
  apiKey: 'abcd1234',
  apiSecret: 'vonage-api-secret-9f86d08',
  applicationId: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee',
  privateKey: rsa.privateKey,
  signatureSecret: 'vonage-signature-secret-2c26b46b',
};
export const VONAGE_PUBLIC_KEY = rsa.publicKey;

export const SMPP = { host: 'smsc.example.net', port: 2775, systemId: 'acme', password: 'smpp-pass-1' };

/** `carrier add` of a Twilio account with TWILIO's credentials, as CLI arguments (without --json). */
export const twilioArgs = (ws: string): string[] => [
  'carrier',
  'add',
  '--workspace',
  ws,
  '--type',
  'twilio',
  '--account-sid',
  TWILIO.accountSid,
  '--auth-token',
  TWILIO.authToken,
];
