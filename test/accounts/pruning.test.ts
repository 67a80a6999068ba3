// Issue 11 item 4: nothing of the dashboard's sign-in is kept forever. The serving process's sweeper deletes
// expired sessions and the sign-in counts of ended windows, and keeps live sessions and the current window's
// counts (they still refuse sign-ins).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { SESSION_TTL_MS } from '../../src/accounts/service.js';
import { SIGNIN_WINDOW_MS } from '../../src/accounts/signin-limit.js';
import { OPERATOR } from '../../src/audit/actor.js';
import { startSweeper } from '../../src/sweeper.js';
import { createTestApp, seedWorkspace, type TestApp } from '../helpers/app.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';
import { PASSWORD } from '../helpers/dashboard.js';
import { eventually } from '../helpers/eventually.js';

/** A logger that keeps what the sweeper reports at info. */
function recordingLog(lines: unknown[]): FastifyBaseLogger {
  const keep = (o: unknown) => {
    lines.push(o);
  };
  const noop = () => {};
  return { info: keep, warn: keep, error: keep, debug: noop, trace: noop, fatal: keep } as never;
}

describe('the sweeper prunes expired sessions and ended sign-in windows', () => {
  let t: TestApp;
  let clock: FakeClock;
  const email = 'ops@example.com';

  before(async () => {
    clock = fakeClock(Date.parse('2026-11-21T10:01:00.000Z'));
    t = await createTestApp({ clock });
    const { workspaceId } = await seedWorkspace(t.services);
    await t.services.accounts.createAccount(
      { email, password: PASSWORD, workspaceIds: [workspaceId] },
      OPERATOR,
    );
  });
  after(() => t.close());

  const sessions = () => t.store.db.selectFrom('sessions').select('token_hash').execute();
  const counts = () => t.store.db.selectFrom('signin_throttle').selectAll().orderBy('window_start').execute();
  const failOnce = () =>
    assert.rejects(t.services.accounts.signIn({ email, password: 'wrong password', address: '192.0.2.1' }), {
      code: 'invalid_credentials',
    });

  test('old rows go, live ones stay', async () => {
    const old = await t.services.accounts.signIn({ email, password: PASSWORD, address: '192.0.2.1' });
    await failOnce();
    clock.advance(SESSION_TTL_MS + SIGNIN_WINDOW_MS);
    const live = await t.services.accounts.signIn({ email, password: PASSWORD, address: '192.0.2.1' });
    await failOnce();
    assert.equal((await sessions()).length, 2);
    assert.equal((await counts()).length, 4, 'e-mail and address counts in two windows');
    const currentWindow = Math.max(...(await counts()).map((r) => Number(r.window_start)));

    const lines: unknown[] = [];
    const stop = startSweeper(t.services, 10, recordingLog(lines));
    try {
      await eventually(
        'the sweeper pruned',
        async () => (await sessions()).length === 1 && (await counts()).length === 2,
      );
    } finally {
      await stop();
    }
    assert.equal(await t.services.accounts.resolveSession(old.token), undefined);
    assert.equal((await t.services.accounts.resolveSession(live.token))?.user.email, email);
    assert.deepEqual((await counts()).map((r) => [r.key, Number(r.window_start), Number(r.count)]).sort(), [
      ['address:192.0.2.1', currentWindow, 1],
      [`email:${email}`, currentWindow, 1],
    ]);
    const report = lines.find((l) => (l as { pruned?: unknown }).pruned) as {
      pruned: { sessions: number; signinWindows: number };
    };
    assert.equal(report.pruned.sessions, 1);
    assert.equal(report.pruned.signinWindows, 2);
  });
});
