// Real-browser tests: Debian's chromium driven by playwright-core against a real server process on the suite's
// store. Where chromium is missing, a developer machine skips these tests (saying so) and CI fails loudly.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { freshEnv } from './cli-env.js';
import { type Body, callServer } from './cli-setup.js';
import { cliJson, runCliAsync, startServer } from './process.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = join(import.meta.dirname, '..', '..', 'docs', 'screenshots');
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

/**
 * The `skip` option for a browser suite: false when chromium is there; a reason to skip on a developer machine
 * without it. In CI (CI=true) a missing chromium throws: the browser tests are part of the suite there.
 */
export function browserSkip(): string | false {
  if (existsSync(CHROMIUM_PATH)) return false;
  const reason = `chromium not found at ${CHROMIUM_PATH} (install Debian's chromium or set CHROMIUM_PATH)`;
  if (process.env.CI === 'true' || process.env.CI === '1')
    throw new Error(`${reason}: CI runs the browser tests`);
  console.warn(`SKIPPING browser tests: ${reason}.`);
  return `SKIPPED: ${reason}`;
}

export interface BrowserApp {
  browser: Browser;
  page: Page;
  /** The running server's address, e.g. http://127.0.0.1:41234 */
  baseUrl: string;
  /** The environment of the server (DATABASE_URL…), for the CLI or services against the same store. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * A real server on a fresh store of the suite's kind, and a browser page at a desktop size. `extraEnv` adds to the
 * server's environment (and the CLI's, through `env`).
 */
export async function openBrowserApp(extraEnv: Record<string, string> = {}): Promise<BrowserApp> {
  const fresh = freshEnv();
  const { dir } = fresh;
  const env = { ...fresh.env, ...extraEnv };
  const server = await startServer(env);
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    // Generous, like eventually(): a busy two-core machine running four test files at once (a sign-in is a 128 MiB
    // scrypt) must never fail a test; what a test waits for still has to happen.
    page.setDefaultTimeout(30_000);
    const opened = browser;
    return {
      browser: opened,
      page,
      baseUrl: server.url,
      env,
      async close() {
        await opened.close();
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await browser?.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * Saves a full-page screenshot to docs/screenshots/<name>.png when UPDATE_SCREENSHOTS=1, so the pictures in the
 * docs are renewed on purpose (`UPDATE_SCREENSHOTS=1 TEST_STORES=sqlite npm test -- browser`) and an ordinary
 * test run leaves the working tree as it was.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

export const OWNER_EMAIL = 'owner@example.com';
export const OWNER_PASSWORD = 'correct horse battery';

/** Signs in through the sign-in form, as a person would, and waits for the dashboard. */
export async function signIn(b: BrowserApp, email = OWNER_EMAIL, password = OWNER_PASSWORD): Promise<void> {
  const { page } = b;
  await page.goto(`${b.baseUrl}/dashboard/signin`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await Promise.all([
    page.waitForURL((url) => url.pathname !== '/dashboard/signin'),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
}

export interface SignedInApp extends BrowserApp {
  workspaceId: string;
}

/**
 * A browser app whose workspace (`name`) and owner account were made with the CLI, as an operator would, then
 * signed in through the form. `numbers` are added to the workspace first (their types detected).
 */
export async function openSignedInApp(name = 'Acme', numbers: string[] = []): Promise<SignedInApp> {
  const b = await openBrowserApp();
  try {
    const workspaceId = cliJson<{ id: string }>(['workspace', 'create', '--name', name], b.env).id;
    for (const number of numbers)
      cliJson(['number', 'add', '--workspace', workspaceId, '--number', number], b.env);
    cliJson(
      ['account', 'create', '--email', OWNER_EMAIL, '--password', OWNER_PASSWORD, '--workspace', workspaceId],
      b.env,
    );
    await signIn(b);
    return { ...b, workspaceId };
  } catch (err) {
    await b.close();
    throw err;
  }
}

/** Runs the CLI with --json without blocking (so several can run at once): its one JSON value. */
export async function cliJsonAsync<T = Record<string, unknown>>(
  args: string[],
  env: Record<string, string>,
): Promise<T> {
  const result = await runCliAsync([...args, '--json'], env);
  if (result.status !== 0) {
    throw new Error(`phone-verify ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  }
  return JSON.parse(result.stdout) as T;
}

/** Whether the page scrolls sideways (its content is wider than the viewport). */
export async function scrollsSideways(page: Page): Promise<boolean> {
  // An expression string: the test programs are compiled without the DOM's types.
  return page.evaluate<boolean>(
    'document.documentElement.scrollWidth > document.documentElement.clientWidth',
  );
}

/** Runs `act` (a click or key press that submits or follows a link) and waits for the next page to load. */
export async function andWait(page: Page, act: () => Promise<unknown>): Promise<void> {
  await Promise.all([page.waitForEvent('load'), act()]);
}

/** A /v1 call with an API key of the app's workspace: the status and the parsed body. */
export type ApiCall = (
  method: string,
  path: string,
  body?: unknown,
) => Promise<{ status: number; body: Body }>;

/** Makes an API key for the app's workspace with the CLI, as an operator would, and a caller for /v1 with it. */
export function apiCaller(b: SignedInApp): ApiCall {
  const { key } = cliJson<{ key: string }>(
    ['key', 'create', '--workspace', b.workspaceId, '--name', 'backend'],
    b.env,
  );
  return (method, path, body) => callServer(b.baseUrl, key, method, path, body);
}
