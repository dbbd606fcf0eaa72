// GGUF models by URL through the deployment's `models` setting, in the production build on a device without
// WebGPU: a variant mapped to a GGUF file of the deployment's own, an id of its own served from a model split into
// three parts (llama.cpp's gguf-split naming, synthesized and split here), a variant tied to web-llm. /v1/models
// says which engine serves each and where; the split model answers exactly as the whole one does.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium, expect, test, type Browser } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../playwright.config';
import { splitGguf, splitNames } from '../../scripts/gguf/split';
import { synthesizeGguf } from '../../scripts/gguf/synthesize';
import { WASM_VARIANT_WHY } from '../../worker/engine/llamacpp/wasm-detect';
import { call, chat, makeKey, openApp } from './helpers';
import { PROD_BUILD_DIR, serveStatic, type StaticServer } from './static-server';

interface ModelObject {
  id: string;
  reasoning: boolean;
  context_length: number;
  state: string;
  engine?: { name: string; device: string; threads?: number };
}
interface Completion {
  choices: { message: { content: string | null; reasoning_content?: string }; finish_reason: string }[];
  usage: { prompt_tokens: number; completion_tokens: number };
  system_fingerprint: string;
}

// One deployment server for both tests (they change its config): one worker, in order.
test.describe.configure({ mode: 'serial' });

let dir: string;
let server: StaticServer;
let noGpu: Browser;
const model = synthesizeGguf({ seed: 7 });
const WHOLE = '/files/own/tiny-Q8.gguf';
const PARTS = splitNames('/files/split/tiny', 3);

test.beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inpage-gguf-models-'));
  const put = async (path: string, bytes: Uint8Array) => {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), bytes);
  };
  await put(WHOLE.slice('/files'.length), model.bytes);
  const parts = splitGguf(model.bytes, 3);
  for (const [i, part] of parts.entries()) await put(PARTS[i]!.slice('/files'.length), part);
  server = await serveStatic(4610, { '/': PROD_BUILD_DIR, '/files': dir });
  server.override(
    '/inpage.config.json',
    JSON.stringify({
      engineHeartbeatMs: 0,
      models: {
        // One of the five, mapped to a GGUF of the deployment's own, with the context llama.cpp allocates.
        'svc-model-5.2-short': { engine: 'llamacpp', gguf: WHOLE, context: 2048, contextLength: 4096 },
        // Tied to web-llm: on this device (no WebGPU) it cannot run, and says so.
        'svc-model-5.2': { engine: 'webllm' },
        'svc-vision': { hidden: true },
        // An id of the deployment's own: the three parts, in order (the first alone would do as well).
        'team-split': { engine: 'llamacpp', gguf: PARTS, thinks: true },
      },
    }),
  );
  noGpu = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS.filter((a) => !/webgpu|swiftshader/i.test(a)) });
});

test.afterAll(async () => {
  await noGpu?.close();
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

test('GGUF by URL and split GGUF through `models`: listed with their engine, answered; a variant tied to web-llm is unavailable here', async () => {
  test.setTimeout(180_000);
  const context = await noGpu.newContext({ baseURL: server.origin });
  const page = await context.newPage();
  await openApp(page, '/');
  // The first screen, before sign-up: no WebGPU, but llama.cpp runs the models on the CPU; the page says that,
  // not that nothing can run.
  const cpu = page.getByTestId('cpu-engine');
  await expect(cpu).toBeVisible();
  await expect(cpu).toContainText('The models run on this device’s CPU');
  // Threads: all cores where the page is cross-origin isolated, else one.
  const threads = await page.evaluate(() => (self.crossOriginIsolated ? navigator.hardwareConcurrency : 1));
  await expect(cpu).toContainText(`on ${threads} thread${threads === 1 ? '' : 's'}`);
  await expect(page.getByRole('region', { name: /cannot run in this browser/ })).toHaveCount(0);
  const key = await makeKey(page);
  const headers = { authorization: `Bearer ${key}` };

  const list = (await call(page, '/v1/models', { headers })).json as { data: ModelObject[] };
  const byId = Object.fromEntries(list.data.map((m) => [m.id, m]));
  expect(list.data.map((m) => m.id)).toEqual([
    'svc-model-5.2',
    'svc-model-5.2-fast',
    'svc-model-5.2-short',
    'svc-model-5.2-short-fast',
    'svc-embed',
    'team-split',
  ]);
  expect(byId['svc-model-5.2-short']).toMatchObject({
    engine: { name: 'llamacpp', device: 'cpu', threads },
    context_length: 2048,
    reasoning: true,
    state: 'not_downloaded',
  });
  expect(byId['team-split']).toMatchObject({
    engine: { name: 'llamacpp', device: 'cpu', threads },
    context_length: 4096,
    reasoning: true,
    state: 'not_downloaded',
  });
  expect(byId['svc-model-5.2']).toMatchObject({ engine: { name: 'webllm', device: 'webgpu' }, state: 'unavailable' });
  // Not tied: the device's choice (llama.cpp, its GGUF default).
  // Chromium: the main build, its relaxed-SIMD kernels, OPFS; each with why.
  expect(byId['svc-model-5.2-fast']!.engine).toEqual({
    name: 'llamacpp',
    device: 'cpu',
    threads,
    threads_why: expect.stringMatching(/^(One thread|Every logical core)/),
    build: 'main',
    build_why: "wllama's main build (Memory64, JSPI).",
    wasm: 'relaxed',
    wasm_why: WASM_VARIANT_WHY.relaxed,
    storage: { store: 'opfs', why: 'OPFS (the origin private file system): kept across visits; a cut download resumes.' },
  });

  // The download's size before it starts: every part of the split model, as their server gives it.
  const parts = splitGguf(model.bytes, 3);
  const size = await page.evaluate(async () => (await window.inpageReady)!.engine!.control.downloadSize('team-split'));
  expect(size).toMatchObject({ bytes: parts.reduce((n, p) => n + p.length, 0), basis: 'server', covers: "model's 3 split files" });

  const ask = (id: string) => ({ model: id, messages: [{ role: 'user', content: 'Hello' }], temperature: 0, max_tokens: 12 });
  const whole = await chat(page, key, ask('svc-model-5.2-short'));
  expect(whole.status).toBe(200);
  const w = whole.json as Completion;
  expect(w.choices[0]!.message.reasoning_content).toBe('Let me think.');
  expect(w.choices[0]!.message.content).toMatch(/^[\x20-\x7e]+$/);
  expect(w.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 12 });
  expect(w.system_fingerprint).toBe('fp_llamacpp_gguf:tiny-Q8');
  expect(server.gets.filter((p) => p === WHOLE)).toHaveLength(1);

  // The same weights in three parts: every part fetched, the same answer token for token.
  const split = await chat(page, key, ask('team-split'));
  expect(split.status).toBe(200);
  const s = split.json as Completion;
  expect(s.choices[0]!.message).toEqual(w.choices[0]!.message);
  expect(s.usage).toEqual(w.usage);
  expect(s.system_fingerprint).toBe('fp_llamacpp_gguf:tiny');
  for (const part of PARTS)
    expect(
      server.gets.filter((p) => p === part),
      part,
    ).toHaveLength(1);

  const listed = (await call(page, '/v1/models', { headers })).json as { data: ModelObject[] };
  expect(listed.data.find((m) => m.id === 'team-split')!.state).toBe('ready');
  expect(listed.data.find((m) => m.id === 'svc-model-5.2-short')!.state).toBe('cached');

  // Tied to web-llm, on a device without WebGPU: 503 with the reason, nothing loaded.
  const tied = await chat(page, key, ask('svc-model-5.2'));
  expect(tied.status).toBe(503);
  expect((tied.json as { error: { code: string } }).error.code).toBe('webgpu_unavailable');
  // The Models area: where each id runs, the CPU notice instead of a WebGPU adapter card.
  // (The workspace was registered through the API: a reload shows it.)
  await page.goto('/#models');
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Models', level: 1 })).toBeVisible();
  await expect(page.getByTestId('cpu-engine')).toBeVisible();
  // (A page the service worker served is cross-origin isolated: from now on llama.cpp may use every core.)
  const reloaded = await page.evaluate(() => (self.crossOriginIsolated ? navigator.hardwareConcurrency : 1));
  await expect(page.locator('article[data-model="team-split"]').getByTestId('runtime')).toContainText(`llama.cpp on the CPU, ${reloaded} thread`);
  await expect(page.locator('article[data-model="team-split"]').getByTestId('real-model')).toHaveText('tiny-00001-of-00003.gguf');
  await expect(page.locator('article[data-model="svc-model-5.2"]').getByTestId('runtime')).toHaveText('web-llm on WebGPU');
  await expect(page.locator('article[data-model="svc-model-5.2"]').getByTestId('unavailable')).toContainText(
    "The deployment's models setting ties svc-model-5.2 to web-llm (WebGPU), which cannot run it here",
  );
  await expect(page.getByRole('region', { name: /cannot run in this browser/ })).toHaveCount(0);

  // A second tab, which does not host the engine (this one does), says the same from the hosting tab's report.
  const other = await context.newPage();
  await other.goto('/#models');
  await expect(other.getByRole('heading', { name: 'Models', level: 1 })).toBeVisible();
  expect(await other.evaluate(async () => (await window.inpageReady)!.engine)).toBeNull();
  await expect(other.getByTestId('cpu-engine')).toBeVisible();
  await expect(other.getByTestId('cpu-engine')).toContainText(`on ${reloaded} thread`);
  await expect(other.getByRole('region', { name: /cannot run in this browser/ })).toHaveCount(0);
  await context.close();
});

test('with WebGPU (SwiftShader): web-llm serves by default, and a variant the deployment ties to llama.cpp runs there', async ({ browser }) => {
  test.setTimeout(180_000);
  server.override('/inpage.config.json', JSON.stringify({ engineHeartbeatMs: 0, models: { 'svc-model-5.2-short': { engine: 'llamacpp', gguf: WHOLE } } }));
  const context = await browser.newContext({ baseURL: server.origin });
  const page = await context.newPage();
  await openApp(page, '/');
  const key = await makeKey(page);
  // This browser has a WebGPU adapter: no CPU notice, web-llm chosen for the untied variants.
  const adapter = await page.evaluate(async () => (await window.inpageReady)!.engine!.control.adapter());
  expect(adapter.available).toBe(true);
  expect(adapter.cpu).toBeUndefined();
  const list = (await call(page, '/v1/models', { headers: { authorization: `Bearer ${key}` } })).json as { data: ModelObject[] };
  const byId = Object.fromEntries(list.data.map((m) => [m.id, m]));
  expect(byId['svc-model-5.2-short']!.engine).toMatchObject({ name: 'llamacpp', device: 'cpu' });
  expect(byId['svc-model-5.2-short-fast']!.engine).toEqual({ name: 'webllm', device: 'webgpu' });
  const answer = await chat(page, key, { model: 'svc-model-5.2-short', messages: [{ role: 'user', content: 'Hello' }], temperature: 0, max_tokens: 12 });
  expect(answer.status).toBe(200);
  const a = answer.json as Completion;
  expect(a.choices[0]!.message.reasoning_content).toBe('Let me think.');
  expect(a.system_fingerprint).toBe('fp_llamacpp_gguf:tiny-Q8');
  await context.close();
});
