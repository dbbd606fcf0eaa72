// Faults from outside the service: the service worker stopped mid-stream, the engine worker killed
// mid-generation, IndexedDB blocked by another connection, storage quota exhausted. Each time the caller
// gets a clear error or a terminated stream (never a hang), the next request works, and the keys and
// settings are as they were.
import { expect, test, type Page } from '@playwright/test';
import { auth, call, chat, deployConfig, makeKey, openApp, stopServiceWorker } from './helpers';

const long = { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'count 100000' }], stream: true };
const hi = (content: string) => ({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content }] });

declare global {
  interface Window {
    /** The stream a test started, kept in the page between steps. */
    __stream?: { reader: ReadableStreamDefaultReader<Uint8Array>; text: string };
    __blocker?: { release(): void; released: Promise<void> };
  }
}

/** Starts a long stream in the page and reads `events` SSE events of it; the reader stays on `window.__stream`. */
async function startStream(page: Page, key: string, events: number, content = 'count 100000'): Promise<string> {
  return page.evaluate(
    async ({ key, body, events }) => {
      const res = await fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      while (text.split('\n\n').length <= events) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      window.__stream = { reader, text };
      return text;
    },
    { key, body: { ...long, messages: [{ role: 'user', content }] }, events },
  );
}

/** Reads the started stream to its end: how it ended, and the last of its text. */
async function finishStream(page: Page): Promise<{ ended: 'done' | 'error'; error?: string; tail: string; text: string }> {
  return page.evaluate(async () => {
    const s = window.__stream!;
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { value, done } = await s.reader.read();
        if (done) break;
        s.text += decoder.decode(value, { stream: true });
      }
      return { ended: 'done' as const, tail: s.text.slice(-600), text: s.text };
    } catch (err) {
      return { ended: 'error' as const, error: String(err), tail: s.text.slice(-600), text: s.text };
    }
  });
}

/** Writes a setting straight into the app's database, and reads it back. */
const putSetting = (page: Page, value: unknown) =>
  page.evaluate(async (value) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open('inpage');
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    await new Promise<void>((resolve, reject) => {
      const tx = db.transaction('settings', 'readwrite');
      tx.objectStore('settings').put(value, 'fault-test');
      tx.oncomplete = () => resolve();
      tx.onerror = tx.onabort = () => reject(tx.error);
    });
    db.close();
  }, value);

const readState = (page: Page) =>
  page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open('inpage');
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const get = <T>(store: string, key?: string) =>
      new Promise<T>((resolve, reject) => {
        const req = key === undefined ? db.transaction(store).objectStore(store).getAll() : db.transaction(store).objectStore(store).get(key);
        req.onsuccess = () => resolve(req.result as T);
        req.onerror = () => reject(req.error);
      });
    const keys = await get<{ id: string; name: string; hash: string; revokedAt: number | null }[]>('keys');
    const setting = await get<unknown>('settings', 'fault-test');
    const workspace = await get<{ orgId: string }>('workspace', 'current');
    db.close();
    return {
      version: db.version,
      keys: keys.map((k) => ({ id: k.id, name: k.name, hash: k.hash, revokedAt: k.revokedAt })).sort((a, b) => a.id.localeCompare(b.id)),
      setting,
      orgId: workspace.orgId,
    };
  });

test('the service worker stopped mid-stream: the stream ends as a network error, the next request works', async ({ page }) => {
  await openApp(page, '/?tokenDelayMs=2');
  const key = await makeKey(page);
  await putSetting(page, { theme: 'dark' });
  const before = await readState(page);
  // A short generation: see the next test for what happens to the rest of a long one.
  const read = await startStream(page, key, 5, 'count 300');
  expect(read).toContain('"content":"1"');
  await stopServiceWorker(page);

  // The body ends (a network error, as a dropped connection) instead of hanging; it never claims completion.
  const end = await finishStream(page);
  expect(end.ended).toBe('error');
  expect(end.text).not.toContain('[DONE]');

  const next = await chat(page, key, hi('after the stop'));
  expect(next.status, next.text).toBe(200);
  expect((next.json as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe('Echo: after the stop');
  expect(await readState(page)).toEqual(before);
});

test('the service worker stopped mid-stream: its generation stops too, so the next request is not held behind it', async ({ page }) => {
  // Chromium fires no MessagePort `close` when the service worker at the other end of a port is stopped; the
  // engine learns it from a Web Lock each service worker instance holds for its life and names over the port
  // (`watch`), and abandons that port's generations. Without that, this orphan (100,000 tokens at 2 ms,
  // minutes) would hold the queue. docs/contract.md: "A client that aborts its fetch stops the generation."
  test.setTimeout(30_000);
  await openApp(page, '/?tokenDelayMs=2');
  const key = await makeKey(page);
  await startStream(page, key, 5, 'count 100000');
  await stopServiceWorker(page);
  expect((await finishStream(page)).ended).toBe('error');
  // Served at once when the engine is free; 10 s (the generation would need minutes) tells a request held
  // behind the orphan from one being served.
  const next = await page.evaluate(async (key) => {
    const res = fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'not behind a ghost' }] }),
    }).then((r) => r.status);
    return Promise.race([res, new Promise<string>((resolve) => setTimeout(() => resolve('still waiting after 10 s'), 10_000))]);
  }, key);
  expect(next).toBe(200);
});

test('the engine worker killed mid-generation: the stream ends with an in-band error and [DONE], the next request works', async ({ page }) => {
  // Heartbeat off: the host learns of the death from the worker's life lock alone.
  await deployConfig(page.context(), { engineHeartbeatMs: 0 });
  await openApp(page, '/?tokenDelayMs=2');
  const key = await makeKey(page);
  const before = await readState(page);
  await startStream(page, key, 5);
  await page.evaluate(() => window.inpage!.engine!.worker!.terminate());

  const end = await finishStream(page);
  expect(end.ended, end.error).toBe('done');
  expect(end.text.endsWith('data: [DONE]\n\n')).toBe(true);
  const events = end.text.split('\n\n').filter(Boolean);
  const error = JSON.parse(events.at(-2)!.slice('data: '.length)) as { error: { code: string; type: string; message: string } };
  expect(error.error).toMatchObject({ code: 'engine_unavailable', type: 'server_error' });
  expect(error.error.message.length).toBeGreaterThan(10);

  // The host replaces the dead worker; the next request is served by the new one (a caller may be told 503
  // engine_unavailable while the replacement starts, and retries as any client of an HTTP API would).
  let next = await chat(page, key, hi('a new engine'));
  for (let attempt = 0; next.status === 503 && attempt < 40; attempt++) {
    expect((next.json as { error: { code: string } }).error.code).toBe('engine_unavailable');
    await page.waitForTimeout(250);
    next = await chat(page, key, hi('a new engine'));
  }
  expect(next.status, next.text).toBe(200);
  expect((next.json as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe('Echo: a new engine');
  expect(await page.evaluate(() => window.inpage!.engine!.restarts)).toBe(1);
  expect(await readState(page)).toEqual(before);
});

test('an engine worker that hangs is replaced after missed heartbeats; the next request works', async ({ page }) => {
  await deployConfig(page.context(), { engineHeartbeatMs: 200 });
  await openApp(page);
  const key = await makeKey(page);
  expect((await chat(page, key, hi('before the hang'))).status).toBe(200);
  const engineWorker = page.workers().find((w) => w.url().includes('engine-worker'));
  expect(engineWorker).toBeDefined();
  // Alive (its locks held) but never answering again.
  void engineWorker!
    .evaluate(() => {
      for (;;);
    })
    .catch(() => undefined);
  await expect.poll(() => page.evaluate(() => window.inpage!.engine!.restarts), { timeout: 10_000 }).toBe(1);
  let next = await chat(page, key, hi('after the hang'));
  for (let attempt = 0; next.status === 503 && attempt < 40; attempt++) {
    await page.waitForTimeout(250);
    next = await chat(page, key, hi('after the hang'));
  }
  expect(next.status, next.text).toBe(200);
  expect((next.json as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe('Echo: after the hang');
});

test('IndexedDB blocked by another connection: requests fail with a clear error instead of hanging, then recover', async ({ page }) => {
  await openApp(page);
  const used = await makeKey(page, { name: 'used' });
  const fresh = await makeKey(page, { name: 'fresh' });
  await putSetting(page, { kept: true });
  expect((await chat(page, used, hi('before'))).status).toBe(200);
  const before = await readState(page);

  // Another connection asks for version 2 and holds its upgrade open: every other open of the database waits.
  await page.evaluate(async () => {
    window.__blocker = await new Promise((resolve, reject) => {
      const req = indexedDB.open('inpage', 2);
      let stop = false;
      let released!: () => void;
      const done = new Promise<void>((r) => (released = r));
      req.onupgradeneeded = () => {
        const tx = req.transaction!;
        const spin = () => {
          if (stop) {
            tx.abort();
            return;
          }
          tx.objectStore('keys').count().onsuccess = spin;
        };
        spin();
        resolve({ release: () => void (stop = true), released: done });
      };
      req.onerror = () => released();
      req.onsuccess = () => reject(new Error('the upgrade was not supposed to finish'));
    });
  });

  // A key the service worker has not verified yet must be read from IndexedDB: a clear 500, not a hang.
  const blocked = await chat(page, fresh, hi('while blocked'));
  expect(blocked.status, blocked.text).toBe(500);
  expect(blocked.json).toEqual({ error: { message: expect.stringContaining('IndexedDB'), type: 'server_error', param: null, code: 'internal_error' } });
  const models = await call(page, '/v1/models', { headers: auth(fresh) });
  expect(models.status).toBe(500);
  expect((models.json as { error: { message: string } }).error.message).toContain('IndexedDB');
  // The full key never appears in the error.
  expect(blocked.text).not.toContain(fresh);

  await page.evaluate(async () => {
    window.__blocker!.release();
    await window.__blocker!.released;
  });
  const after = await chat(page, fresh, hi('unblocked'));
  expect(after.status, after.text).toBe(200);
  expect((await chat(page, used, hi('and the other'))).status).toBe(200);
  const state = await readState(page);
  expect(state.version).toBe(1);
  expect(state.keys).toEqual(before.keys);
  expect(state.setting).toEqual({ kept: true });
  expect(state.orgId).toBe(before.orgId);
});

test('storage quota exhausted: writes fail with a clear error, /v1 keeps answering, nothing is lost', async ({ page }) => {
  await openApp(page);
  const key = await makeKey(page, { name: 'before the squeeze' });
  await putSetting(page, { kept: 1 });
  const before = await readState(page);
  const origin = new URL(page.url()).origin;
  const cdp = await page.context().newCDPSession(page);
  // Whatever the origin uses now is over this quota: every write that needs space is refused.
  await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 1 });

  const refused = await page.evaluate(async () => {
    const tryIt = async (f: () => Promise<unknown>) =>
      f().then(
        () => 'ok',
        (e: unknown) => (e instanceof Error || e instanceof DOMException ? `${e.name}: ${e.message}` : String(e)),
      );
    const api = window.inpage!;
    return {
      createKey: await tryIt(() => api.keys.create({ name: 'during the squeeze' })),
      // Caching a response as the app shell's precache or a model download would.
      cache: await tryIt(async () => {
        const cache = await caches.open('quota-test');
        await cache.put('/quota-test', new Response(new Uint8Array(1024 * 1024)));
      }),
    };
  });
  // Caching is refused with the browser's QuotaExceededError. Chromium lets IndexedDB writes as small as a
  // key record through even over quota; if it refuses one, the error must be as clear.
  expect(refused.cache).toMatch(/^QuotaExceededError/);
  expect(refused.createKey).toMatch(/^(ok|QuotaExceededError.*)$/);

  // The service answers (booking a key's use may fail, an answer never does), streams included.
  const json = await chat(page, key, hi('squeezed'));
  expect(json.status, json.text).toBe(200);
  const streamed = await chat(page, key, { ...hi('squeezed'), stream: true });
  expect(streamed.status).toBe(200);
  expect(streamed.text.endsWith('data: [DONE]\n\n')).toBe(true);

  await cdp.send('Storage.overrideQuotaForOrigin', { origin });
  const state = await readState(page);
  expect(state.keys.filter((k) => k.name !== 'during the squeeze')).toEqual(before.keys);
  expect(state.setting).toEqual({ kept: 1 });
  // With room again, writes work and nothing half-written is left behind.
  const made = await page.evaluate(async () => (await window.inpage!.keys.create({ name: 'after the squeeze' })).record.name);
  expect(made).toBe('after the squeeze');
  const names = (await readState(page)).keys.map((k) => k.name).sort();
  expect(names).toEqual(
    refused.createKey === 'ok' ? ['after the squeeze', 'before the squeeze', 'during the squeeze'] : ['after the squeeze', 'before the squeeze'],
  );
  expect((await chat(page, key, hi('roomy'))).status).toBe(200);
});

test('a first visit with no storage room: a clear error instead of starting forever, and it works once there is room', async ({ page, baseURL }) => {
  const origin = new URL(baseURL!).origin;
  const cdp = await page.context().newCDPSession(page);
  // No room at all: the service worker's install, which stores the app's files for offline use, is refused.
  await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 1 });
  await page.goto('/');
  const outcome = await page.evaluate(() =>
    window.inpageReady!.then(
      () => 'ready',
      (err: unknown) => `failed: ${err instanceof Error ? err.message : String(err)}`,
    ),
  );
  if (outcome === 'ready') {
    // A service worker that installs without its offline copy is as good: then /v1 must work.
    const key = await makeKey(page);
    expect((await chat(page, key, hi('no room'))).status).toBe(200);
  } else {
    expect(outcome).toMatch(/^failed: The service worker could not be installed.*storage/);
    // The page says so, rather than "Starting…".
    await expect(page.getByText(/could not be installed/)).toBeVisible();
  }

  await cdp.send('Storage.overrideQuotaForOrigin', { origin });
  await openApp(page);
  const key = await makeKey(page);
  const answer = await chat(page, key, hi('room again'));
  expect(answer.status).toBe(200);
  expect((answer.json as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe('Echo: room again');
});
