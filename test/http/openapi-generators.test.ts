// Issue 15: the OpenAPI document is generator-ready. Redocly's linter (its recommended ruleset) finds no problem
// in it, errors or warnings; openapi-typescript names its schemas and operations; and scripts/openapi.mjs, which
// clients' builds run, prints the very document the service serves. The linter runs offline, without telemetry.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { createTestApp, TEST_PUBLIC_URL, type TestApp } from '../helpers/app.js';

const ROOT = join(import.meta.dirname, '..', '..');
const REDOCLY = join(ROOT, 'node_modules', '.bin', 'redocly');

const NAMED_SCHEMAS = [
  'Verification',
  'Delivery',
  'CheckResult',
  'PingResult',
  'Problem',
  'SendRequest',
  'CheckRequest',
];
const OPERATIONS = ['ping', 'sendVerification', 'checkVerification', 'getVerification', 'cancelVerification'];

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
}

/** The members of a type literal or interface, by name. */
function memberNames(node: ts.Node | undefined): string[] {
  const members =
    node && (ts.isInterfaceDeclaration(node) || ts.isTypeLiteralNode(node)) ? node.members : undefined;
  return (members ?? []).flatMap((m) => (m.name && ts.isIdentifier(m.name) ? [m.name.text] : []));
}

/** The generated `export interface <name>` of a source text. */
function exportedInterface(source: ts.SourceFile, name: string): ts.InterfaceDeclaration | undefined {
  return source.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name,
  );
}

describe('the OpenAPI document for generators', () => {
  let t: TestApp;
  let dir: string;
  let document: Record<string, unknown>;
  let file: string;

  before(async () => {
    t = await createTestApp();
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    document = res.json();
    dir = mkdtempSync(join(tmpdir(), 'pv-openapi-'));
    file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document, null, 2));
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('@redocly/cli lint, recommended ruleset: no error and no warning', () => {
    const result = spawnSync(REDOCLY, ['lint', file, '--extends', 'recommended', '--format', 'json'], {
      // Its own directory: no redocly.yaml of anyone's picked up. No telemetry, no update check.
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(result.error, undefined, String(result.error));
    const report = JSON.parse(result.stdout) as LintReport;
    const problems = report.problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    assert.deepEqual(problems, []);
    assert.deepEqual(report.totals, { errors: 0, warnings: 0, ignored: 0 });
    assert.equal(result.status, 0, result.stderr);
  });

  test('the linter does find problems (the test above is not vacuous)', () => {
    const broken = structuredClone(document) as { paths: Record<string, Record<string, object>> };
    const send = broken.paths['/v1/otp/send']?.post as Record<string, unknown>;
    delete send.operationId;
    writeFileSync(join(dir, 'broken.json'), JSON.stringify(broken));
    const result = spawnSync(
      REDOCLY,
      ['lint', 'broken.json', '--extends', 'recommended', '--format', 'json'],
      {
        cwd: dir,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    const report = JSON.parse(result.stdout) as LintReport;
    assert.ok(report.problems.some((p) => p.ruleId === 'operation-operationId'));
  });

  test('openapi-typescript: components["schemas"] names each schema, operations each operationId', async () => {
    const source = ts.createSourceFile(
      'api.d.ts',
      astToString(await openapiTS(JSON.stringify(document))),
      ts.ScriptTarget.Latest,
    );
    const components = exportedInterface(source, 'components');
    const schemas = components?.members.find(
      (m) => m.name && ts.isIdentifier(m.name) && m.name.text === 'schemas',
    );
    assert.ok(schemas && ts.isPropertySignature(schemas), 'components["schemas"]');
    const names = memberNames(schemas.type);
    for (const name of NAMED_SCHEMAS) assert.ok(names.includes(name), `components["schemas"]["${name}"]`);
    // Nothing anonymous: every component has a name of ours, none a generated `def-0`.
    assert.deepEqual(
      names.filter((n) => /^def/.test(n)),
      [],
    );
    const operations = memberNames(exportedInterface(source, 'operations'));
    for (const id of OPERATIONS) assert.ok(operations.includes(id), `operations["${id}"]`);
  });

  test('the document names its schemas, and every operation references them', () => {
    const doc = document as {
      components: { schemas: Record<string, unknown> };
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    assert.deepEqual(Object.keys(doc.components.schemas).sort(), NAMED_SCHEMAS.slice().sort());
    const text = JSON.stringify(doc.paths);
    for (const name of NAMED_SCHEMAS.filter((n) => n !== 'Delivery')) {
      assert.ok(text.includes(`"$ref":"#/components/schemas/${name}"`), `an operation refers to ${name}`);
    }
    const ids = Object.values(doc.paths).flatMap((methods) =>
      Object.values(methods).map((o) => o.operationId),
    );
    assert.deepEqual(ids.slice().sort(), OPERATIONS.slice().sort());
  });

  test("no description of an operation or an answer holds the server's address (generated types do not vary)", () => {
    const descriptions: string[] = [];
    JSON.stringify(document.paths, (key, value) => {
      if (key === 'description' && typeof value === 'string') descriptions.push(value);
      return value;
    });
    assert.ok(descriptions.length > 20);
    assert.deepEqual(
      descriptions.filter((d) => d.includes(TEST_PUBLIC_URL)),
      [],
    );
  });

  test('scripts/openapi.mjs prints the document the service serves (from dist/)', () => {
    const script = join(ROOT, 'scripts', 'openapi.mjs');
    const result = spawnSync(process.execPath, [script, '--public-url', TEST_PUBLIC_URL], {
      encoding: 'utf8',
      timeout: 60_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), document);
  });
});
