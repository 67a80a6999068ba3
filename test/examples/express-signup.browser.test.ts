// The example app (examples/express-signup) end to end: a real phone-verify server on the suite's store, a
// workspace, number and key made with the CLI as its README says, the example started as a child process with its
// one command (`npm start -w examples/express-signup`), and Chromium driving it as a person would: a bad number is
// explained, a code is sent, a wrong code is refused with the attempts left, the right code from the development
// outbox verifies, and what the person typed is escaped.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { andWait, type BrowserApp, browserSkip, openBrowserApp, screenshot } from '../helpers/browser.js';
import { cliJson } from '../helpers/process.js';
import { wrongCode } from '../helpers/verification.js';

const ROOT = join(import.meta.dirname, '..', '..');
const PHONE = '+61412348001';

interface Example {
  url: string;
  child: ChildProcess;
  output(): string;
}

/** `npm start -w examples/express-signup` on a free port: its address once it says it listens. */
async function startExample(env: Record<string, string>): Promise<Example> {
  const child = spawn('npm', ['start', '--silent', '-w', 'examples/express-signup'], {
    cwd: ROOT,
    // Node 24 first on the PATH, as the README's setup does; npm scripts then find it (and the project's own).
    env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}`, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: npm and the node it starts stop together
  });
  let output = '';
  child.stderr?.on('data', (d) => {
    output += d;
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const url = await Promise.race([
    (async () => {
      for await (const line of lines) {
        output += `${line}\n`;
        const found = /listening on (http:\/\/\S+)/.exec(line);
        if (found?.[1]) return found[1];
      }
      throw new Error(`the example ended: ${output}`);
    })(),
    once(child, 'exit').then(([code]) => {
      throw new Error(`the example exited with ${code}: ${output}`);
    }),
  ]);
  return { url, child, output: () => output };
}

function stopExample(example: Example | undefined): Promise<unknown> | undefined {
  const { child } = example ?? {};
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return undefined;
  const exited = once(child, 'exit');
  process.kill(-child.pid, 'SIGTERM');
  return exited;
}

describe('browser: the express-signup example', { skip: browserSkip() }, () => {
  let b: BrowserApp;
  let example: Example;

  before(async () => {
    b = await openBrowserApp();
    const workspace = cliJson<{ id: string }>(['workspace', 'create', '--name', 'Signup Demo'], b.env);
    cliJson(['number', 'add', '--workspace', workspace.id, '--number', '+61491570156'], b.env);
    const { key } = cliJson<{ key: string }>(
      ['key', 'create', '--workspace', workspace.id, '--name', 'express-signup'],
      b.env,
    );
    example = await startExample({ PHONE_VERIFY_URL: b.baseUrl, PHONE_VERIFY_API_KEY: key });
  });
  after(async () => {
    await stopExample(example);
    await b?.close();
  });

  const codeFromOutbox = () => {
    const [message] = cliJson<{ body: string }[]>(['outbox', '--to', PHONE, '--limit', '1'], b.env);
    const code = /(\d+)\s*$/.exec(message?.body ?? '')?.[1];
    assert.ok(code, `a code in ${message?.body}`);
    return code;
  };

  test('a bad number is explained on the phone form, escaped as typed', async () => {
    const { page } = b;
    await page.goto(example.url);
    assert.equal(await page.getByRole('heading').textContent(), 'Verify your phone');
    await page.getByLabel('Phone number').fill('<b>+61 1</b>');
    await andWait(page, () => page.getByRole('button', { name: 'Send code' }).click());
    assert.match((await page.getByRole('alert').textContent()) ?? '', /does not look right/);
    assert.equal(await page.getByLabel('Phone number').inputValue(), '<b>+61 1</b>');
    assert.equal(await page.locator('b').count(), 0, 'the number is shown as text, never as markup');
  });

  test('send, a wrong code (refused, attempts left), the right code from the outbox: verified', async () => {
    const { page } = b;
    await page.goto(example.url);
    await page.getByLabel('Phone number').fill('0412 348 001'.replace(/^0/, '+61 '));
    await page.getByLabel('Text message').check();
    await andWait(page, () => page.getByRole('button', { name: 'Send code' }).click());
    assert.equal(new URL(page.url()).pathname, '/code');
    assert.match((await page.locator('body').textContent()) ?? '', /We sent a code to \+61412348001/);
    // The verification id stays on the server: nothing of it in the page or its cookie.
    assert.doesNotMatch(await page.content(), /ver_/);
    const cookies = await page.context().cookies();
    assert.equal(cookies.length, 1);
    assert.equal(cookies[0]?.httpOnly, true);
    assert.doesNotMatch(cookies[0]?.value ?? '', /ver_/);

    const code = codeFromOutbox();
    await page.getByLabel('Code').fill(wrongCode(code));
    await andWait(page, () => page.getByRole('button', { name: 'Verify' }).click());
    assert.match(
      (await page.getByRole('alert').textContent()) ?? '',
      /That code is not right\. 4 attempts left\./,
    );
    await screenshot(page, 'example-express-signup-wrong-code');

    await page.getByLabel('Code').fill(code);
    await andWait(page, () => page.getByRole('button', { name: 'Verify' }).click());
    assert.equal(new URL(page.url()).pathname, '/verified');
    assert.match(
      (await page.getByRole('status').textContent()) ?? '',
      /Your phone number \+61412348001 is verified\./,
    );
  });

  test('a code used up by wrong attempts: told to ask for a new one', async () => {
    const { page } = b;
    await andWait(page, () => page.getByRole('button', { name: 'Start again' }).click());
    await page.getByLabel('Phone number').fill(PHONE);
    await andWait(page, () => page.getByRole('button', { name: 'Send code' }).click());
    const code = codeFromOutbox();
    for (let i = 0; i < 5; i++) {
      await page.getByLabel('Code').fill(wrongCode(code));
      await andWait(page, () => page.getByRole('button', { name: 'Verify' }).click());
    }
    assert.match(
      (await page.getByRole('alert').textContent()) ?? '',
      /Too many wrong codes\. Please ask for a new one\./,
    );
    await page.getByLabel('Code').fill(code);
    await andWait(page, () => page.getByRole('button', { name: 'Verify' }).click());
    assert.equal(new URL(page.url()).pathname, '/check', 'the right code no longer verifies');
    assert.match((await page.getByRole('alert').textContent()) ?? '', /ask for a new one/);
  });
});
