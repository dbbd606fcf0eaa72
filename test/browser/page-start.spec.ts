// Page start off the engine's critical path: the workspace is usable while the engine worker cannot load
// (its script blocked), and the engine comes up once it can.
import { expect, test } from '@playwright/test';
import { chat } from './helpers';

test('the page is usable while the engine worker script is blocked, and the engine connects once it loads', async ({ page, context }) => {
  let blocked = false;
  let aborted = 0;
  // The engine worker's script, from wherever it is fetched (the page, or the service worker serving it).
  await context.route(/engine-worker[^/]*\.js(\?|$)/, async (route) => {
    if (!blocked) return route.continue();
    aborted++;
    return route.abort();
  });
  const warnings: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'warning') warnings.push(m.text());
  });
  // A first visit installs the service worker (which precaches the app); then the script leaves the precache
  // and the network refuses it, as when the app's files were evicted and the network is down.
  await page.goto('/');
  await page.evaluate(async () => {
    await window.inpageReady;
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      for (const request of await cache.keys()) if (/engine-worker/.test(request.url)) await cache.delete(request);
    }
  });
  blocked = true;
  await page.reload();
  // Usable: the first real screen of the workspace, with the engine not there.
  await expect(page.getByRole('heading', { name: 'Create your local workspace' })).toBeVisible({ timeout: 30_000 });
  await expect.poll(() => aborted, { timeout: 30_000 }).toBeGreaterThan(0);
  expect(await page.evaluate(() => window.inpage?.engine ?? null)).toBeNull();
  // The API that needs no engine works: a workspace and a key.
  const key = await page.evaluate(async () => {
    await window.inpage!.workspace.register('Test workspace');
    return (await window.inpage!.keys.create({ name: 'k' })).key;
  });
  expect(key).toMatch(/^sk-svc-/);
  await expect.poll(() => warnings.some((w) => w.includes('The engine worker failed to start')), { timeout: 10_000 }).toBe(true);

  blocked = false;
  // The host tries again (backing off from 1 s) and connects; requests are answered.
  await expect.poll(() => page.evaluate(() => window.inpage?.engine != null), { timeout: 40_000, intervals: [500] }).toBe(true);
  await page.evaluate(async () => {
    await window.inpageReady;
  });
  const answer = await chat(page, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'hello' }] });
  expect(answer.status).toBe(200);
  expect((answer.json as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe('Echo: hello');
});
