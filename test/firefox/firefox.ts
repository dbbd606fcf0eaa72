// The Firefox smoke set's harness: Debian's Firefox ESR driven over WebDriver BiDi by puppeteer-core (Playwright
// cannot download its own Firefox here), the builds it serves, and the workspace steps done through the UI.
// Run by node's own test runner (`npm run test:firefox`); TypeScript through register-ts.mjs.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { displayForm, isWellFormedKey } from '#shared/keys/key-format';
import type { Evaluator } from '../browser/helpers';
import { PROD_BUILD_DIR, REPO_ROOT, TEST_BUILD_DIR } from '../browser/static-server';
import { suiteBound } from '../harness/processes';

export const FIREFOX_PATH = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';
/** Every wait of the smoke set (a locator, a condition, a navigation, Firefox's start) ends by then. */
export const WAIT_MS = 30_000;
/** A smoke file ends by then, whatever it waits on. */
const SUITE_MS = 600_000;
/** A build and the start of its server end by then. */
export const SETUP_MS = 180_000;

/**
 * What a build is made from: its kind, INPAGE_BUILD_SUFFIX, the commit, the uncommitted changes and the untracked
 * files git does not ignore. Null outside a git checkout (every build is then made afresh).
 */
function buildKey(kind: 'test' | 'production'): string | null {
  const git = (args: string[]) => execFileSync('git', args, { cwd: REPO_ROOT, maxBuffer: 256 * 1024 * 1024 });
  try {
    const hash = createHash('sha256').update(`${kind}\0${process.env.INPAGE_BUILD_SUFFIX ?? ''}\0`);
    hash.update(git(['rev-parse', 'HEAD'])).update(git(['diff', 'HEAD', '--binary']));
    for (const path of git(['ls-files', '--others', '--exclude-standard', '-z']).toString().split('\0').filter(Boolean)) {
      hash.update(`${path}\0`).update(readFileSync(join(REPO_ROOT, path)));
    }
    return hash.digest('hex');
  } catch {
    return null;
  }
}

/**
 * Builds the test build (`--mode test`) or the production build into dist*, as Playwright's web servers do; the
 * smoke sets' files each ask, and a build made from the same sources by an earlier file (its key in the folder's
 * `.smoke-build-key`) is used again instead of being made a second time.
 */
export function build(kind: 'test' | 'production'): void {
  const marker = join(kind === 'test' ? TEST_BUILD_DIR : PROD_BUILD_DIR, '.smoke-build-key');
  const key = buildKey(kind);
  if (key !== null && existsSync(marker) && readFileSync(marker, 'utf8') === key) return;
  rmSync(marker, { force: true });
  execFileSync('npx', ['vite', 'build', '--logLevel', 'error', ...(kind === 'test' ? ['--mode', 'test'] : [])], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: SETUP_MS,
  });
  if (key !== null) writeFileSync(marker, key);
}

/**
 * Firefox's storage quota, pinned (in KiB: 1 GiB for all sites, of which a site gets a share). By default Firefox
 * derives it from the disk's free space, so on a machine with little free space a site's quota is a few megabytes
 * and the same test behaves differently there (CI's Firefox llama.cpp test did, twice). A test of a full store sets
 * its own, small, limit.
 */
export const QUOTA_PREFS = { 'dom.quotaManager.temporaryStorage.fixedLimit': 1024 * 1024 };

/**
 * Launches Firefox ESR headless with a fresh profile (puppeteer makes one in a temporary folder and removes it
 * on close) for the file's tests, and closes it after them, failed or not. Service workers need nothing more:
 * they are on in a default profile, and http://127.0.0.1 is a secure context. `prefs` are set in that profile,
 * over QUOTA_PREFS.
 */
export function firefox(prefs: Record<string, unknown> = {}): () => Browser {
  let browser: Browser | undefined;
  before(
    async () => {
      // The file's hard bound: past it the file ends, whatever it waits on (puppeteer ends Firefox as it exits).
      suiteBound(SUITE_MS, 'a Firefox smoke file');
      browser = await puppeteer.launch({
        browser: 'firefox',
        protocol: 'webDriverBiDi',
        executablePath: FIREFOX_PATH,
        headless: true,
        timeout: WAIT_MS,
        extraPrefsFirefox: { ...QUOTA_PREFS, ...prefs },
      });
    },
    { timeout: 2 * WAIT_MS },
  );
  after(
    async () => {
      await browser?.close();
    },
    { timeout: WAIT_MS },
  );
  return () => {
    if (!browser) throw new Error('Firefox is used before it was launched');
    return browser;
  };
}

/** A page of a new browser context (its own storage, so its own service worker and workspace). */
export async function newPage(browser: Browser): Promise<Page> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  page.setDefaultNavigationTimeout(WAIT_MS);
  return page;
}

/**
 * Puppeteer's page as the shared helpers' Evaluator (test/browser/helpers.ts: call, chat). Their arguments are
 * plain data, never element handles, so Puppeteer's handle unwrapping in its types does not apply.
 */
export function evaluator(page: Page): Evaluator {
  return {
    evaluate: <R, Arg>(fn: (arg: Arg) => R | Promise<R>, arg: Arg) => page.evaluate(fn as (arg: unknown) => R | Promise<R>, arg as unknown) as Promise<R>,
  };
}

/** Opens `url` and waits until the service worker controls it and the engine is hosted; says whether it does. */
export async function openApp(page: Page, url: string): Promise<{ controlled: boolean; webgpu: boolean }> {
  await page.goto(url);
  return page.evaluate(async () => {
    await window.inpageReady;
    return { controlled: navigator.serviceWorker.controller !== null, webgpu: 'gpu' in navigator };
  });
}

/** The text of an element matching `selector` once one's text matches `pattern`; fails after WAIT_MS. */
export async function textOnceMatching(page: Page, selector: string, pattern: RegExp): Promise<string> {
  const handle = await page.waitForFunction(
    (sel: string, source: string, flags: string) => {
      const texts = Array.from(document.querySelectorAll(sel), (el) => el.textContent ?? '');
      return texts.find((text) => new RegExp(source, flags).test(text)) ?? null;
    },
    { timeout: WAIT_MS, polling: 100 },
    selector,
    pattern.source,
    pattern.flags,
  );
  return (await handle.jsonValue()) as string;
}

/** Signs up through the workspace page's form (as registerThroughForm does in Chromium); returns the org id. */
export async function registerThroughForm(page: Page, name: string): Promise<string> {
  await page.locator('#workspace-name').fill(name);
  await page.locator('button[type="submit"]::-p-text("Create workspace")').click();
  return textOnceMatching(page, '[data-testid="org-id"]', /^org-[a-z0-9]+$/);
}

/** Creates a key through the API Keys area's form; returns the key shown once, and checks its display form. */
export async function createKeyThroughForm(page: Page, name: string): Promise<string> {
  await page.locator('#key-name').fill(name);
  await page.locator('button[type="submit"]::-p-text("Create key")').click();
  const shown = await page.waitForFunction(
    () => {
      const value = (document.querySelector('#new-key-value') as HTMLInputElement | null)?.value ?? '';
      return value.startsWith('sk-') ? value : null;
    },
    { timeout: WAIT_MS, polling: 100 },
  );
  const key = (await shown.jsonValue()) as string;
  if (!isWellFormedKey(key)) throw new Error(`the new key is not well formed: ${key}`);
  await page.locator('button::-p-text("Done, I saved it")').click();
  // The list shows it by its display form only.
  await textOnceMatching(page, 'code.key-display', new RegExp(`^${displayForm(key).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
  return key;
}
