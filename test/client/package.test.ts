// @phone-verify/client as a package: publishable as the brief says (no runtime dependencies, ESM with types, the
// service's version), and its generated types current: regenerated here from the document the service builds now,
// they equal the ones the package was built with. A stale build fails this test.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  type CheckRequest,
  type CheckResult,
  type PingResult,
  type Problem,
  type SendRequest,
  VERSION,
  type Verification,
  type WebhookEvent,
} from '@phone-verify/client';
import { createTestApp, type TestApp } from '../helpers/app.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CLIENT = join(ROOT, 'clients', 'node');
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

describe('the client package', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('its generated types are those of the current OpenAPI document', async () => {
    const { generateTypes, GENERATED } = (await import(join(CLIENT, 'scripts', 'generate.mjs'))) as {
      generateTypes(document: unknown): Promise<string>;
      GENERATED: string;
    };
    const current = await generateTypes(t.app.swagger());
    assert.equal(
      readFileSync(GENERATED, 'utf8'),
      current,
      'clients/node was built from another document: run `npm run build`',
    );
    // And what the package exports was compiled from them.
    const built = readFileSync(join(CLIENT, 'dist', 'generated', 'openapi.d.ts'), 'utf8');
    for (const path of Object.keys((t.app.swagger() as { paths: object }).paths))
      assert.ok(built.includes(`"${path}"`), `${path} in the built types`);
  });

  test('package.json: publishable, ESM with types, the service version, no runtime dependency', () => {
    const pkg = readJson(join(CLIENT, 'package.json'));
    const service = readJson(join(ROOT, 'package.json'));
    assert.equal(pkg.name, '@phone-verify/client');
    assert.equal(pkg.version, service.version);
    assert.equal(VERSION, pkg.version);
    assert.equal(pkg.type, 'module');
    assert.equal(pkg.license, 'MIT');
    assert.equal(pkg.engines.node, '>=22');
    assert.deepEqual(pkg.exports['.'], { types: './dist/index.d.ts', default: './dist/index.js' });
    assert.deepEqual(pkg.files, ['dist', 'README.md']);
    assert.equal(pkg.dependencies, undefined, 'no runtime dependencies');
    assert.equal(pkg.peerDependencies, undefined);
    // The built code imports only itself and node: modules.
    const index =
      readFileSync(join(CLIENT, 'dist', 'http.js'), 'utf8') +
      readFileSync(join(CLIENT, 'dist', 'client.js'), 'utf8');
    for (const [, from] of index.matchAll(/from '([^']+)'/g)) assert.match(String(from), /^(\.\/|node:)/);
  });

  test('the types are the API’s (a compile-time check: this file does not typecheck if they drift)', () => {
    const send: SendRequest = { phone: '+61412345678', channel: 'sms', code_length: 6, metadata: { a: 1 } };
    const check: CheckRequest = { verification_id: 'ver_x', code: '123456' };
    // @ts-expect-error: channel is voice or sms
    const badChannel: SendRequest = { phone: '+61412345678', channel: 'fax' };
    // @ts-expect-error: phone is required
    const noPhone: SendRequest = { channel: 'sms' };
    const result: Pick<CheckResult, 'verified' | 'status'> = { verified: true, status: 'verified' };
    const ping: PingResult['scopes'] = ['otp'];
    const status: Verification['status'] = 'pending';
    const code: Problem['code'] = 'not_found';
    const event: WebhookEvent['type'] = 'verification.verified';
    assert.ok(send && check && badChannel && noPhone && result && ping && status && code && event);
  });
});
