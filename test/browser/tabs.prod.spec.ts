// The production build (real web-llm engine on SwiftShader): when the tab hosting the engine closes, another
// tab takes over (its engine worker probes the GPU and reads the cache) and the service answers again.
import { expect, test } from '@playwright/test';
import { call, makeKey, openApp } from './helpers';

test('the host tab closes: the other tab hosts a real engine and /v1 answers from it', async ({ context }) => {
  const first = await context.newPage();
  await openApp(first);
  const second = await context.newPage();
  await openApp(second);
  expect(await first.evaluate(() => window.inpage!.engine !== null)).toBe(true);
  expect(await second.evaluate(() => window.inpage!.engine === null)).toBe(true);
  await second.evaluate(() => {
    const w = window as unknown as { hostedAt?: number };
    window.inpage!.onEngine(() => (w.hostedAt ??= performance.timeOrigin + performance.now()));
  });
  const key = await makeKey(second);

  const closedAt = Date.now();
  await first.close();
  await expect.poll(() => second.evaluate(() => (window as unknown as { hostedAt?: number }).hostedAt ?? null), { timeout: 30_000 }).not.toBeNull();
  const hostedAt = await second.evaluate(() => (window as unknown as { hostedAt: number }).hostedAt);
  console.log(`takeover (production engine): ${Math.round(hostedAt - closedAt)} ms from closing the host tab to the new host's engine`);
  test.info().annotations.push({ type: 'takeover-ms', description: String(Math.round(hostedAt - closedAt)) });

  const models = await call(second, '/v1/models', { headers: { authorization: `Bearer ${key}` } });
  expect(models.status).toBe(200);
  // The new host's engine reports every model (none downloaded here), not "unavailable" for want of an engine.
  expect((models.json as { data: { state: string }[] }).data.map((m) => m.state)).toEqual(Array(6).fill('not_downloaded'));
});
