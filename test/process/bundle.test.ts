// The bundle the CLI and the serving process run (scripts/bundle.mjs, docs/operations.md "Start-up"): built by
// `npm run build`, free of modules that find files by their own folder, and run by bin/phone-verify.js; files
// read at run time (package.json, public/, Pico's CSS in node_modules, Swagger UI's static files) are found from
// it.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { freshEnv } from '../helpers/cli-env.js';
import { runCli, type ServerProcess, startServer } from '../helpers/process.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe('the bundle', () => {
  const dirs: string[] = [];
  const servers: ServerProcess[] = [];
  after(async () => {
    for (const server of servers) await server.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  test('bin/phone-verify.js runs dist/phone-verify.mjs, which holds no __dirname or __filename', () => {
    const bin = readFileSync(join(ROOT, 'bin', 'phone-verify.js'), 'utf8');
    assert.match(bin, /await import\('\.\.\/dist\/phone-verify\.mjs'\)/);
    const bundle = readFileSync(join(ROOT, 'dist', 'phone-verify.mjs'), 'utf8');
    assert.doesNotMatch(bundle, /\b__(dirname|filename)\b/);
    // Our own modules are inside it, not imported from dist/ beside it.
    assert.match(bundle, /^\/\/ dist\/cli\/main\.js$/m);
    assert.doesNotMatch(bundle, /from ["']\.\/(cli|store|app)\//);
  });

  test('the CLI from the bundle reads the version from package.json', () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const result = runCli(['--version'], {});
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout.trim(), version);
  });

  test('the serving process finds the dashboard files, Pico and Swagger UI from the bundle', async () => {
    const { dir, env } = freshEnv();
    dirs.push(dir);
    const server = await startServer(env);
    servers.push(server);
    const files: [string, string][] = [
      ['/dashboard/assets/dashboard.css', join(ROOT, 'public', 'dashboard', 'dashboard.css')],
      [
        '/dashboard/assets/pico.min.css',
        join(ROOT, 'node_modules', '@picocss', 'pico', 'css', 'pico.min.css'),
      ],
    ];
    for (const [path, file] of files) {
      const res = await fetch(`${server.url}${path}`);
      assert.equal(res.status, 200, path);
      assert.equal(await res.text(), readFileSync(file, 'utf8'), path);
    }
    const css = await fetch(`${server.url}/docs/static/swagger-ui.css`);
    assert.equal(css.status, 200);
    assert.ok((await css.text()).length > 10_000);
    const docs = await fetch(`${server.url}/docs/json`);
    assert.equal(docs.status, 200);
    assert.equal(((await docs.json()) as { openapi: string }).openapi.startsWith('3.'), true);
    assert.equal(await server.stop(), 0);
  });
});
