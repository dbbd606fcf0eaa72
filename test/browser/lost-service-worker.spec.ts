// Issue 14: a service worker lost under open tabs (another tab unregisters it, the site's data is cleared) left
// them falling through to the web server (404 text/plain for /v1) until reloaded, and a new tab sat at
// "Starting…" for half a minute. Open tabs now register it again, and a new tab is ready (or says why) in 5 s.
import { expect, test, type Page } from '@playwright/test';
import { call, makeKey, openApp } from './helpers';

/** What /v1/models answers this page with: the service's JSON (any status) or the web server's fall-through. */
async function served(page: Page): Promise<string> {
  const answer = await call(page, '/v1/models');
  return answer.headers['content-type']?.startsWith('application/json') && answer.json ? `service ${answer.status}` : `web server ${answer.status}`;
}

test('another tab unregisters the service worker: open tabs register it again and /v1 answers; a new tab is ready', async ({ page, context }) => {
  await openApp(page);
  const key = await makeKey(page);
  const other = await context.newPage();
  await openApp(other, '/?engine=off');
  expect(await served(other)).toBe('service 401');

  await other.evaluate(async () => {
    const registration = await navigator.serviceWorker.getRegistration('/');
    await registration!.unregister();
  });
  // Both tabs notice and register again; the engine (hosted by the first tab) serves the new worker.
  for (const tab of [page, other]) await expect.poll(() => served(tab), { timeout: 15_000 }).toBe('service 401');
  const answer = await call(page, '/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'back' }] }),
  });
  expect(answer.status, answer.text).toBe(200);

  // A tab opened now is ready within 5 s (the product's own limit; a little more for a loaded test machine).
  const fresh = await context.newPage();
  await fresh.goto('/?engine=off');
  const outcome = await fresh.evaluate(() =>
    Promise.race([
      window.inpageReady!.then(
        () => 'ready',
        (err: Error) => `failed: ${err.message}`,
      ),
      new Promise<string>((resolve) => setTimeout(() => resolve('still starting'), 8000)),
    ]),
  );
  expect(outcome).toBe('ready');
  expect(await served(fresh)).toBe('service 401');
});

test("the site's data cleared under an open tab: the service comes back (a fresh, empty one)", async ({ page }) => {
  await openApp(page);
  await makeKey(page);
  const cdp = await page.context().newCDPSession(page);
  const origin = new URL(page.url()).origin;
  // Every answer from the moment the data is cleared until the service is back is the contract's: its 503
  // while no service worker controls the page (the web server's, from npm start), then the service's own.
  const seen = new Set<string>();
  await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' });
  await expect
    .poll(
      async () => {
        const answer = await call(page, '/v1/models');
        const json = answer.json as { error?: { code: string; type: string; message: string } } | null;
        seen.add(json?.error ? `${answer.status} ${json.error.type} ${json.error.code}` : `${answer.status} ${answer.headers['content-type']}`);
        return answer.status;
      },
      { timeout: 15_000, intervals: [0] },
    )
    .toBe(401);
  expect(
    [...seen].every((s) => s === '401 invalid_request_error missing_api_key' || s === '503 server_error service_unavailable'),
    [...seen].join(', '),
  ).toBe(true);
  // Everything of the origin went with it: no workspace, no keys; and the page did not show the failure notice.
  expect(await page.evaluate(async () => (await window.inpage!.keys.list()).length)).toBe(0);
  await expect(page.locator('#inpage-service-lost')).toHaveCount(0);
});

test("a /v1 request that reaches the web server (no service worker controls it) gets the contract's 503, not a 404 page", async ({ request }) => {
  for (const [method, path] of [
    ['POST', '/v1/chat/completions'],
    ['GET', '/v1/models'],
    ['POST', '/v1/responses'],
  ] as const) {
    const answer = await request.fetch(path, { method, headers: { 'content-type': 'application/json' }, data: '{}' });
    expect(answer.status(), `${method} ${path}`).toBe(503);
    expect(answer.headers()['content-type']).toMatch(/^application\/json/);
    expect(answer.headers()['retry-after']).toBe('1');
    expect(await answer.json()).toEqual({
      error: { type: 'server_error', code: 'service_unavailable', param: null, message: expect.stringContaining("inpage's service worker is not running") },
    });
  }
});
