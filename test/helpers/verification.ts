// Helpers for the /v1/otp tests. Each request helper asserts the success status first (with the body as the
// message), then returns the parsed body.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { OPERATOR } from '../../src/audit/actor.js';
import type { Services } from '../../src/services.js';
import type { Check, Problem, Verification } from './api-types.js';
import { type Client, client, codeFor, createTestApp, json, seedWorkspace, type TestApp } from './app.js';
import { type FakeClock, fakeClock } from './clock.js';

/** A test app on a fake clock (no workspace yet), with createTestApp's other options. */
export async function clockedApp(
  options: Omit<Parameters<typeof createTestApp>[0], 'clock'> = {},
): Promise<{ t: TestApp; clock: FakeClock }> {
  const clock = fakeClock();
  return { t: await createTestApp({ ...options, clock }), clock };
}

/** A test app on a fake clock, with one workspace ("Acme", one AU mobile) and a client for its otp key. */
export async function acmeApp(): Promise<{ t: TestApp; clock: FakeClock; api: Client }> {
  const { t, clock } = await clockedApp();
  const api = client(t.app, (await seedWorkspace(t.services, { name: 'Acme' })).key);
  return { t, clock, api };
}

/**
 * A workspace seeded on `t` (seedWorkspace's options) with a client for its live otp key and one for a test-mode key
 * (`testKey`, as created, for tests that read it).
 */
export async function liveAndTestClients(
  t: TestApp,
  options: Parameters<typeof seedWorkspace>[1],
): Promise<{ workspaceId: string; live: Client; test: Client; testKey: string }> {
  const seeded = await seedWorkspace(t.services, options);
  const { key } = await t.services.keys.createKey(
    { workspaceId: seeded.workspaceId, name: 'suite', mode: 'test' },
    OPERATOR,
  );
  return {
    workspaceId: seeded.workspaceId,
    live: client(t.app, seeded.key),
    test: client(t.app, key),
    testKey: key,
  };
}

/**
 * acmeApp for the tests of the calling describe block: made before them, closed after. Its fields are set once
 * `before` has run (read them inside the tests).
 */
export function acmeSuite(): { t: TestApp; clock: FakeClock; api: Client } {
  const suite = {} as { t: TestApp; clock: FakeClock; api: Client };
  before(async () => {
    Object.assign(suite, await acmeApp());
  });
  after(() => suite.t.close());
  return suite;
}

/**
 * Two apps on one database and one clock (two processes of one deployment: the codes live as long for both), with
 * one workspace ("Acme") and a client of its otp key on each, for the tests of the calling describe block: made
 * before them, closed after. Its fields are set once `before` has run (read them inside the tests).
 */
export function twoProcessSuite(): {
  one: TestApp;
  two: TestApp;
  apis: [Client, Client];
  workspaceId: string;
} {
  const suite = {} as { one: TestApp; two: TestApp; apis: [Client, Client]; workspaceId: string };
  before(async () => {
    const { t: one, clock } = await clockedApp();
    const two = await createTestApp({ dir: one.dir, clock });
    const seeded = await seedWorkspace(one.services, { name: 'Acme' });
    const apis: [Client, Client] = [client(one.app, seeded.key), client(two.app, seeded.key)];
    Object.assign(suite, { one, two, apis, workspaceId: seeded.workspaceId });
  });
  after(async () => {
    await suite.two?.close();
    await suite.one?.close();
  });
  return suite;
}

/** Every reply of a burst has `status`; the message is the first other reply's body. */
export function assertEveryStatus(replies: readonly LightMyRequestResponse[], status: number): void {
  assert.deepEqual(
    [...new Set(replies.map((r) => r.statusCode))],
    [status],
    replies.find((r) => r.statusCode !== status)?.body,
  );
}

/**
 * The check answer for a verification that takes no more codes (api-decisions "Final wrong attempt" and "Check
 * against a terminal status other than verified"): its status, verified false, attempts, attempts_remaining 0.
 */
export function refusedCheck(id: string, status: Check['status'], attempts: number): Check {
  return { id, status, verified: false, attempts, attempts_remaining: 0 };
}

/** POST /v1/otp/send answered 201: the new verification. */
export async function sendOk(api: Client, body: Record<string, unknown>): Promise<Verification> {
  const res = await api.send(body);
  assert.equal(res.statusCode, 201, res.body);
  return json<Verification>(res);
}

/** A code that is certainly wrong: same length, every digit changed. */
export function wrongCode(code: string): string {
  return [...code].map((d) => String((Number(d) + 1) % 10)).join('');
}

/** A problem with this status and code; with `field`, its errors[] name that field. */
export function assertProblem(
  res: LightMyRequestResponse,
  status: number,
  code: string,
  field?: string,
  label = '',
): Problem {
  assert.equal(res.statusCode, status, `${label} ${res.body}`);
  const problem = json<Problem>(res);
  assert.equal(problem.code, code, res.body);
  if (field !== undefined) {
    assert.ok(
      problem.errors?.some((e) => e.field === field),
      `expected errors[] to name ${field}: ${res.body}`,
    );
  }
  return problem;
}

/**
 * send / fresh / check / read / cancel for the client and services `current` returns at the time of the call
 * (so the helpers can be made before a `before` hook has built the app).
 */
export function verificationApi(current: () => { api: Client; services: Services }) {
  /** A send to `phone` (and the other fields of `body`) that answered 201. */
  const send = (phone: string, body: Record<string, unknown> = {}) =>
    sendOk(current().api, { phone, ...body });

  return {
    send,

    /** A send that answered 201, with the code delivered for it ('' when it was undelivered). */
    async fresh(phone: string, body: Record<string, unknown> = {}) {
      const v = await send(phone, body);
      return { v, phone, code: v.status === 'undelivered' ? '' : await codeFor(current().services, phone) };
    },

    /** POST /v1/otp/check answered 200. */
    async check(body: Record<string, unknown>): Promise<Check> {
      const res = await current().api.check(body);
      assert.equal(res.statusCode, 200, res.body);
      return json<Check>(res);
    },

    /** GET /v1/otp/{id} answered 200. */
    async read(id: string): Promise<Verification> {
      const res = await current().api.get(id);
      assert.equal(res.statusCode, 200, res.body);
      return json<Verification>(res);
    },

    /** POST /v1/otp/{id}/cancel answered 200. */
    async cancel(id: string): Promise<Verification> {
      const res = await current().api.cancel(id);
      assert.equal(res.statusCode, 200, res.body);
      return json<Verification>(res);
    },
  };
}
