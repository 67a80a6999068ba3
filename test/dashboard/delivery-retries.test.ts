// The verification detail page while durable delivery retries, and after it gives up: the timeline shows each
// failed attempt and when the next is due, and the "code never arrived" checklist says what is going on.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { findJob } from '../../src/delivery/jobs.js';
import { startTwilioFake, type TwilioFake } from '../fakes/twilio.js';
import type { Verification } from '../helpers/api-types.js';
import { type Client, createTestApp, json, type TestApp } from '../helpers/app.js';
import { TWILIO } from '../helpers/carrier-fixtures.js';
import { twilioWorkspace } from '../helpers/carrier-workspace.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';
import { type DashboardClient, signedIn } from '../helpers/dashboard.js';

describe('dashboard: a delivery being retried, then given up', () => {
  let t: TestApp;
  let clock: FakeClock;
  let twilio: TwilioFake;
  let api: Client;
  let browser: DashboardClient;

  before(async () => {
    clock = fakeClock();
    twilio = await startTwilioFake(TWILIO);
    t = await createTestApp({ clock, delivery: { random: () => 0 } });
    const ws = await twilioWorkspace(t.services, t.app, twilio.baseUrl);
    api = ws.api;
    browser = await signedIn(t.app, t.services, { workspaceIds: [ws.workspaceId] });
  });
  after(async () => {
    await t.close();
    await twilio.close();
  });

  const page = async (id: string) => {
    const res = await browser.get(`/dashboard/verifications/${id}`);
    assert.equal(res.statusCode, 200);
    return res.body;
  };

  test('retrying: each failed attempt on the timeline, the next one due, and "not handed over yet"', async () => {
    twilio.reply({ kind: 'server_error', status: 503 });
    const v = json<Verification>(await api.send({ phone: '+61412345678', channel: 'sms', ttl_seconds: 60 }));
    const body = await page(v.id);
    assert.match(
      body,
      /Hand-over attempt 1 to the twilio provider failed \(the twilio provider failed to take/,
    );
    assert.match(body, /the next\s+attempt is due at <time datetime="2026-11-21T09:30:00.500Z">/);
    assert.match(
      body,
      /Not handed over yet: the carrier failed transiently and the hand-over is being retried/,
    );

    // Every later attempt fails too, until the next would land past the code's 60 seconds.
    twilio.reply(...Array.from({ length: 7 }, () => ({ kind: 'server_error', status: 503 }) as const));
    for (let job = await findJob(t.store.db, v.id); job; job = await findJob(t.store.db, v.id)) {
      clock.set(job.next_attempt_at);
      await t.services.dispatcher.runDue();
    }
    const after = await page(v.id);
    assert.match(after, /Gave up after 8 failed hand-over attempts, before the code expired/);
    assert.match(after, /Nothing was sent: the carrier could not be reached \(8 hand-over attempts/);
    assert.doesNotMatch(after, /the carrier refused the number at hand-over/);
  });
});
