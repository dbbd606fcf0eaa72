// After one visit the app works with no network at all: the page, the engine worker and /v1. A new app
// version takes over without breaking a stream that is in progress.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { auth, call, chat, makeKey, openApp, sseEvents } from './helpers';
import { serveStatic, TEST_BUILD_DIR } from './static-server';
import { VARIANT_IDS } from '#shared/variants';

test('offline reload: the page, the engine worker and /v1 all answer from the precache', async ({ page, context }) => {
  // An origin of our own, so the network can really go away: the server is closed and the context offline.
  const server = await serveStatic(4576, { '/': TEST_BUILD_DIR });
  try {
    await openApp(page, `${server.origin}/?tokenDelayMs=1`);
    const key = await makeKey(page);
    expect((await chat(page, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'online' }] })).status).toBe(200);
    // The first visit's service worker precached the shell while installing, before it took control.
    const precached = await page.evaluate(async () => {
      const names = await caches.keys();
      const urls: string[] = [];
      for (const name of names) for (const req of await (await caches.open(name)).keys()) urls.push(new URL(req.url).pathname);
      return urls;
    });
    expect(precached).toContain('/index.html');
    expect(precached.some((p) => /^\/assets\/engine-worker-.+\.js$/.test(p))).toBe(true);
  } finally {
    await server.close();
  }
  await context.setOffline(true);

  const reloaded = await page.reload();
  expect(reloaded?.fromServiceWorker()).toBe(true);
  await page.evaluate(async () => void (await window.inpageReady));
  const engineHosted = await page.evaluate(() => window.inpage?.engine !== null);
  expect(engineHosted).toBe(true);

  const key = await makeKey(page, { name: 'offline key' });
  const answer = await chat(page, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'no network' }] });
  expect(answer.status).toBe(200);
  expect(answer.json).toMatchObject({ choices: [{ message: { content: 'Echo: no network' } }] });

  const streamed = await chat(page, key, { model: 'svc-model-5.2', messages: [{ role: 'user', content: 'count 3' }], stream: true });
  expect(streamed.status).toBe(200);
  expect(sseEvents(streamed.text).at(-1)).toBe('[DONE]');

  const models = await call(page, '/v1/models', { headers: auth(key) });
  expect(models.status).toBe(200);
  // The five chat variants and svc-embed: the key made here reaches them all.
  expect((models.json as { data: { id: string }[] }).data.map((m) => m.id).sort()).toEqual([...VARIANT_IDS].sort());

  // A page with other query parameters is the same shell.
  const other = await page.goto(page.url().replace(/\?.*$/, '?engine=off'));
  expect(other?.fromServiceWorker()).toBe(true);
  expect(await page.evaluate(async () => (await window.inpageReady)?.baseURL)).toMatch(/\/v1$/);
});

test('a new app version activates without breaking a stream in progress; the next request works', async ({ page }) => {
  const server = await serveStatic(4577, { '/': TEST_BUILD_DIR });
  try {
    await openApp(page, `${server.origin}/?tokenDelayMs=5`);
    const key = await makeKey(page);

    // A long stream: 600 tokens at 5 ms each.
    await page.evaluate((key) => {
      const w = window as unknown as { streamText: Promise<string>; streamChunks: number; controllerChanges: number };
      w.streamChunks = 0;
      w.controllerChanges = 0;
      navigator.serviceWorker.addEventListener('controllerchange', () => w.controllerChanges++);
      w.streamText = (async () => {
        const res = await fetch('/v1/chat/completions', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'count 600' }], stream: true }),
        });
        const reader = res.body!.getReader();
        const decoder = new TextDecoder();
        let text = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return text;
          text += decoder.decode(value, { stream: true });
          w.streamChunks = text.split('\n\n').length;
        }
      })();
    }, key);
    await page.waitForFunction(() => (window as unknown as { streamChunks: number }).streamChunks > 20);

    // Deploy: a changed sw.js, found by the browser's update check.
    const original = await readFile(join(TEST_BUILD_DIR, 'sw.js'), 'utf8');
    server.override('/sw.js', `${original}\n// version 2\n`);
    // Polled: an update check still in flight (the page's own register() after its isolation reload, which readiness
    // does not wait for) read the old script, and an update() asked meanwhile joins it.
    const updating = () =>
      page.evaluate(async () => {
        const registration = await navigator.serviceWorker.getRegistration('/');
        await registration!.update();
        return registration!.installing !== null || registration!.waiting !== null || registration!.active?.state === 'activating';
      });
    await expect.poll(updating, { timeout: 10_000 }).toBe(true);

    const text = await page.evaluate(() => (window as unknown as { streamText: Promise<string> }).streamText);
    const events = sseEvents(text);
    expect(events.at(-1)).toBe('[DONE]');
    const content = events
      .slice(0, -1)
      .map((e) => (JSON.parse(e) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '')
      .join('');
    expect(content).toBe(Array.from({ length: 600 }, (_, i) => String(i + 1)).join(' '));

    // The new version is in control, has an engine port again, and answers.
    await page.waitForFunction(() => (window as unknown as { controllerChanges: number }).controllerChanges > 0, null, { timeout: 20_000 });
    const after = await chat(page, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'after the update' }] });
    expect(after.status).toBe(200);
    expect(after.json).toMatchObject({ choices: [{ message: { content: 'Echo: after the update' } }] });
    const served = server.requests.filter((r) => r === '/sw.js').length;
    expect(served).toBeGreaterThanOrEqual(2);
  } finally {
    await server.close();
  }
});
