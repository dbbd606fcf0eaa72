// Issue 29, step 1: can a provider origin embedded in other sites share one model store through the Storage
// Access API's non-cookie extension (document.requestStorageAccess(types) → StorageAccessHandle)? Each test
// asserts one measured fact of the Chromium under test (Debian's /usr/bin/chromium, headless); the findings and
// what they imply are in docs/shared-models.md. `npm run test:saa` (not part of `npm test`).
//
// Sites (server.mjs): consumers A (127.0.0.1), B (127.0.0.2), C (127.0.0.3) and D (127.0.0.4), the provider
// (localhost). Permission: Chromium's own storage-access setting as the person's answer to a prompt stores it
// (a content-setting exception in the profile's Preferences): granted for A and B, refused for D, none for C.
// The DevTools protocol's Browser.setPermission is measured too, and is not a usable grant. Gestures: only
// the real clicks of h.clickToRequest; every other call into a frame carries none (h.saa).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as h from './harness.mjs';
import { serveSites } from './server.mjs';

/** What the provider asks for: every storage an engine could use, and no cookies. */
const TYPES = { indexedDB: true, caches: true, getDirectory: true, locks: true, BroadcastChannel: true, SharedWorker: true, estimate: true };
const NOT_ALLOWED = { ok: false, error: 'NotAllowedError: requestStorageAccess not allowed' };
const HANDLE = { ok: true, handle: '[object StorageAccessHandle]' };
/** The same outcomes of a call made with no transient activation (requestWithoutActivation says so). */
const NOT_ALLOWED_NO_GESTURE = { ...NOT_ALLOWED, activeAtCall: false };
const HANDLE_NO_GESTURE = { ...HANDLE, activeAtCall: false };
const EMPTY = { idb: null, cache: null, opfs: null };
const all = (token) => ({ idb: token, cache: token, opfs: token });
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
/** A WebGPU device on SwiftShader (test/chromium-flags.json's --enable-unsafe-webgpu --enable-unsafe-swiftshader). */
const GPU = /^device \(/;

/** The consumer page at `site` embedding the provider page (`frameQuery` on the provider's URL). */
function consumerUrl(origins, site, { query = '', frameQuery = '' } = {}) {
  return `${origins[site]}/consumer.html?provider=${encodeURIComponent(`${origins.provider}/provider.html${frameQuery}`)}${query}`;
}

describe("third-party cookies blocked (this Chromium's default profile); storage access granted to A and B, refused to D", () => {
  let sites;
  let run;
  let o;
  let A, B, C, D, T;

  before(
    async () => {
      sites = await serveSites();
      o = sites.origins;
      run = await h.launch(h.storageAccessGrants(o.provider, [o.consumerA, o.consumerB], [o.consumerD]));
      // The provider's top level (T) opens later: C asks once before any top-level visit to the provider.
      [A, B, C, D] = await Promise.all([
        h.openConsumer(run.browser, consumerUrl(o, 'consumerA'), o.provider),
        h.openConsumer(run.browser, consumerUrl(o, 'consumerB', { query: '&sw=1' }), o.provider),
        h.openConsumer(run.browser, consumerUrl(o, 'consumerC'), o.provider),
        h.openConsumer(run.browser, consumerUrl(o, 'consumerD'), o.provider),
      ]);
    },
    { timeout: 90_000 },
  );

  after(async () => {
    await run?.close();
    await sites?.close();
  });

  test('the browser is Chromium 125 or later (the non-cookie extension shipped in 125)', async (t) => {
    const version = await run.browser.version();
    t.diagnostic(version);
    assert.match(version, /^(Headless)?Chrome\/\d+\./);
    assert.ok(Number(version.split('/')[1].split('.')[0]) >= 125, 'StorageAccessHandle shipped in Chromium 125');
    assert.equal(await h.evaluateWithoutGesture(A.frame, 'typeof document.requestStorageAccess'), 'function');
  });

  test("without the handle, the provider frame's storage is partitioned per top-level site", async () => {
    assert.deepEqual(await h.saa(A.frame, 'write', 'plain', 'A-partitioned'), all('ok'));
    assert.deepEqual(await h.saa(A.frame, 'read', 'plain'), all('A-partitioned'));
    assert.deepEqual(await h.saa(B.frame, 'read', 'plain'), EMPTY);
  });

  test('permissions.query says granted (A), and prompt both for never asked (C) and refused (D)', async () => {
    assert.equal(await h.saa(A.frame, 'permission'), 'granted');
    assert.equal(await h.saa(C.frame, 'permission'), 'prompt');
    // A refusal is not told to the frame: it reads as 'prompt'.
    assert.equal(await h.saa(D.frame, 'permission'), 'prompt');
  });

  test('without a grant, requestStorageAccess(types) rejects with NotAllowedError, with a click or without', async () => {
    assert.deepEqual(await h.clickToRequest(D.frame, TYPES), NOT_ALLOWED);
    assert.equal(await h.saa(C.frame, 'hasStorageAccess'), false);
    assert.deepEqual(await h.saa(C.frame, 'requestWithoutActivation', TYPES), NOT_ALLOWED_NO_GESTURE);
    assert.deepEqual(await h.clickToRequest(C.frame, TYPES), NOT_ALLOWED);
    // After a top-level visit to the provider (with a click on it) the call still rejects: headless Chromium
    // answers the prompt with a refusal, which it stores (last test of this suite).
    T = await h.openProvider(run.browser, `${o.provider}/provider.html`);
    assert.deepEqual(await h.saa(T.frame, 'read', 'plain'), EMPTY, "the top level does not see the frame's partition");
    await h.clickToRequest(T.frame, TYPES);
    assert.deepEqual(await h.clickToRequest(C.frame, TYPES), NOT_ALLOWED);
  });

  test('with a grant, the handle comes without a user gesture; cookies stay blocked (hasStorageAccess false)', async () => {
    assert.equal(await h.saa(A.frame, 'hasStorageAccess'), false);
    assert.deepEqual(await h.saa(A.frame, 'requestWithoutActivation', TYPES), HANDLE_NO_GESTURE);
    assert.deepEqual(await h.clickToRequest(B.frame, TYPES), HANDLE);
    assert.equal(await h.saa(A.frame, 'hasStorageAccess'), false);
  });

  test("a handle's getter for a type not asked for throws SecurityError", async () => {
    const error = await h.evaluateWithoutGesture(
      B.frame,
      `document.requestStorageAccess({ indexedDB: true }).then((narrow) => { try { return narrow.caches && 'no error'; } catch (err) { return err.name; } })`,
    );
    assert.equal(error, 'SecurityError');
  });

  test("IndexedDB, Cache Storage and OPFS through the handle are the provider's first-party ones", async () => {
    assert.deepEqual(await h.saa(A.frame, 'write', 'handle', 'A-handle'), all('ok'));
    assert.deepEqual(await h.saa(B.frame, 'read', 'handle'), all('A-handle'));
    assert.deepEqual(await h.saa(T.frame, 'read', 'plain'), all('A-handle'));
    // The frame's own globals stay partitioned next to the handle.
    assert.deepEqual(await h.saa(B.frame, 'read', 'plain'), EMPTY);
    assert.deepEqual(await h.saa(A.frame, 'read', 'plain'), all('A-partitioned'));
  });

  test("Web Locks and BroadcastChannel through the handle reach the other site's frame and the top level", async () => {
    assert.equal(await h.saa(A.frame, 'hold', 'handle', 'saa-lock'), 'held');
    assert.deepEqual(await h.saa(B.frame, 'heldLocks', 'handle'), ['saa-lock']);
    assert.deepEqual(await h.saa(T.frame, 'heldLocks', 'plain'), ['saa-lock']);
    assert.deepEqual(await h.saa(B.frame, 'heldLocks', 'plain'), []);
    await h.saa(B.frame, 'listen', 'handle', 'saa-bc');
    await h.saa(B.frame, 'listen', 'plain', 'saa-bc');
    await h.saa(T.frame, 'listen', 'plain', 'saa-bc');
    await h.saa(A.frame, 'broadcast', 'handle', 'saa-bc', 'via handle');
    await h.saa(A.frame, 'broadcast', 'plain', 'saa-bc', 'partitioned');
    await sleep(300);
    assert.deepEqual(await h.saa(B.frame, 'heard', 'handle', 'saa-bc'), ['via handle']);
    assert.deepEqual(await h.saa(T.frame, 'heard', 'plain', 'saa-bc'), ['via handle']);
    assert.deepEqual(await h.saa(B.frame, 'heard', 'plain', 'saa-bc'), []);
  });

  test('a dedicated worker of the frame is partitioned, but an OPFS directory from the handle works in it', async () => {
    assert.deepEqual(await h.saa(A.frame, 'dedicated', { op: 'read' }), all('A-partitioned'));
    assert.equal(await h.saa(A.frame, 'dedicatedWithHandleDir', { op: 'readDir' }), 'A-handle');
    assert.equal(await h.saa(A.frame, 'dedicatedWithHandleDir', { op: 'readDirSync' }), 'A-handle');
    assert.equal(await h.saa(A.frame, 'dedicatedWithHandleDir', { op: 'writeDir', token: 'A-worker' }), 'ok');
    assert.equal((await h.saa(B.frame, 'read', 'handle')).opfs, 'A-worker');
    assert.equal(await h.saa(A.frame, 'dedicatedWithHandleDir', { op: 'writeDir', token: 'A-handle' }), 'ok');
  });

  test("the handle's SharedWorker is one worker for every site's frame and the top level, with first-party storage", async () => {
    assert.equal(await h.saa(A.frame, 'shared', 'handle', { op: 'connections' }), 1);
    assert.equal(await h.saa(B.frame, 'shared', 'handle', { op: 'connections' }), 2);
    // The top level joins it only with sameSiteCookies 'none' (its default, 'all', is another worker).
    assert.equal(await h.saa(T.frame, 'shared', 'plain', { op: 'connections' }, { name: 'engine', sameSiteCookies: 'none' }), 3);
    const top2 = await h.openProvider(run.browser, `${o.provider}/provider.html`);
    assert.equal(await h.saa(top2.frame, 'shared', 'plain', { op: 'connections' }, { name: 'engine' }), 1);
    await top2.page.close();
    assert.deepEqual(await h.saa(B.frame, 'shared', 'handle', { op: 'read' }), all('A-handle'));
    assert.deepEqual(await h.saa(B.frame, 'shared', 'handle', { op: 'locks' }), ['saa-lock']);
    // Without a grant, the frame's own SharedWorker is partitioned.
    assert.deepEqual(await h.saa(C.frame, 'shared', 'plain', { op: 'read' }), EMPTY);
  });

  test('a MessagePort onto the SharedWorker passes frame → consumer page → consumer service worker, and works', async () => {
    assert.equal(await h.saa(B.frame, 'offerPort'), 'adopted');
    await B.page.waitForFunction(() => window.consumer.hasPort(), { timeout: 5000 });
    const answer = await B.page.evaluate(() => window.consumer.throughServiceWorker({ op: 'read' }));
    assert.deepEqual(answer, { from: 'consumer service worker', answer: { id: 1, result: all('A-handle') } });
  });

  test('WebGPU gives a device in the cross-site frame (no allow attribute), its dedicated worker and the SharedWorker', async () => {
    assert.match((await h.saa(A.frame, 'env')).gpu, GPU);
    assert.match((await h.saa(A.frame, 'dedicated', { op: 'env' })).gpu, GPU);
    assert.match((await h.saa(B.frame, 'shared', 'handle', { op: 'env' })).gpu, GPU);
  });

  test('isolation: COEP frame with allow="cross-origin-isolated" is isolated with the handle; the SharedWorker never is', async () => {
    const I = await h.openConsumer(
      run.browser,
      consumerUrl(o, 'consumerA', { query: '&coep=1&sw=1&allow=cross-origin-isolated', frameQuery: '?coep=1' }),
      o.provider,
    );
    assert.equal(await I.page.evaluate(() => crossOriginIsolated), true);
    const frame = await h.saa(I.frame, 'env');
    assert.deepEqual([frame.crossOriginIsolated, frame.sharedMemory], [true, true]);
    assert.deepEqual(await h.saa(I.frame, 'requestNow', TYPES), HANDLE);
    assert.deepEqual(await h.saa(I.frame, 'read', 'handle'), all('A-handle'));
    const dedicated = await h.saa(I.frame, 'dedicated', { op: 'env' });
    assert.deepEqual([dedicated.crossOriginIsolated, dedicated.sharedMemory], [true, true]);
    assert.match(dedicated.gpu, GPU);
    // The isolated dedicated worker keeps the handle's OPFS directory and answers the consumer's service worker.
    assert.equal(await h.saa(I.frame, 'dedicatedWithHandleDir', { op: 'keepDir' }), 'kept');
    assert.equal(await h.saa(I.frame, 'offerPort', 'dedicated'), 'adopted');
    await I.page.waitForFunction(() => window.consumer.hasPort(), { timeout: 5000 });
    const answer = await I.page.evaluate(() => window.consumer.throughServiceWorker({ op: 'readKeptDirSync' }));
    assert.deepEqual(answer, { from: 'consumer service worker', answer: { id: 1, result: 'A-handle' } });
    // Its script has COEP require-corp too; Chromium gives shared workers no cross-origin isolation.
    const shared = await h.saa(I.frame, 'shared', 'handle', { op: 'env' });
    assert.deepEqual([shared.crossOriginIsolated, shared.sharedMemory], [false, false]);
    await I.page.close();
    // The same frame without allow="cross-origin-isolated" is not isolated.
    const N = await h.openConsumer(run.browser, consumerUrl(o, 'consumerA', { query: '&coep=1', frameQuery: '?coep=1' }), o.provider);
    const plain = await h.saa(N.frame, 'env');
    assert.deepEqual([plain.crossOriginIsolated, plain.sharedMemory], [false, false]);
    await N.page.close();
  });

  test('a credentialless iframe is isolated without COEP of its own, but requestStorageAccess is refused there', async () => {
    const L = await h.openConsumer(run.browser, consumerUrl(o, 'consumerA', { query: '&coep=1&credentialless=1&allow=cross-origin-isolated' }), o.provider);
    const env = await h.saa(L.frame, 'env');
    assert.deepEqual([env.crossOriginIsolated, env.sharedMemory], [true, true]);
    assert.deepEqual(await h.saa(L.frame, 'requestNow', TYPES), NOT_ALLOWED);
    assert.deepEqual(await h.clickToRequest(L.frame, TYPES), NOT_ALLOWED);
    assert.deepEqual(await h.saa(L.frame, 'read', 'plain'), EMPTY);
    await L.page.close();
  });

  test("revoking A's grant in site settings leaves the live handle working; only a new document is refused", async () => {
    await h.revokeStorageAccess(run.browser, o.consumerA, o.provider);
    assert.equal(await h.saa(A.frame, 'permission'), 'prompt');
    // The handle A's frame holds still reads and writes first-party storage, and asking again in that document
    // still resolves.
    assert.deepEqual(await h.saa(A.frame, 'write', 'handle', 'after-revoke'), all('ok'));
    assert.deepEqual(await h.saa(B.frame, 'read', 'handle'), all('after-revoke'));
    assert.deepEqual(await h.saa(A.frame, 'requestNow', TYPES), HANDLE);
    // A new provider document on A is refused.
    const again = await h.openConsumer(run.browser, consumerUrl(o, 'consumerA'), o.provider);
    assert.deepEqual(await h.saa(again.frame, 'requestWithoutActivation', TYPES), NOT_ALLOWED_NO_GESTURE);
    await again.page.close();
  });

  test("Browser.setPermission(storage-access) is no grant: the promise resolves, then the browser kills the frame's renderer", async () => {
    await h.setStorageAccess(run.cdp, 'granted', o.consumerC, o.provider);
    await h.saa(C.frame, 'startTicks');
    await sleep(300);
    assert.ok((await C.page.evaluate(() => window.consumer.ticks())) > 0, 'the frame ticks before');
    // Resolved in the renderer; binding the handle's interface then fails the browser's check ("Binding a
    // StorageAccessHandle requires third-party cookie access and an unrestricted frame context": a bad Mojo
    // message), which terminates the renderer process of the frame.
    assert.deepEqual(await h.saa(C.frame, 'requestNow', TYPES), HANDLE);
    await sleep(700);
    const before = await C.page.evaluate(() => window.consumer.ticks());
    await sleep(700);
    assert.equal(await C.page.evaluate(() => window.consumer.ticks()), before, 'the frame stopped running');
  });

  test('the refusal after the top-level visit is stored for 30 days, like the person\'s "block" (closes the browser)', async (t) => {
    const stored = (await run.storedExceptions()).storage_access ?? {};
    t.diagnostic(`stored: ${Object.keys(stored).join(' ')}`);
    // Chromium keys it by site: scheme and host, any port; a domain with its subdomains as [*.] (https).
    const site = (origin) => new URL(origin).hostname;
    const key = (top) => Object.keys(stored).find((k) => k.includes(site(o.provider)) && k.split(',')[1]?.endsWith(site(o[top])));
    assert.equal(stored[key('consumerC')]?.setting, 2);
    assert.equal(stored[key('consumerC')]?.lifetime, String(30 * 24 * 3600 * 1e6), '30 days in microseconds');
    // The settings the profile started with are still there, but A's, revoked above.
    assert.deepEqual([stored[key('consumerA')]?.setting, stored[key('consumerB')]?.setting, stored[key('consumerD')]?.setting], [undefined, 1, 2]);
  });
});

describe('no top-level visit to the provider: a click in the frame stores nothing', () => {
  let sites;
  let run;

  before(
    async () => {
      sites = await serveSites();
      run = await h.launch({});
    },
    { timeout: 90_000 },
  );

  after(async () => {
    await run?.close();
    await sites?.close();
  });

  test('requestStorageAccess rejects and Chromium keeps no decision for the pair', async () => {
    const o = sites.origins;
    const C = await h.openConsumer(run.browser, consumerUrl(o, 'consumerC'), o.provider);
    assert.deepEqual(await h.clickToRequest(C.frame, TYPES), NOT_ALLOWED);
    assert.deepEqual(await h.clickToRequest(C.frame, TYPES), NOT_ALLOWED);
    assert.deepEqual((await run.storedExceptions()).storage_access ?? {}, {});
  });
});

describe('third-party cookies allowed in the profile, no storage-access grant', () => {
  let sites;
  let run;
  let o;

  before(
    async () => {
      sites = await serveSites();
      o = sites.origins;
      run = await h.launch(h.THIRD_PARTY_COOKIES_ALLOWED);
    },
    { timeout: 90_000 },
  );

  after(async () => {
    await run?.close();
    await sites?.close();
  });

  test('storage is still partitioned, but requestStorageAccess(types) gives the handle without gesture or prompt', async () => {
    const [A, B] = await Promise.all([
      h.openConsumer(run.browser, consumerUrl(o, 'consumerA'), o.provider),
      h.openConsumer(run.browser, consumerUrl(o, 'consumerB'), o.provider),
    ]);
    assert.deepEqual(await h.saa(A.frame, 'write', 'plain', 'A-partitioned'), all('ok'));
    assert.deepEqual(await h.saa(B.frame, 'read', 'plain'), EMPTY);
    assert.equal(await h.saa(A.frame, 'hasStorageAccess'), true);
    assert.deepEqual(await h.saa(A.frame, 'requestWithoutActivation', TYPES), HANDLE_NO_GESTURE);
    assert.deepEqual(await h.saa(B.frame, 'requestWithoutActivation', TYPES), HANDLE_NO_GESTURE);
    assert.deepEqual(await h.saa(A.frame, 'write', 'handle', 'A-handle'), all('ok'));
    assert.deepEqual(await h.saa(B.frame, 'read', 'handle'), all('A-handle'));
  });
});
