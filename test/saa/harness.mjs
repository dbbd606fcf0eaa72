// The SAA probe's harness: Debian's Chromium headless (puppeteer-core, the default profile of a fresh
// temporary user-data folder whose Preferences a test may preset), the sites of server.mjs, and the steps the
// tests take in pages and frames. SAA_DUMPIO=1 shows Chromium's own log (where a
// renderer killed for a bad message says so); SAA_CHROMIUM_FLAGS='["--flag"]' adds switches.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';
import { HTTPS, HTTPS_FLAGS } from './server.mjs';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_FLAGS = JSON.parse(readFileSync(new URL('../chromium-flags.json', import.meta.url), 'utf8'));
/** More Chromium flags for a run (a JSON array), to measure the same facts under other switches. */
const EXTRA_FLAGS = JSON.parse(process.env.SAA_CHROMIUM_FLAGS ?? '[]');
export const WAIT_MS = 15_000;

/**
 * Launches Chromium on a fresh profile whose Preferences are `preferences` (written before the start: the
 * person's settings, such as third-party cookies allowed, or a storage-access grant as an accepted prompt
 * stores it). `close()` closes it and removes the profile.
 */
export async function launch(preferences = {}, extraArgs = []) {
  const profile = mkdtempSync(join(tmpdir(), 'inpage-saa-'));
  mkdirSync(join(profile, 'Default'));
  writeFileSync(join(profile, 'Default', 'Preferences'), JSON.stringify(preferences));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`, ...(HTTPS ? HTTPS_FLAGS : []), ...EXTRA_FLAGS, ...extraArgs],
    timeout: WAIT_MS,
    protocolTimeout: 2 * WAIT_MS,
    dumpio: process.env.SAA_DUMPIO === '1',
  });
  const cdp = await browser.target().createCDPSession();
  let closed = false;
  const closeBrowser = async () => {
    if (!closed) await browser.close();
    closed = true;
  };
  return {
    browser,
    cdp,
    /** Closes the browser (which writes its Preferences) and returns the profile's content-setting exceptions. */
    async storedExceptions() {
      await closeBrowser();
      const preferences = JSON.parse(readFileSync(join(profile, 'Default', 'Preferences'), 'utf8'));
      return preferences.profile?.content_settings?.exceptions ?? {};
    },
    async close() {
      await closeBrowser();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Preferences granting storage access to `embedded` under each top-level origin of `granted`, and refusing it
 * under each of `refused` (content settings 1 allow, 2 block: what the person's answer to a prompt stores).
 */
export function storageAccessGrants(embedded, granted, refused = []) {
  const any = (origin) => `${new URL(origin).protocol}//${new URL(origin).hostname}:*`;
  const exceptions = Object.fromEntries([
    ...granted.map((top) => [`${any(embedded)},${any(top)}`, { setting: 1 }]),
    ...refused.map((top) => [`${any(embedded)},${any(top)}`, { setting: 2 }]),
  ]);
  return { profile: { content_settings: { exceptions: { storage_access: exceptions } } } };
}

/** Preferences allowing third-party cookies (Chromium's cookie_controls_mode 0: "allow"). */
export const THIRD_PARTY_COOKIES_ALLOWED = { profile: { cookie_controls_mode: 0, block_third_party_cookies: false } };

/**
 * Revokes the storage-access setting of `embedded` under top-level `origin` the way the person does it in
 * Chromium's site settings: chrome://settings' own handler (`resetCategoryPermissionForPattern`, what its
 * "reset" button sends). Patterns as Chromium stores them: scheme and host, any port.
 */
export async function revokeStorageAccess(browser, origin, embedded) {
  const settings = await browser.newPage();
  await settings.goto('chrome://settings/content/storageAccess');
  // Loopback hosts are stored as scheme://host; domains as scheme://[*.]domain (the site, subdomains too).
  for (const wildcard of ['', '[*.]']) {
    const pattern = (url) => `${new URL(url).protocol}//${wildcard}${new URL(url).hostname}`;
    await settings.evaluate(
      (primary, secondary) => {
        globalThis.chrome.send('resetCategoryPermissionForPattern', [primary, secondary, 'storage-access', false]);
      },
      pattern(embedded),
      pattern(origin),
    );
  }
  await new Promise((ok) => setTimeout(ok, 500));
  await settings.close();
}

/** Sets the storage-access permission of `embedded` (the provider) under top-level `origin` (a consumer). */
export async function setStorageAccess(cdp, setting, origin, embedded) {
  await cdp.send('Browser.setPermission', { permission: { name: 'storage-access' }, setting, origin, embeddedOrigin: embedded });
}

/** Opens `url` in a new tab; its provider frame (the first frame on `providerOrigin`) once `saa` is there. */
export async function openConsumer(browser, url, providerOrigin) {
  const page = await browser.newPage();
  page.setDefaultTimeout(WAIT_MS);
  await page.goto(url);
  const started = Date.now();
  for (;;) {
    const frame = page.frames().find((f) => f !== page.mainFrame() && f.url().startsWith(providerOrigin));
    if (frame && (await evaluateWithoutGesture(frame, "typeof window.saa === 'object'").catch(() => false))) return { page, frame };
    if (Date.now() - started > WAIT_MS) throw new Error(`no provider frame in ${url}`);
    await new Promise((ok) => setTimeout(ok, 50));
  }
}

/** Opens the provider at top level (a first-party visit). */
export async function openProvider(browser, url) {
  const page = await browser.newPage();
  page.setDefaultTimeout(WAIT_MS);
  await page.goto(url);
  const started = Date.now();
  while (!(await evaluateWithoutGesture(page.mainFrame(), "typeof window.saa === 'object'").catch(() => false))) {
    if (Date.now() - started > WAIT_MS) throw new Error(`no provider page at ${url}`);
    await new Promise((ok) => setTimeout(ok, 50));
  }
  return { page, frame: page.mainFrame() };
}

/** A real click on the frame's button (a user gesture) that calls requestStorageAccess(types); its outcome. */
export async function clickToRequest(frame, types) {
  await saa(frame, 'prepare', types);
  // A tab in the background draws no frames, and puppeteer's click waits for one.
  await frame.page().bringToFront();
  await frame.click('#ask');
  const started = Date.now();
  while (!(await evaluateWithoutGesture(frame, 'window.saa.request !== null'))) {
    if (Date.now() - started > WAIT_MS) throw new Error('the click did not call requestStorageAccess');
    await new Promise((ok) => setTimeout(ok, 50));
  }
  return evaluateWithoutGesture(frame, 'window.saa.request');
}

/**
 * Evaluates `expression` (awaited) in the frame's main world with no user gesture. Puppeteer's own evaluate
 * runs with `userGesture: true`, which gives the frame transient activation; this goes through the frame's
 * DevTools session instead (an out-of-process frame is a target of its own, whose default context is the
 * frame's main world), so the only gestures the provider sees are the tests' real clicks.
 */
export async function evaluateWithoutGesture(frame, expression) {
  const { result, exceptionDetails } = await frame.client.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true, userGesture: false });
  if (exceptionDetails) throw new Error(`${expression}: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
  return result.value;
}

/** Runs `saa[method](...args)` in the frame, with no user gesture. */
export function saa(frame, method, ...args) {
  return evaluateWithoutGesture(frame, `window.saa[${JSON.stringify(method)}](...${JSON.stringify(args)})`);
}
