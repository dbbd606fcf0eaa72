// Cross-origin isolation and llama.cpp's threads (src/shared/isolation.ts). The production build is served by a
// deployment that sends no isolation headers of its own, its GGUF from another origin (a CORS model host, as
// Hugging Face is). Once the service worker controls the page it adds COOP/COEP to the app's own responses, and a
// first visit reloads once under it before the engine starts (src/page/isolation-reload.ts): the page and the
// engine worker are isolated from that first visit, llama.cpp runs on the configured threads, and the cross-origin
// download still works. A deployment that opts out (`isolationReload: "off"`), and a tab that reloaded for it
// already (as a browser that cannot be isolated would), stay on one thread and say so, without a loop.
// `vite preview` (npm start) sends the same headers, so there the very first visit is isolated without a reload.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
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
  deploy();
});

test.afterAll(async () => {
  await app?.close();
  await modelHost?.close();
  await rm(dir, { recursive: true, force: true });
});

const ask = { model: 'svc-model-5.2-short-fast', messages: [{ role: 'user', content: 'Hello' }], temperature: 0, max_tokens: 6 };
const CONFIG = { engineChoice: 'llamacpp', engineHeartbeatMs: 0, llamaThreads: 2 };
const deploy = (settings: Record<string, unknown> = {}) =>
  app.override('/inpage.config.json', JSON.stringify({ ...CONFIG, ggufBaseUrl: modelHost.origin, ...settings }));
const RUNTIME = '[data-model="svc-model-5.2-short"] [data-testid="runtime"]';
const SINGLE = 'llama.cpp on the CPU, 1 thread (the page is not cross-origin isolated)';
const text = (answer: { json: unknown }) => (answer.json as { choices: { message: { content: string } }[] }).choices[0]!.message.content;

/** A fresh context (a first visit) and a page in it that counts its document loads. */
async function firstVisit(browser: Browser): Promise<{ context: BrowserContext; page: Page; loads: string[] }> {
  const context = await browser.newContext({ baseURL: app.origin });
  const page = await context.newPage();
  const loads: string[] = [];
  page.on('load', () => loads.push(page.url()));
  return { context, page, loads };
}

/** The answer of the one-thread run, which the isolated runs must match. */
let singleText = '';

test('a first visit opted out (isolationReload "off"): no reload, one thread, and the API and Models area say so', async ({ browser }) => {
  test.setTimeout(120_000);
  deploy({ isolationReload: 'off' });
  const { context, page, loads } = await firstVisit(browser);
  try {
    await openWorkspace(page, '/');
    await registerThroughForm(page);
    const key = await makeKey(page);
    expect(await page.evaluate(() => self.crossOriginIsolated)).toBe(false);
    const single = await chat(page, key, ask);
    expect(single.status).toBe(200);
    singleText = text(single);
    expect(singleText.length).toBeGreaterThan(0);
    const models = (await call(page, '/v1/models', { headers: { authorization: `Bearer ${key}` } })).json as Models;
    expect(models.data.find((m) => m.id === 'svc-model-5.2-short')).toMatchObject({ state: 'ready', engine: { name: 'llamacpp', device: 'cpu', threads: 1 } });
    await goToArea(page, 'Models');
    await expect(page.locator(RUNTIME)).toHaveText(SINGLE);
    expect(loads).toHaveLength(1);
  } finally {
    await context.close();
    deploy();
  }
});

test('a first visit to a host without the headers reloads once under the service worker: isolated, several threads, the same answer; cross-origin GGUF download works', async ({
  browser,
}) => {
  test.setTimeout(150_000);
  deploy();
  const { context, page, loads } = await firstVisit(browser);
  const served = app.gets.length;
  await openWorkspace(page, '/');
  // Two loads of the page: the server's (no headers), then one reload, answered by the service worker with them.
  expect(loads).toHaveLength(2);
  expect(app.gets.slice(served).filter((p) => p === '/')).toEqual(['/']);
  expect(await page.evaluate(() => self.crossOriginIsolated)).toBe(true);
  // The tab's guard is gone once a load is isolated.
  expect(await page.evaluate(() => sessionStorage.getItem('inpage:isolation-reload'))).toBeNull();
  await registerThroughForm(page);
  const key = await makeKey(page);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  const threads = Math.min(2, cores);
  const models = async (on: Page) => ((await call(on, '/v1/models', { headers: { authorization: `Bearer ${key}` } })).json as Models).data;

  // The engine worker of the isolated first visit: llama.cpp on `llamaThreads` threads (2, or fewer cores).
  const multi = await chat(page, key, ask);
  expect(multi.status).toBe(200);
  if (singleText) expect(text(multi)).toBe(singleText);
  expect((await models(page)).find((m) => m.id === 'svc-model-5.2-short')).toMatchObject({
    state: 'ready',
    engine: { name: 'llamacpp', device: 'cpu', threads },
  });
  await goToArea(page, 'Models');
  await expect(page.locator(RUNTIME)).toHaveText(`llama.cpp on the CPU, ${threads} thread${threads === 1 ? '' : 's'} (cross-origin isolated)`);
  expect(loads).toHaveLength(2);

  // Later visits are served by the service worker with the headers: isolated at once, no reload.
  const second = await context.newPage();
  const secondLoads: string[] = [];
  second.on('load', () => secondLoads.push(second.url()));
  const navigation = await second.goto('/?engine=off');
  expect(navigation!.fromServiceWorker()).toBe(true);
  expect(await navigation!.allHeaders()).toMatchObject({ 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'credentialless' });
  await second.evaluate(async () => {
    await window.inpageReady;
  });
  expect(await second.evaluate(() => self.crossOriginIsolated)).toBe(true);
  expect(secondLoads).toHaveLength(1);
  await second.close();

  // A model downloaded from the cross-origin host while isolated (COEP credentialless, CORS fetch): the other
  // weights group's file is fetched now, from the GGUF host, and answers.
  const fetchedBefore = modelHost.gets.length;
  await page.evaluate(async () => (await window.inpageReady)!.engine!.control.deleteFromCache('svc-model-5.2-short'));
  const again = await chat(page, key, ask);
  expect(again.status).toBe(200);
  expect(modelHost.gets.slice(fetchedBefore).filter((p) => p.includes('/resolve/'))).toEqual([
    `/${GGUF_DEFAULTS['qwen3-1.7b']!.repo}/resolve/main/${GGUF_DEFAULTS['qwen3-1.7b']!.file}`,
  ]);
  expect(loads).toHaveLength(2);
  await context.close();
});

test('a tab that reloaded for isolation once already does not again: one load, one thread, the Models area says why', async ({ browser }) => {
  test.setTimeout(90_000);
  deploy();
  const { context, page, loads } = await firstVisit(browser);
  // As a browser that cannot be isolated leaves it after its one reload (Safari: no COEP credentialless).
  await context.addInitScript(() => sessionStorage.setItem('inpage:isolation-reload', '1'));
  try {
    await openWorkspace(page, '/');
    await registerThroughForm(page);
    const key = await makeKey(page);
    expect(await page.evaluate(() => self.crossOriginIsolated)).toBe(false);
    await expect
      .poll(async () =>
        ((await call(page, '/v1/models', { headers: { authorization: `Bearer ${key}` } })).json as Models).data.find((m) => m.id === 'svc-model-5.2-short'),
      )
      .toMatchObject({ engine: { name: 'llamacpp', device: 'cpu', threads: 1 } });
    await goToArea(page, 'Models');
    await expect(page.locator(RUNTIME)).toHaveText(SINGLE);
    await page.waitForTimeout(1000);
    expect(loads).toHaveLength(1);
  } finally {
    await context.close();
  }
});

test('vite preview (npm start) sends the isolation headers itself: the first visit is isolated', async ({ page, baseURL }) => {
  const res = await page.goto(`${baseURL}/?engine=off`);
  expect(res!.headers()['cross-origin-opener-policy']).toBe('same-origin');
  expect(res!.headers()['cross-origin-embedder-policy']).toBe('credentialless');
  expect(await page.evaluate(() => self.crossOriginIsolated)).toBe(true);
});
