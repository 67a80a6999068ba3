// A carrier that exists only in tests, in one file: "Pigeon Post". Its descriptor is all the service is told
// about it (no other file names it): three credentials, an adapter that posts each message as JSON to the
// account's base URL (a recording server), and status callbacks signed with HMAC-SHA256 of the raw body in
// X-Pigeon-Signature. Registered through createServices({ carrierTypes }), it proves a carrier is one folder.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CarrierDescriptor } from '../../src/delivery/carriers/descriptor.js';
import {
  asObject,
  carrierErrorMessage,
  isTransientStatus,
  postToCarrier,
  transientReply,
} from '../../src/delivery/carriers/http.js';
import type { StatusReport } from '../../src/delivery/provider.js';

export interface PigeonCredentials {
  apiToken: string;
  loftId: string;
  signingSecret: string;
}

/** The signature Pigeon Post puts in X-Pigeon-Signature: hex HMAC-SHA256 of the raw body. */
export function pigeonSignature(signingSecret: string, rawBody: string): string {
  return createHmac('sha256', signingSecret).update(rawBody, 'utf8').digest('hex');
}

const STATES: Record<string, StatusReport['state']> = {
  flying: 'accepted',
  landed: 'delivered',
  lost: 'failed',
};

export const pigeon: CarrierDescriptor<PigeonCredentials> = {
  type: 'pigeon',
  label: 'Pigeon Post',
  fields: [
    {
      name: 'loftId',
      label: 'Loft ID',
      kind: 'text',
      required: true,
      hint: 'The loft your pigeons fly from.',
      cli: { option: 'loft-id', value: 'ID' },
      check: (value) => (/^loft-\w+$/.test(value) ? undefined : 'must start with loft-'),
    },
    {
      name: 'apiToken',
      label: 'API token',
      kind: 'secret',
      required: true,
      cli: { option: 'api-token', value: 'TOKEN' },
    },
    {
      name: 'signingSecret',
      label: 'Signing secret',
      kind: 'secret',
      required: true,
      cli: { option: 'signing-secret', value: 'SECRET' },
    },
  ],
  baseUrl: true,
  channels: ['sms', 'voice'],
  callbackHint: 'Give it to your loft keeper.',
  createAdapter: (account, context) => ({
    name: 'pigeon',
    async send(message) {
      const reply = await postToCarrier({
        url: `${account.baseUrl ?? 'https://pigeon.invalid'}/lofts/${account.credentials.loftId}/send`,
        headers: {
          authorization: `Bearer ${account.credentials.apiToken}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          to: message.to,
          from: message.from,
          channel: message.channel,
          ...(message.channel === 'sms' ? { text: message.text } : { script: message.voice }),
          callback: context.statusCallbackUrl,
        }),
        timeoutMs: context.timeoutMs,
        noAnswer: (why) => `Pigeon Post ${why.detail}`,
      });
      const id = reply.body?.id;
      if (reply.ok && typeof id === 'string') return { ok: true, providerId: id };
      // Pigeon Post documents its errors as { error: { code, message } }; nothing else of a body is copied.
      const errorMessage = carrierErrorMessage('Pigeon Post', reply, (body) => {
        const error = asObject(body.error);
        return error && { code: error.code, words: [error.message] };
      });
      if (isTransientStatus(reply.status)) throw transientReply(reply, errorMessage);
      return { ok: false, providerId: null, errorCode: 'provider_error', errorMessage };
    },
  }),
  webhook: {
    verify(account, request) {
      const given = request.headers['x-pigeon-signature'];
      if (typeof given !== 'string') return false;
      const expected = Buffer.from(pigeonSignature(account.credentials.signingSecret, request.rawBody));
      const actual = Buffer.from(given);
      return expected.length === actual.length && timingSafeEqual(expected, actual);
    },
    parse(rawBody) {
      let body: { id?: unknown; state?: unknown; reason?: unknown };
      try {
        body = JSON.parse(rawBody) as typeof body;
      } catch {
        return undefined;
      }
      const state = typeof body.state === 'string' ? STATES[body.state] : undefined;
      if (typeof body.id !== 'string' || !state) return undefined;
      return state === 'failed'
        ? { providerId: body.id, state, carrierCode: 'lost', carrierMessage: String(body.reason ?? 'lost') }
        : { providerId: body.id, state };
    },
  },
};
