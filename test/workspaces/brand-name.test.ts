// Issue 11 item 3: a brand name (and a workspace name, the default brand) is spoken and written in every message,
// so nothing in it may read as a link: domains written with look-alike dots, full-width letters or other
// scripts, and IP addresses with or without a port are refused; real brands, with accents, initials, digits or
// in other scripts, pass unchanged.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { listOutbox } from '../../src/delivery/outbox.js';
import { AppError } from '../../src/errors.js';
import { validateBrandName } from '../../src/workspaces/brand-name.js';
import { client, createTestApp, seedWorkspace, type TestApp } from '../helpers/app.js';

const URL_LIKE = [
  // The examples: ideographic, full-width and half-width full stops; IP addresses.
  'acme。com',
  'acme．com',
  'acme｡com',
  '10.0.0.1:8080',
  '8.8.8.8',
  // Other dots that compatibility normalisation folds into ".".
  'acme․com', // U+2024 one dot leader
  'acme﹒com', // U+FE52 small full stop
  // Full-width letters and digits.
  'ａｃｍｅ．ｃｏｍ',
  'ＡＣＭＥ。ＣＯＭ',
  'Visit ａｃｍｅ.com now',
  '８.８.８.８',
  'ｈｔｔｐｓ：／／acme',
  'help＠acme．com',
  // Zero-width and other invisible characters inside a domain.
  'acme\u200d.com',
  'ac\u200dme.com',
  'acme.\u200bcom',
  'acme\u00ad.com',
  'acme\u2060.com',
  // Mixed and other scripts.
  'аcme.com', // Cyrillic а
  'acme.сом', // Cyrillic с, о, м
  'αcme.cοm', // Greek α, ο
  'пример.рф',
  'пример。рф',
  'acme.中国',
  'example。中国',
  'acme.c\u0332om', // a combining mark inside the top-level domain
  // IP addresses, with a port, inside text, and IPv6.
  'Acme 192.168.1.1',
  'Acme8.8.8.8',
  'Acme 8.8.8.8:53',
  '127.0.0.1.',
  '[::1]:8080',
  '2001:db8::1',
  'Acme [2001:db8::1]',
];

const LEGITIMATE = [
  'Acme',
  'Acme Inc.',
  'A. B. Corp',
  '3M',
  'Dr. Oetker',
  'J.P. Morgan',
  'E.ON',
  'St. Kilda Bank',
  'Café Zürich & Co.',
  'Société Générale',
  'Ørsted',
  'Łódź Bank',
  'AT&T',
  '7-Eleven',
  'Route 66',
  'Yahoo!',
  'E*Trade',
  'Version 2.0 Labs',
  '東京銀行',
  'Сбербанк',
  'Εθνική Τράπεζα',
  'بنك مصر',
  'बैंक ऑफ़ बड़ौदा',
  '서울은행',
  'ＡＣＭＥ', // full-width letters alone are text, not a link
];

describe('brand names: nothing that reads as a link', () => {
  for (const name of URL_LIKE) {
    test(`refused: ${JSON.stringify(name)}`, () => {
      assert.throws(
        () => validateBrandName(name),
        (err) =>
          err instanceof AppError && err.code === 'invalid_request' && /^brand_name: /.test(err.message),
      );
    });
  }

  for (const name of LEGITIMATE) {
    test(`accepted unchanged: ${JSON.stringify(name)}`, () => {
      assert.equal(validateBrandName(name), name);
    });
  }
});

describe('brand names through the API and as a workspace name', () => {
  let t: TestApp;
  let api: ReturnType<typeof client>;
  before(async () => {
    t = await createTestApp();
    api = client(t.app, (await seedWorkspace(t.services)).key);
  });
  after(() => t.close());

  test('POST /v1/otp/send with a look-alike domain or an IP address as brand_name: 400, nothing sent', async () => {
    const phone = '+61412345099';
    for (const brand_name of ['acme。com', 'acme．com', 'acme｡com', '10.0.0.1:8080', '8.8.8.8']) {
      const res = await api.send({ phone, channel: 'sms', brand_name });
      assert.equal(res.statusCode, 400, brand_name);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      const body = res.json() as { code: string; errors: { field: string; message: string }[] };
      assert.equal(body.code, 'invalid_request');
      assert.deepEqual(body.errors, [
        { field: 'brand_name', message: 'must not contain a URL, domain, IP address or e-mail address' },
      ]);
    }
    assert.deepEqual(await listOutbox(t.store.db, { to: phone, limit: 5 }), []);
    // A real brand with dots still goes out as written.
    assert.equal((await api.send({ phone, channel: 'sms', brand_name: 'A. B. Corp' })).statusCode, 201);
    const [message] = await listOutbox(t.store.db, { to: phone, limit: 1 });
    assert.match(message?.body ?? '', /^A\. B\. Corp:/);
  });

  test('a workspace cannot be created or renamed to one either', async () => {
    await assert.rejects(t.services.workspaces.createWorkspace({ name: 'acme。com' }, OPERATOR), {
      code: 'invalid_request',
      message: 'name: must not contain a URL, domain, IP address or e-mail address',
    });
    const ws = await t.services.workspaces.createWorkspace({ name: 'Dr. Oetker' }, OPERATOR);
    await assert.rejects(
      t.services.workspaces.renameWorkspace({ workspaceId: ws.id, name: '8.8.8.8' }, OPERATOR),
      {
        code: 'invalid_request',
      },
    );
  });
});
