// Dashboard issue item 3: workspace settings. The name (default brand), the numbers with their types and what
// each can send (the plain SMS warning where there is no mobile number), allowed destination countries and the
// per-workspace limits, each change reflected in what /v1 does; and item 8: CSRF, only the session's workspace,
// escaped output.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { listOutbox } from '../../src/delivery/outbox.js';
import {
  client,
  createTestApp,
  json,
  type SeededWorkspace,
  seedWorkspace,
  type TestApp,
} from '../helpers/app.js';
import { fakeClock } from '../helpers/clock.js';
import { signedIn } from '../helpers/dashboard.js';

const PAGE = '/dashboard/settings';
const SMS_WARNING = 'SMS needs a mobile number: this workspace has none, so only voice codes can be sent';

describe('dashboard: workspace settings', () => {
  const clock = fakeClock();
  let t: TestApp;
  let other: SeededWorkspace;

  before(async () => {
    t = await createTestApp({ clock });
    other = await seedWorkspace(t.services, { name: 'Other Co', numbers: [{ number: '+64211234567' }] });
  });
  after(() => t.close());

  /** A workspace of its own (so tests do not disturb each other) and a browser signed in to it. */
  async function fresh(numbers?: { number: string; type?: string }[]) {
    const ws = await seedWorkspace(t.services, { name: 'Acme', numbers });
    const browser = await signedIn(t.app, t.services, { workspaceIds: [ws.workspaceId] });
    return { ws, browser, api: client(t.app, ws.key) };
  }
  const settingsOf = (id: string) => t.services.workspaces.getSettings(id);

  test('the page shows the name, numbers with what each can do, countries and limits', async () => {
    const { browser } = await fresh([{ number: '+61491570156' }, { number: '+61255501234' }]);
    const res = await browser.get(PAGE);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<input name="name" required="" maxlength="60" value="Acme"/);
    const rowOf = (number: string) =>
      new RegExp(`${number.replace('+', '\\+')}</code>((?:(?!</tr>)[\\s\\S])*)</tr>`).exec(res.body)?.[1] ??
      '';
    const mobile = rowOf('+61491570156');
    assert.match(mobile, /Mobile/);
    assert.match(mobile, /Voice: <\/span>yes[\s\S]*SMS: <\/span>yes/);
    const landline = rowOf('+61255501234');
    assert.match(landline, /Landline/);
    assert.match(landline, /Voice: <\/span>yes[\s\S]*SMS: <\/span>no/);
    for (const c of ['AU', 'US', 'CA', 'GB', 'NZ']) {
      assert.match(res.body, new RegExp(`name="countries" value="${c}" checked`));
    }
    assert.match(res.body, /name="send_limit" required="" min="1" max="100" step="1" value="5"/);
    assert.match(
      res.body,
      /name="send_window_seconds" required="" min="60" max="86400" step="1" value="600"/,
    );
    assert.match(
      res.body,
      /name="request_limit_per_minute" required="" min="10" max="1000000" step="1" value="6000"/,
    );
    assert.match(res.body, /name="guess_limit" required="" min="1" max="1000" step="1" value="20"/);
    assert.match(
      res.body,
      /name="guess_window_seconds" required="" min="60" max="86400" step="1" value="3600"/,
    );
    assert.match(res.body, /Failed checks per number/);
    assert.ok(!res.body.includes(SMS_WARNING), 'a mobile number: no SMS warning');
  });

  test("another workspace's data never appears", async () => {
    const { browser } = await fresh();
    const res = await browser.get(PAGE);
    assert.doesNotMatch(res.body, /Other Co/);
    assert.doesNotMatch(res.body, /\+64211234567/);
  });

  test('the SMS warning follows the number types', async () => {
    const { browser, api } = await fresh([{ number: '+61255501234' }]);
    let page = await browser.get(PAGE);
    assert.ok(page.body.includes(SMS_WARNING), 'landline only: warned');
    // It says what /v1 does: SMS is refused, voice goes.
    assert.equal((await api.send({ phone: '+61491570001', channel: 'sms' })).statusCode, 409);
    assert.equal((await api.send({ phone: '+61491570001', channel: 'voice' })).statusCode, 201);

    await browser.post(`${PAGE}/numbers`, { number: '+61491570156', type: '' });
    page = await browser.get(PAGE);
    assert.ok(!page.body.includes(SMS_WARNING), 'a mobile number added: no warning');
    assert.equal((await api.send({ phone: '+61491570002', channel: 'sms' })).statusCode, 201);
  });

  test('with no number at all the page says nothing can be sent', async () => {
    const { browser } = await fresh([]);
    const page = await browser.get(PAGE);
    assert.match(page.body, /This workspace has no number, so nothing can be sent/);
    assert.ok(!page.body.includes(SMS_WARNING));
  });

  test('renaming changes the default brand; a name against the brand rules is refused with the reason', async () => {
    const { ws, browser, api } = await fresh();
    const res = await browser.post(`${PAGE}/name`, { name: 'Globex' });
    assert.equal(res.statusCode, 302);
    assert.equal(res.headers.location, `${PAGE}#name`);
    assert.match((await browser.get(PAGE)).body, /Workspace renamed to “Globex”/);
    assert.equal((await settingsOf(ws.workspaceId)).name, 'Globex');
    assert.equal((await api.send({ phone: '+61491570003', channel: 'sms' })).statusCode, 201);
    const [message] = await listOutbox(t.store.db, { to: '+61491570003', limit: 1 });
    assert.match(message?.body ?? '', /Globex/);

    const bad = await browser.post(`${PAGE}/name`, { name: 'globex.com' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /name: must not contain a URL, domain, IP address or e-mail address/);
    assert.match(bad.body, /value="globex.com"/, 'the typed value is shown again');
    assert.equal((await settingsOf(ws.workspaceId)).name, 'Globex');
  });

  test('adding numbers: detected types, and the US type rule with the service message', async () => {
    const { ws, browser } = await fresh();
    const nz = await browser.post(`${PAGE}/numbers`, { number: '+64211234568', type: '' });
    assert.equal(nz.statusCode, 302);
    assert.match((await browser.get(PAGE)).body, /Number \+64211234568 added \(Mobile\)/);

    const us = await browser.post(`${PAGE}/numbers`, { number: '+12015550123', type: '' });
    assert.equal(us.statusCode, 400);
    assert.match(us.body, /cannot be told from the number itself/);
    assert.match(us.body, /value="\+12015550123"/);
    const typed = await browser.post(`${PAGE}/numbers`, { number: '+12015550123', type: 'landline' });
    assert.equal(typed.statusCode, 302);

    const dup = await browser.post(`${PAGE}/numbers`, { number: '+64211234568', type: '' });
    assert.equal(dup.statusCode, 409);
    const numbers = await t.services.workspaces.listNumbers(ws.workspaceId);
    assert.deepEqual(
      numbers.map((n) => [n.number, n.type]),
      [
        ['+61491570156', 'mobile'],
        ['+64211234568', 'mobile'],
        ['+12015550123', 'landline'],
      ],
    );
  });

  test('removing a number asks for confirmation; another workspace’s number cannot be removed', async () => {
    const { ws, browser } = await fresh([{ number: '+61491570156' }, { number: '+61255501234' }]);
    const [, landline] = await t.services.workspaces.listNumbers(ws.workspaceId);
    assert.ok(landline);
    const page = await browser.get(PAGE);
    assert.match(
      page.body,
      new RegExp(`action="${PAGE}/numbers/${landline.id}/remove" class="inline-form" data-confirm="Remove`),
    );
    const res = await browser.post(`${PAGE}/numbers/${landline.id}/remove`, {});
    assert.equal(res.statusCode, 302);
    assert.match((await browser.get(PAGE)).body, /Number \+61255501234 removed/);
    assert.deepEqual(
      (await t.services.workspaces.listNumbers(ws.workspaceId)).map((n) => n.number),
      ['+61491570156'],
    );

    const [foreign] = await t.services.workspaces.listNumbers(other.workspaceId);
    assert.ok(foreign);
    const refused = await browser.post(`${PAGE}/numbers/${foreign.id}/remove`, {});
    assert.equal(refused.statusCode, 404);
    assert.equal((await t.services.workspaces.listNumbers(other.workspaceId)).length, 1);
  });

  test('narrowing the countries makes /v1/otp/send refuse the others; none at all is refused', async () => {
    const { ws, browser, api } = await fresh();
    const res = await browser.post(`${PAGE}/countries`, { countries: ['NZ', 'GB'] });
    assert.equal(res.statusCode, 302);
    assert.match((await browser.get(PAGE)).body, /Codes may now be sent to GB, NZ/);
    assert.deepEqual((await settingsOf(ws.workspaceId)).allowed_countries, ['GB', 'NZ']);

    const au = await api.send({ phone: '+61491570004', channel: 'sms' });
    assert.equal(au.statusCode, 400);
    assert.equal(json(au).code, 'unsupported_country');
    assert.equal((await api.send({ phone: '+64211234569', channel: 'sms' })).statusCode, 201);

    const page = await browser.get(PAGE);
    assert.match(page.body, /name="countries" value="NZ" checked/);
    assert.doesNotMatch(page.body, /name="countries" value="AU" checked/);

    const none = await browser.post(`${PAGE}/countries`, {});
    assert.equal(none.statusCode, 400);
    assert.match(none.body, /choose at least one country/);
    const bogus = await browser.post(`${PAGE}/countries`, { countries: ['FR'] });
    assert.equal(bogus.statusCode, 400);
    assert.deepEqual((await settingsOf(ws.workspaceId)).allowed_countries, ['GB', 'NZ']);
  });

  test('a send limit of 1 gives 429 on the second send; the request limit applies to the next minute', async () => {
    const { ws, browser, api } = await fresh();
    const limits = { send_limit: '1', send_window_seconds: '3600', request_limit_per_minute: '10' };
    const res = await browser.post(`${PAGE}/limits`, limits);
    assert.equal(res.statusCode, 302);
    assert.match((await browser.get(PAGE)).body, /Limits saved/);
    // The form had no guess-ceiling fields (a page from before them): those limits stay as they were.
    assert.deepEqual((await settingsOf(ws.workspaceId)).limits, {
      send_limit: 1,
      send_window_seconds: 3600,
      request_limit_per_minute: 10,
      guess_limit: 20,
      guess_window_seconds: 3600,
    });

    clock.advance(60_000); // a fresh request-counting minute
    assert.equal((await api.send({ phone: '+61491570005', channel: 'sms' })).statusCode, 201);
    const second = await api.send({ phone: '+61491570005', channel: 'sms' });
    assert.equal(second.statusCode, 429);
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) statuses.push((await api.ping()).statusCode);
    assert.deepEqual(
      statuses,
      [200, 200, 200, 200, 200, 200, 200, 200, 429],
      '10 requests a minute, then 429',
    );
  });

  test('limits out of range are refused with the range and change nothing', async () => {
    const { ws, browser } = await fresh();
    const cases = [
      [
        { send_limit: '0', send_window_seconds: '600', request_limit_per_minute: '6000' },
        /send_limit: .*1 to 100/,
      ],
      [{ send_limit: '5', send_window_seconds: '59', request_limit_per_minute: '6000' }, /60 to 86,400/],
      [
        { send_limit: '5', send_window_seconds: '600', request_limit_per_minute: '1000001' },
        /10 to 1,000,000/,
      ],
      [{ send_limit: '2.5', send_window_seconds: '600', request_limit_per_minute: '6000' }, /whole number/],
      [{ send_limit: '', send_window_seconds: '600', request_limit_per_minute: '6000' }, /send_limit/],
    ] as const;
    for (const [form, message] of cases) {
      const res = await browser.post(`${PAGE}/limits`, form);
      assert.equal(res.statusCode, 400, JSON.stringify(form));
      assert.match(res.body, message);
    }
    assert.deepEqual((await settingsOf(ws.workspaceId)).limits, {
      send_limit: 5,
      send_window_seconds: 600,
      request_limit_per_minute: 6000,
      guess_limit: 20,
      guess_window_seconds: 3600,
    });
  });

  test('the failed-guess ceiling is saved from the form and refuses the next check past it', async () => {
    const { ws, browser, api } = await fresh();
    const form = {
      send_limit: '5',
      send_window_seconds: '600',
      request_limit_per_minute: '6000',
      guess_limit: '2',
      guess_window_seconds: '600',
    };
    const res = await browser.post(`${PAGE}/limits`, form);
    assert.equal(res.statusCode, 302);
    assert.match(
      (await browser.get(PAGE)).body,
      /name="guess_limit" required="" min="1" max="1000" step="1" value="2"/,
    );
    const { limits } = await settingsOf(ws.workspaceId);
    assert.equal(limits.guess_limit, 2);
    assert.equal(limits.guess_window_seconds, 600);

    const sent = json(await api.send({ phone: '+61491570006', channel: 'sms' }));
    for (let i = 0; i < 2; i++) {
      const wrong = await api.check({ verification_id: sent.id, code: '12345' });
      assert.equal(json(wrong).verified, false);
    }
    const refused = await api.check({ verification_id: sent.id, code: '12345' });
    assert.equal(refused.statusCode, 429);
    assert.match(json(refused).detail as string, /at most 2 failed checks in 10 minutes/);
  });

  test('guess-ceiling values out of range, not whole numbers, empty or odd are refused and change nothing', async () => {
    const { ws, browser } = await fresh();
    const base = { send_limit: '5', send_window_seconds: '600', request_limit_per_minute: '6000' };
    const cases = [
      [{ guess_limit: '0', guess_window_seconds: '3600' }, /guess_limit: .*1 to 1,000/],
      [{ guess_limit: '1001', guess_window_seconds: '3600' }, /guess_limit: .*1 to 1,000/],
      [{ guess_limit: '-5', guess_window_seconds: '3600' }, /guess_limit: .*1 to 1,000/],
      [{ guess_limit: '1e400', guess_window_seconds: '3600' }, /guess_limit: .*1 to 1,000/],
      [{ guess_limit: '20', guess_window_seconds: '59' }, /guess_window_seconds: .*60 to 86,400/],
      [{ guess_limit: '20', guess_window_seconds: '86401' }, /guess_window_seconds: .*60 to 86,400/],
      [{ guess_limit: '20.5', guess_window_seconds: '3600' }, /whole number/],
      [{ guess_limit: '', guess_window_seconds: '3600' }, /guess_limit/],
      [{ guess_limit: 'twenty', guess_window_seconds: '3600' }, /guess_limit/],
      [{ guess_limit: '20\u0000', guess_window_seconds: '3600' }, /guess_limit/],
      [{ guess_limit: '٢٠', guess_window_seconds: '3600' }, /guess_limit/],
    ] as const;
    for (const [guess, message] of cases) {
      const res = await browser.post(`${PAGE}/limits`, { ...base, ...guess });
      assert.equal(res.statusCode, 400, JSON.stringify(guess));
      assert.match(res.body, message);
    }
    const { limits } = await settingsOf(ws.workspaceId);
    assert.equal(limits.guess_limit, 20);
    assert.equal(limits.guess_window_seconds, 3600);
  });

  test('POSTs without the CSRF token are refused and change nothing', async () => {
    const { ws, browser } = await fresh();
    await browser.get(PAGE);
    const forged: [string, Record<string, string | string[]>][] = [
      [`${PAGE}/name`, { name: 'Forged' }],
      [`${PAGE}/numbers`, { number: '+64211234570', type: '' }],
      [`${PAGE}/countries`, { countries: ['NZ'] }],
      [`${PAGE}/limits`, { send_limit: '1', send_window_seconds: '60', request_limit_per_minute: '10' }],
    ];
    for (const [path, form] of forged) {
      const res = await browser.post(path, form, { csrf: null });
      assert.equal(res.statusCode, 403, path);
    }
    const [number] = await t.services.workspaces.listNumbers(ws.workspaceId);
    assert.equal(
      (await browser.post(`${PAGE}/numbers/${number?.id}/remove`, {}, { csrf: null })).statusCode,
      403,
    );
    const settings = await settingsOf(ws.workspaceId);
    assert.equal(settings.name, 'Acme');
    assert.deepEqual(settings.allowed_countries, ['AU', 'US', 'CA', 'GB', 'NZ']);
    assert.equal(settings.limits.send_limit, 5);
    assert.equal((await t.services.workspaces.listNumbers(ws.workspaceId)).length, 1);
  });

  test('the workspace name is escaped', async () => {
    const { browser } = await fresh();
    const name = '<script>alert(1)</script>';
    assert.equal((await browser.post(`${PAGE}/name`, { name })).statusCode, 302);
    const page = await browser.get(PAGE);
    assert.ok(!page.body.includes(name));
    assert.ok(page.body.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  });
});
