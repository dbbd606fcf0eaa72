// Issue 29, step 1, Firefox: what a storage-access grant gives the provider frame in Debian's Firefox ESR
// (WebDriver BiDi through puppeteer-core, as test/firefox/ does). The prompt is answered "allow" by Firefox's
// own testing preferences (dom.storage_access.prompt.testing{,.allow}). Findings in docs/shared-models.md.
// `npm run test:saa:firefox` (not part of `npm test`).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import puppeteer from 'puppeteer-core';
import { WAIT_MS } from './harness.mjs';
import { serveSites } from './server.mjs';

const FIREFOX_PATH = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';
const EMPTY = { idb: null, cache: null, opfs: null };
const all = (token) => ({ idb: token, cache: token, opfs: token });

describe('Firefox ESR: a storage-access grant gives the provider frame cookies, not its first-party storage', () => {
  let sites;
  let browser;
  let o;
  let A;
  let B;

  async function openConsumer(site) {
    const page = await browser.newPage();
    page.setDefaultTimeout(WAIT_MS);
    await page.goto(`${o[site]}/consumer.html?provider=${encodeURIComponent(`${o.provider}/provider.html`)}`);
    return { page, frame: await providerFrame(page) };
  }

  async function providerFrame(page, url = '') {
    const started = Date.now();
    for (;;) {
      const frame = page.frames().find((f) => f !== page.mainFrame() && f.url().startsWith(o.provider) && f.url().includes(url));
      if (frame && (await frame.evaluate(() => typeof window.saa === 'object').catch(() => false))) return frame;
      if (Date.now() - started > WAIT_MS) throw new Error('no provider frame');
      await new Promise((ok) => setTimeout(ok, 100));
    }
  }

  before(
    async () => {
      // Loopback http always: Firefox is not given the *.test names of SAA_HTTPS.
      sites = await serveSites(undefined, false);
      o = sites.origins;
      browser = await puppeteer.launch({
        browser: 'firefox',
        protocol: 'webDriverBiDi',
        executablePath: FIREFOX_PATH,
        headless: true,
        timeout: 2 * WAIT_MS,
        extraPrefsFirefox: { 'dom.storage_access.prompt.testing': true, 'dom.storage_access.prompt.testing.allow': true },
      });
      A = await openConsumer('consumerA');
      B = await openConsumer('consumerB');
    },
    { timeout: 60_000 },
  );

  after(async () => {
    await browser?.close();
    await sites?.close();
  });

  test('without a grant the frame is partitioned', async (t) => {
    t.diagnostic(await browser.version());
    assert.deepEqual(await A.frame.evaluate(() => window.saa.write('plain', 'A-partitioned')), all('ok'));
    assert.deepEqual(await B.frame.evaluate(() => window.saa.read('plain')), EMPTY);
    assert.equal(await A.frame.evaluate(() => document.hasStorageAccess()), false);
  });

  test('requestStorageAccess(types) resolves with no handle (undefined) and opens third-party cookies', async () => {
    await A.page.bringToFront();
    await A.frame.evaluate(() => {
      window.saa.types = { indexedDB: true, caches: true, getDirectory: true };
      window.saa.request = null;
    });
    await A.frame.click('#ask');
    await A.frame.waitForFunction(() => window.saa.request !== null);
    assert.deepEqual(await A.frame.evaluate(() => window.saa.request), { ok: true, handle: '[object Undefined]' });
    assert.equal(await A.frame.evaluate(() => document.hasStorageAccess()), true);
    assert.equal(await A.frame.evaluate(() => ((document.cookie = 'saa=1; SameSite=None; Secure'), document.cookie)), 'saa=1');
  });

  test('after the grant, IndexedDB, Cache Storage, OPFS and localStorage stay partitioned, also after a reload', async () => {
    const top = await browser.newPage();
    await top.goto(`${o.provider}/provider.html`);
    await top.evaluate(() => (localStorage.setItem('saa', 'top-level'), window.saa.write('plain', 'top-level')));
    assert.deepEqual(await A.frame.evaluate(() => window.saa.read('plain')), all('A-partitioned'));
    assert.equal(await A.frame.evaluate(() => localStorage.getItem('saa')), null);
    assert.deepEqual(await A.frame.evaluate(() => window.saa.dedicated({ op: 'read' })), all('A-partitioned'));
    // A new document in the frame, under the grant.
    await A.page.evaluate(() => {
      const frame = document.querySelector('iframe');
      frame.src = `${frame.src}?reloaded=1`;
    });
    const reloaded = await providerFrame(A.page, 'reloaded=1');
    assert.equal((await reloaded.evaluate(() => window.saa.requestNow({ indexedDB: true }))).ok, true);
    assert.deepEqual(await reloaded.evaluate(() => window.saa.read('plain')), all('A-partitioned'));
    assert.equal(await reloaded.evaluate(() => localStorage.getItem('saa')), null);
    assert.deepEqual(await reloaded.evaluate(() => window.saa.shared('plain', { op: 'read' })), all('A-partitioned'));
    await top.close();
  });

  test('Firefox ESR has no WebGPU here (navigator.gpu absent in the frame)', async () => {
    assert.equal((await A.frame.evaluate(() => window.saa.env())).gpu, 'no navigator.gpu');
  });
});
