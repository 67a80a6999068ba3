// The Twilio-compatible API driven by the real `twilio` SDK: a test app on a real port (the SDK speaks HTTP), and
// clients whose Verify base URL points at its /twilio, exactly as docs/twilio-compatibility.md tells a customer.
import assert from 'node:assert/strict';
import twilio from 'twilio';
import type { Clock } from '../../src/clock.js';
import { createTestApp, seedWorkspace, type TestApp } from './app.js';

/** Any account SID: the SDK insists on the AC shape; the facade reads only the password. */
export const ANY_ACCOUNT_SID = `AC${'0123456789abcdef'.repeat(2)}`;

export interface TwilioTestApp extends TestApp {
  /** http://127.0.0.1:PORT */
  url: string;
}

export async function startTwilioApp(options: { clock?: Clock } = {}): Promise<TwilioTestApp> {
  const t = await createTestApp({ clock: options.clock });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  assert.ok(address !== null && typeof address === 'object');
  return { ...t, url: `http://127.0.0.1:${address.port}` };
}

/** A Twilio SDK client whose Verify domain is this service: the one-line switch. */
export function twilioClient(url: string, key: string, username = ANY_ACCOUNT_SID): twilio.Twilio {
  const client = twilio(username, key);
  client.verify.baseUrl = `${url}/twilio`;
  return client;
}

/** The VA… service of a seeded workspace, through the SDK. */
export async function seededService(t: TwilioTestApp, options: Parameters<typeof seedWorkspace>[1] = {}) {
  const ws = await seedWorkspace(t.services, options);
  const client = twilioClient(t.url, ws.key);
  const service = await client.verify.v2.services(ws.workspaceId).fetch();
  return { ...ws, client, serviceSid: service.sid, verify: client.verify.v2.services(service.sid) };
}

/** What the SDK's RestException carries: Twilio's error body, and the HTTP status. */
export interface RestException extends Error {
  status: number;
  code?: number;
  moreInfo?: string;
}

/** The SDK's RestException of a call that must fail, with its HTTP status and Twilio code. */
export async function restError(call: Promise<unknown>): Promise<RestException> {
  try {
    await call;
  } catch (err) {
    assert.equal((err as Error).constructor.name, 'RestException', String(err));
    return err as RestException;
  }
  assert.fail('the call succeeded; a RestException was expected');
}

export async function assertRestError(
  call: Promise<unknown>,
  status: number,
  code: number,
): Promise<RestException> {
  const err = await restError(call);
  assert.deepEqual({ status: err.status, code: err.code }, { status, code }, err.message);
  assert.equal(err.moreInfo, `https://www.twilio.com/docs/errors/${code}`);
  return err;
}

/** The raw JSON body of the client's last response, as it came over the wire (before the SDK's camelCase). */
export function lastBody(client: twilio.Twilio): Record<string, unknown> {
  const body = client.httpClient?.lastResponse?.body;
  return (typeof body === 'string' ? JSON.parse(body) : body) as Record<string, unknown>;
}
