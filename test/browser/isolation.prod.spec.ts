// Cross-origin isolation and llama.cpp's threads (src/shared/isolation.ts). The production build is served by a
// deployment that sends no isolation headers of its own, its GGUF from another origin (a CORS model host, as
// Hugging Face is). First visit: the page is not isolated, llama.cpp runs on one thread and says so. Once the
// service worker controls the page it adds COOP/COEP to the app's own responses: the page and the engine
// worker are isolated, llama.cpp runs on the configured threads, and the cross-origin download still works.
// `vite preview` (npm start) sends the same headers, so there the very first visit is isolated.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect, test } from '@playwright/test';
import { synthesizeGguf } from '../../scripts/gguf/synthesize';
import { GGUF_DEFAULTS } from '../../worker/engine/llamacpp/models';
import { call, chat, makeKey } from './helpers';
import { PROD_BUILD_DIR, serveStatic, type StaticServer } from './static-server';
import { goToArea, openWorkspace, registerThroughForm } from './workspace-steps';

interface Models {
  data: { id: string; state: string; engine?: { name: string; device: string; threads?: number } }[];
}

test.describe.configure({ mode: 'serial' });

let dir: string;
let app: StaticServer;
let modelHost: StaticServer;

test.beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inpage-isolation-'));
  const spec = GGUF_DEFAULTS['qwen3-1.7b']!;
  const path = join(dir, spec.repo, 'resolve/main', spec.file);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, synthesizeGguf({ seed: 7 }).bytes);
  modelHost = await serveStatic(4642, { '/': dir }, { cors: true });
  app = await serveStatic(4641, { '/': PROD_BUILD_DIR });
  // llama.cpp chosen by the deployment (this browser has SwiftShader's WebGPU, so the Models area shows its cards).
  app.override('/inpage.config.json', JSON.stringify({ engineChoice: 'llamacpp', ggufBaseUrl: modelHost.origin, engineHeartbeatMs: 0, llamaThreads: 2 }));
});

test.afterAll(async () => {
  await app?.close();
  await modelHost?.close();
  await rm(dir, { recursive: true, force: true });
});

const ask = { model: 'svc-model-5.2-short-fast', messages: [{ role: 'user', content: 'Hello' }], temperature: 0, max_tokens: 6 };

test('not isolated on a first visit to a host without the headers: one thread; under the service worker: isolated, several threads, cross-origin GGUF download works', async ({
  browser,
}) => {
  test.setTimeout(150_000);
  const context = await browser.newContext({ baseURL: app.origin });
  const page = await context.newPage();
  await openWorkspace(page, '/');
  await registerThroughForm(page);
  const key = await makeKey(page);
  expect(await page.evaluate(() => self.crossOriginIsolated)).toBe(false);

  // Isolation off: llama.cpp answers on one thread, and /v1/models and the Models area say so.
  const single = await chat(page, key, ask);
  expect(single.status).toBe(200);
  const singleText = (single.json as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
  expect(singleText.length).toBeGreaterThan(0);
  const before = (await call(page, '/v1/models', { headers: { authorization: `Bearer ${key}` } })).json as Models;
  expect(before.data.find((m) => m.id === 'svc-model-5.2-short')).toMatchObject({ state: 'ready', engine: { name: 'llamacpp', device: 'cpu', threads: 1 } });
  await goToArea(page, 'Models');
  await expect(page.locator('[data-model="svc-model-5.2-short"] [data-testid="runtime"]')).toHaveText(
    'llama.cpp on the CPU, 1 thread (the page is not cross-origin isolated)',
  );

  // The service worker now controls the origin: a new visit gets COOP/COEP on the page and the engine worker.
  const second = await context.newPage();
  const navigation = await second.goto('/');
  expect(navigation!.fromServiceWorker()).toBe(true);
  expect(await navigation!.allHeaders()).toMatchObject({ 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'credentialless' });
  await second.evaluate(async () => {
    await window.inpageReady;
  });
  expect(await second.evaluate(() => self.crossOriginIsolated)).toBe(true);
  await page.close();
  const cores = await second.evaluate(() => navigator.hardwareConcurrency);
  const threads = Math.min(2, cores);

  // The first tab's engine worker may outlive its page for a moment (its renderer process ends after the page
  // closes), and a request sent then may still be answered there. Wait until /v1/models answers from the
  // isolated tab's engine: the model on disk but not loaded there yet, on its threads.
  const models = async () => ((await call(second, '/v1/models', { headers: { authorization: `Bearer ${key}` } })).json as Models).data;
  await expect
    .poll(async () => (await models()).find((m) => m.id === 'svc-model-5.2-short'), { timeout: 15_000 })
    .toMatchObject({ state: 'cached', engine: { name: 'llamacpp', device: 'cpu', threads } });

  // The engine worker of the isolated page: llama.cpp on `llamaThreads` threads (2, or fewer cores), same answer.
  const multi = await chat(second, key, ask);
  expect(multi.status).toBe(200);
  expect((multi.json as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe(singleText);
  expect((await models()).find((m) => m.id === 'svc-model-5.2-short')).toMatchObject({ state: 'ready', engine: { name: 'llamacpp', device: 'cpu', threads } });
  await goToArea(second, 'Models');
  await expect(second.locator('[data-model="svc-model-5.2-short"] [data-testid="runtime"]')).toHaveText(
    `llama.cpp on the CPU, ${threads} thread${threads === 1 ? '' : 's'} (cross-origin isolated)`,
  );

  // A model downloaded from the cross-origin host while isolated (COEP credentialless, CORS fetch): the other
  // weights group's file is fetched now, from the GGUF host, and answers.
  const fetchedBefore = modelHost.gets.length;
  await second.evaluate(async () => (await window.inpageReady)!.engine!.control.deleteFromCache('svc-model-5.2-short'));
  const again = await chat(second, key, ask);
  expect(again.status).toBe(200);
  expect(modelHost.gets.slice(fetchedBefore).filter((p) => p.includes('/resolve/'))).toEqual([
    `/${GGUF_DEFAULTS['qwen3-1.7b']!.repo}/resolve/main/${GGUF_DEFAULTS['qwen3-1.7b']!.file}`,
  ]);
  await context.close();
});

test('vite preview (npm start) sends the isolation headers itself: the first visit is isolated', async ({ page, baseURL }) => {
  const res = await page.goto(`${baseURL}/?engine=off`);
  expect(res!.headers()['cross-origin-opener-policy']).toBe('same-origin');
  expect(res!.headers()['cross-origin-embedder-policy']).toBe('credentialless');
  expect(await page.evaluate(() => self.crossOriginIsolated)).toBe(true);
});
