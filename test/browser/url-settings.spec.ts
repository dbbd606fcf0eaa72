// Issue 14: a link cannot break the engine. `?engineHeartbeatMs=1` would restart the engine worker over and over,
// `?queueDepth=0` would turn concurrent requests into 429: both are ignored (the page says so), while the test
// build's own knob (tokenDelayMs) still works from the URL.
import { expect, test } from '@playwright/test';
import { makeKey, openApp } from './helpers';

test('heartbeat and queue links are ignored with a notice: no restarts, no 429, every stream completes', async ({ page }) => {
  await openApp(page, '/?tokenDelayMs=3&engineHeartbeatMs=1&queueDepth=0');
  const notice = page.locator('#inpage-url-notice');
  await expect(notice).toBeVisible();
  await expect(notice).toContainText('engineHeartbeatMs');
  await expect(notice).toContainText('queueDepth');
  await expect(notice).not.toContainText('tokenDelayMs');
  const key = await makeKey(page);

  const outcome = await page.evaluate(async (key) => {
    const one = async (i: number) => {
      const started = performance.now();
      const res = await fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'count 40' }], user: `client-${i}`, stream: true }),
      });
      const text = await res.text();
      return { status: res.status, done: text.endsWith('data: [DONE]\n\n'), inBandError: text.includes('"error"'), ms: performance.now() - started };
    };
    return Promise.all(Array.from({ length: 8 }, (_, i) => one(i)));
  }, key);
  expect(outcome.map((o) => o.status)).toEqual(Array(8).fill(200));
  expect(outcome.every((o) => o.done && !o.inBandError)).toBe(true);
  // The URL's tokenDelayMs (a test knob) did apply: 40 tokens at 3 ms each take over 100 ms for the first stream.
  expect(Math.min(...outcome.map((o) => o.ms))).toBeGreaterThan(100);
  expect(await page.evaluate(() => window.inpage!.engine!.restarts)).toBe(0);
});

test('a plain page has no notice', async ({ page }) => {
  await openApp(page, '/?engine=off');
  await expect(page.locator('#inpage-url-notice')).toHaveCount(0);
});
