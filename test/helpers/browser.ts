// Real-browser tests: Debian's chromium driven by playwright-core against a real server process on the suite's
// store. Where chromium is missing, a developer machine skips these tests (saying so) and CI fails loudly.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { freshEnv } from './cli-env.js';
import { TEST_STORE } from './database.js';
import { startServer } from './process.js';

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

/** A real server on a fresh store of the suite's kind, and a browser page at a desktop size. */
export async function openBrowserApp(): Promise<BrowserApp> {
  const { dir, env } = freshEnv();
  const server = await startServer(env);
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
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
 * Saves the page to docs/screenshots/<name>.png for the documentation: on the SQLite run only (the suite runs
 * once per store, and one copy is enough) or whenever UPDATE_SCREENSHOTS=1.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS !== '1' && TEST_STORE !== 'sqlite') return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
