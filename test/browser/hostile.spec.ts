// Hostile input: thousands of generated /v1 requests (methods, paths, headers, bodies) against the real
// service worker, run with fast-check inside the page (test/pages/bench.hostile.ts). Every answer must be a
// contract-shaped error with the right status for its code, or a valid completion / stream / model list; no
// answer may be a 500 or a network error; the service worker must not throw; after each case, and after the
// run, a valid request must succeed.
import { expect, test, type Page, type Worker } from '@playwright/test';
import { chat, makeKey, openApp } from './helpers';

const NUM_RUNS = 2000;
// Bounds the run on a slow machine; the test then checks how many cases ran (at least this many).
const TIME_LIMIT_MS = 75_000;
const MIN_RUNS = 1000;

// window.bench is declared in test/pages/bench.ts.

interface SwErrors {
  __hostileErrors?: string[];
}

/** Records uncaught errors and unhandled rejections inside the service worker. */
async function watchServiceWorker(page: Page): Promise<Worker> {
  const sw = page.context().serviceWorkers()[0] ?? (await page.context().waitForEvent('serviceworker'));
  await sw.evaluate(() => {
    const scope = self as unknown as SwErrors & typeof globalThis;
    scope.__hostileErrors = [];
    self.addEventListener('error', (e) => scope.__hostileErrors!.push(`error: ${(e as ErrorEvent).message}`));
    self.addEventListener('unhandledrejection', (e) => scope.__hostileErrors!.push(`unhandledrejection: ${String((e as PromiseRejectionEvent).reason)}`));
  });
  return sw;
}

test('thousands of generated requests: contract-shaped answers only, no 500, the service worker never fails', async ({ page }) => {
  test.setTimeout(120_000);
  await openApp(page, '/test/pages/bench.html');
  const all = await makeKey(page, { name: 'all models' });
  const fastOnly = await makeKey(page, { name: 'fast only', models: ['svc-model-5.2-fast'] });
  const revoked = await makeKey(page, { name: 'revoked' });
  await page.evaluate(async () => {
    const api = window.inpage!;
    const record = (await api.keys.list()).find((k) => k.name === 'revoked')!;
    await api.keys.revoke(record.id);
  });
  const sw = await watchServiceWorker(page);
  const seed = Number(process.env.HOSTILE_SEED ?? Date.now() % 2 ** 31);

  const report = await page.evaluate(({ keys, options }) => window.bench.hostile(keys, options), {
    keys: { all, fastOnly, revoked },
    options: { numRuns: NUM_RUNS, seed, timeLimitMs: TIME_LIMIT_MS },
  });
  test.info().annotations.push({ type: 'hostile', description: JSON.stringify({ ...report, counterexample: undefined }) });

  expect(report.failed, `seed ${report.seed} (HOSTILE_SEED=${report.seed} reproduces): ${report.error}\ncounterexample: ${report.counterexample}`).toBe(false);
  expect(report.numRuns).toBeGreaterThanOrEqual(MIN_RUNS);
  expect(report.keyLeaks).toBe(0);
  // Deep bodies on both sides of the 64-level limit reached the service (each over it checked for its 400).
  expect(report.deep.refused).toBeGreaterThan(0);
  expect(report.deep.within).toBeGreaterThan(0);
  expect(report.codes.internal_error ?? 0).toBe(0);
  expect(report.statuses['500'] ?? 0).toBe(0);
  // The generators reached both sides: real completions and every kind of client mistake.
  expect(report.successes).toBeGreaterThan(report.numRuns / 10);
  for (const code of [
    'invalid_json',
    'invalid_content_type',
    'missing_api_key',
    'invalid_api_key',
    'model_not_found',
    'unknown_url',
    'method_not_allowed',
    'invalid_type',
    'invalid_value',
    'missing_required_parameter',
    'unsupported_parameter',
  ]) {
    expect(report.codes[code] ?? 0, `no case produced ${code}: ${JSON.stringify(report.codes)}`).toBeGreaterThan(0);
  }

  // The same service worker ran the whole time and nothing was thrown in it.
  const errors = await sw.evaluate(() => (self as unknown as SwErrors).__hostileErrors ?? null);
  expect(errors).toEqual([]);

  const after = await chat(page, all, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'after the storm' }] });
  expect(after.status).toBe(200);
  expect((after.json as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe('Echo: after the storm');
});
