// The production build with real web-llm on SwiftShader's WebGPU. There is no internet here, so no model can
// ever be downloaded: the model source points at a closed local port, and every load fails at once.
import { chromium, expect, test, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../playwright.config';
import { call, chat, deployConfig, makeKey, openApp } from './helpers';

/** Port 9 (discard) on the loopback interface: nothing listens, connections are refused at once. */
const NOWHERE = 'http://127.0.0.1:9';
const APP = '/';
/** The deployment's settings (its /inpage.config.json): a page's URL cannot set these. */
const DEPLOYED = { modelBaseUrl: `${NOWHERE}/models`, modelLibBaseUrl: `${NOWHERE}/libs`, engineHeartbeatMs: 250 };

test.beforeEach(async ({ context }) => {
  await deployConfig(context, DEPLOYED);
});

interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}
interface ModelList {
  data: { id: string; state: string; context_length: number }[];
}

async function adapterReport(page: Page) {
  return page.evaluate(async () => (await window.inpageReady)!.engine!.control.adapter());
}

test('the production worker boots on SwiftShader and reports the adapter and its features', async ({ page }) => {
  await openApp(page, APP);
  const report = await adapterReport(page);
  expect(report).toMatchObject({ available: true, vendor: 'google', architecture: 'swiftshader', shaderF16: false });
  expect(report.features.length).toBeGreaterThan(0);
  expect(report.features).not.toContain('shader-f16');
  expect(report.features.every((f) => typeof f === 'string')).toBe(true);

  const key = await makeKey(page);
  const models = (await call(page, '/v1/models', { headers: { authorization: `Bearer ${key}` } })).json as ModelList;
  expect(models.data.map((m) => m.id)).toEqual([
    'svc-model-5.2',
    'svc-model-5.2-fast',
    'svc-model-5.2-short',
    'svc-model-5.2-short-fast',
    'svc-vision',
    'svc-embed',
  ]);
  for (const model of models.data) {
    expect(model.state).toBe('not_downloaded');
    if (model.id === 'svc-embed') continue;
    // Sized from this adapter's limits and memory: at least web-llm's 4096, at most the trained maximum.
    expect(model.context_length).toBeGreaterThanOrEqual(4096);
  }
  // The embedding model: its state like the others, its encoder's fixed window, the size of its vectors.
  expect(models.data.find((m) => m.id === 'svc-embed')).toMatchObject({ state: 'not_downloaded', context_length: 512, embeddings: true, dimensions: 384 });
  const byId = Object.fromEntries(models.data.map((m) => [m.id, m.context_length]));
  expect(byId['svc-model-5.2']).toBe(byId['svc-model-5.2-fast']);
  expect(byId['svc-model-5.2-short']).toBe(byId['svc-model-5.2-short-fast']);
  expect(byId['svc-model-5.2']).toBeLessThanOrEqual(40_960);
  expect(byId['svc-vision']).toBeLessThanOrEqual(131_072);
});

test('a model whose files cannot be fetched fails with 503 model_load_failed naming the cause; the next request and the page still work', async ({ page }) => {
  await openApp(page, APP);
  const key = await makeKey(page);
  const body = { model: 'svc-model-5.2-short-fast', messages: [{ role: 'user', content: 'hello' }] };

  const first = await chat(page, key, body);
  expect(first.status).toBe(503);
  const error = (first.json as ErrorBody).error;
  expect(error).toMatchObject({ type: 'server_error', code: 'model_load_failed', param: null });
  // No shader-f16 on SwiftShader: the q4f32 weights were chosen, from the configured (unreachable) source.
  expect(error.message).toContain('Qwen3-1.7B-q4f32_1-MLC');
  expect(error.message).toContain(`${NOWHERE}/models/Qwen3-1.7B-q4f32_1-MLC/`);
  expect(error.message).toMatch(/Failed to fetch/);

  // The failure is remembered in the model's state, and the next request tries the load again.
  const models = (await call(page, '/v1/models', { headers: { authorization: `Bearer ${key}` } })).json as ModelList & {
    data: { error?: string }[];
  };
  expect(models.data.find((m) => m.id === 'svc-model-5.2-short-fast')!.state).toBe('not_downloaded');
  const second = await chat(page, key, { ...body, stream: true });
  expect(second.status).toBe(503);
  expect((second.json as ErrorBody).error.code).toBe('model_load_failed');

  // Checks before the engine still answer as ever, and the page is alive.
  const bad = await chat(page, key, { ...body, temperature: 7 });
  expect(bad.status).toBe(400);
  expect(await page.evaluate(() => document.title)).toContain('inpage');
});

test('self-hosted model files: config from the model base, library from the library base, the config cached in IndexedDB', async ({ page }) => {
  const fetched: string[] = [];
  await page.context().route('https://models.example/**', (route) => {
    fetched.push(route.request().url());
    if (route.request().url().endsWith('/mlc-chat-config.json')) {
      return route.fulfill({ status: 200, contentType: 'application/json', headers: { 'access-control-allow-origin': '*' }, body: '{"model_type":"qwen3"}' });
    }
    return route.fulfill({ status: 404, headers: { 'access-control-allow-origin': '*' }, body: 'no' });
  });
  await page.context().route('https://libs.example/**', (route) => {
    fetched.push(route.request().url());
    return route.fulfill({ status: 404, headers: { 'access-control-allow-origin': '*' }, body: 'no such library' });
  });
  await deployConfig(page.context(), { modelBaseUrl: 'https://models.example/mlc', modelLibBaseUrl: 'https://libs.example/v0_2_86' });
  await openApp(page, '/');
  const key = await makeKey(page);
  const body = { model: 'svc-model-5.2-short', messages: [{ role: 'user', content: 'hello' }] };
  for (let attempt = 0; attempt < 2; attempt++) {
    const answer = await chat(page, key, body);
    expect(answer.status).toBe(503);
    const error = (answer.json as ErrorBody).error;
    expect(error.code).toBe('model_load_failed');
    expect(error.message).toContain('https://libs.example/v0_2_86/Qwen3-1.7B-q4f32_1_cs1k-webgpu.wasm');
  }
  const config = 'https://models.example/mlc/Qwen3-1.7B-q4f32_1-MLC/resolve/main/mlc-chat-config.json';
  const library = 'https://libs.example/v0_2_86/Qwen3-1.7B-q4f32_1_cs1k-webgpu.wasm';
  // The config came from the network once; the second load read it from web-llm's IndexedDB cache.
  expect(fetched.filter((url) => url === config)).toHaveLength(1);
  expect(fetched.filter((url) => url === library)).toHaveLength(2);
  expect(fetched.every((url) => url === config || url === library)).toBe(true);
});

test('requests web-llm cannot honour get 400 unsupported_parameter before any load is tried', async ({ page }) => {
  await openApp(page, APP);
  const key = await makeKey(page);
  const tools = [{ type: 'function', function: { name: 'f' } }];
  const visionTools = await chat(page, key, { model: 'svc-vision', messages: [{ role: 'user', content: 'hi' }], tools });
  expect(visionTools.status).toBe(400);
  expect((visionTools.json as ErrorBody).error).toMatchObject({ code: 'unsupported_parameter', param: 'tools' });
  const n = await chat(page, key, { model: 'svc-vision', messages: [{ role: 'user', content: 'hi' }], n: 2 });
  expect((n.json as ErrorBody).error).toMatchObject({ code: 'unsupported_parameter', param: 'n' });
});

test('svc-vision reads data:, blob: and image URLs of the allowed hosts in the engine before loading; others are 400 naming the part', async ({ page }) => {
  // An image on the origin itself (the engine worker may reach the origin and the model hosts only), another on a
  // host that is not allowed, and one the origin answers with 404.
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg==', 'base64');
  const foreign: string[] = [];
  await page.context().route('**/test-images/cat.png', (route) => route.fulfill({ status: 200, contentType: 'image/png', body: png }));
  await page.context().route('**/test-images/gone.png', (route) => route.fulfill({ status: 404, body: 'secret status text' }));
  await page.context().route('https://images.example/**', (route) => {
    foreign.push(route.request().url());
    return route.fulfill({ status: 200, contentType: 'image/png', headers: { 'access-control-allow-origin': '*' }, body: png });
  });
  await openApp(page, APP);
  const key = await makeKey(page);
  const urls = await page.evaluate(async () => {
    const canvas = new OffscreenCanvas(8, 6);
    canvas.getContext('2d')!.fillRect(0, 0, 8, 6);
    const blob = await canvas.convertToBlob({ type: 'image/png' });
    const bytes = new Uint8Array(await blob.arrayBuffer());
    const data = `data:image/png;base64,${btoa(String.fromCharCode(...bytes))}`;
    const revoked = URL.createObjectURL(blob);
    URL.revokeObjectURL(revoked);
    return {
      data,
      blob: URL.createObjectURL(blob),
      revoked,
      notImage: `data:image/png;base64,${btoa('not a picture')}`,
      own: `${location.origin}/test-images/cat.png`,
      gone: `${location.origin}/test-images/gone.png`,
    };
  });
  const ask = (url: string) =>
    chat(page, key, {
      model: 'svc-vision',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image_url', image_url: { url } },
          ],
        },
      ],
    });

  // Readable images get as far as the model load, which fails here for want of weights.
  for (const url of [urls.data, urls.blob, urls.own]) {
    const answer = await ask(url);
    expect(answer.status, url).toBe(503);
    expect((answer.json as ErrorBody).error.code).toBe('model_load_failed');
  }
  for (const url of [urls.revoked, `${NOWHERE}/cat.png`, urls.notImage, urls.gone, 'https://images.example/cat.png']) {
    const answer = await ask(url);
    expect(answer.status, url).toBe(400);
    const error = (answer.json as ErrorBody).error;
    expect(error).toMatchObject({ code: 'invalid_value', param: 'messages[0].content[1].image_url.url' });
    // The remote status never shows: an answer is no way to probe hosts. (The URL itself is echoed: a blob: URL's
    // random id can contain "404", so it is left out of the check.)
    expect(error.message.replace(url, '')).not.toMatch(/404|secret/);
  }
  const refused = (await ask('https://images.example/cat.png')).json as ErrorBody;
  expect(refused.error.message).toContain('not on a host this service may reach');
  expect(foreign).toEqual([]);
});

test('an engine worker that dies is restarted and serves the service worker again', async ({ page }) => {
  await openApp(page, APP);
  const key = await makeKey(page);
  const before = await page.evaluate(() => window.inpage!.engine!.restarts);
  await page.evaluate(() => window.inpage!.engine!.worker!.terminate());
  await expect.poll(() => page.evaluate(() => window.inpage!.engine!.restarts), { timeout: 20_000 }).toBe(before + 1);
  // The new worker answers through the service worker: real states (not "unavailable"), real load errors.
  await expect
    .poll(async () => ((await call(page, '/v1/models', { headers: { authorization: `Bearer ${key}` } })).json as ModelList).data[0]!.state, { timeout: 20_000 })
    .toBe('not_downloaded');
  const answer = await chat(page, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'hi' }] });
  expect(answer.status).toBe(503);
  expect((answer.json as ErrorBody).error.code).toBe('model_load_failed');
  expect((await adapterReport(page)).available).toBe(true);
});

test("without a WebGPU adapter: web-llm (when the deployment forces it) answers 503 webgpu_unavailable with the browser's reason; by default llama.cpp serves on the CPU", async ({
  browserName,
  baseURL,
}) => {
  expect(browserName).toBe('chromium');
  // A browser of its own without the unsafe SwiftShader adapter: on this GPU-less machine it has no WebGPU adapter.
  const args = CHROMIUM_ARGS.filter((arg) => !arg.startsWith('--enable-unsafe-'));
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args });
  try {
    const page = await browser.newPage({ baseURL: baseURL! });
    await deployConfig(page.context(), { ...DEPLOYED, engineChoice: 'webllm' });
    await openApp(page, APP);
    const report = await adapterReport(page);
    expect(report).toMatchObject({ available: false, shaderF16: false, features: [] });
    expect(report.reason).toContain('requestAdapter() returned null');
    const key = await makeKey(page);
    const answer = await chat(page, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.status).toBe(503);
    const error = (answer.json as ErrorBody).error;
    expect(error).toMatchObject({ type: 'server_error', code: 'webgpu_unavailable' });
    expect(error.message).toContain('requestAdapter() returned null');
    const models = (await call(page, '/v1/models', { headers: { authorization: `Bearer ${key}` } })).json as ModelList;
    expect(models.data.map((m) => m.state)).toEqual(Array(6).fill('unavailable'));

    // The default policy: llama.cpp on the CPU. Qwen3-8B's GGUF is too large for a CPU device here.
    const auto = await browser.newPage({ baseURL: baseURL! });
    await deployConfig(auto.context(), { ...DEPLOYED, ggufBaseUrl: `${NOWHERE}/gguf` });
    await openApp(auto, APP);
    const autoKey = await makeKey(auto);
    const big = await chat(auto, autoKey, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'hi' }] });
    expect(big.status).toBe(503);
    expect((big.json as ErrorBody).error).toMatchObject({ type: 'server_error', code: 'model_too_large_for_device' });
    const small = await chat(auto, autoKey, { model: 'svc-model-5.2-short-fast', messages: [{ role: 'user', content: 'hi' }] });
    expect(small.status).toBe(503);
    expect((small.json as ErrorBody).error.code).toBe('model_load_failed');
    expect((small.json as ErrorBody).error.message).toContain(`${NOWHERE}/gguf/`);
    const states = (await call(auto, '/v1/models', { headers: { authorization: `Bearer ${autoKey}` } })).json as ModelList;
    // Qwen3-8B's two variants are unavailable before anyone asks (too large here), the rest not downloaded.
    expect(states.data.filter((m) => m.id !== 'svc-embed').map((m) => m.state)).toEqual([
      'unavailable',
      'unavailable',
      'not_downloaded',
      'not_downloaded',
      'not_downloaded',
    ]);
    expect(states.data.find((m) => m.id === 'svc-model-5.2-fast')).toMatchObject({ state: 'unavailable' });
    // llama.cpp has no embedding model: svc-embed is listed as unavailable, and a request says why.
    expect(states.data.find((m) => m.id === 'svc-embed')!.state).toBe('unavailable');
    const embed = await call(auto, '/v1/embeddings', {
      method: 'POST',
      headers: { authorization: `Bearer ${autoKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'svc-embed', input: 'x' }),
    });
    expect(embed.status).toBe(503);
    expect((embed.json as ErrorBody).error.message).toContain('web-llm');
  } finally {
    await browser.close();
  }
});

test('the served production app carries web-llm, never the test engine', async ({ page, baseURL }) => {
  const sw = await (await page.request.get(`${baseURL}/sw.js`)).text();
  // Every file every device runs is in the service worker's precache list.
  const scripts = [...sw.matchAll(/"url":"([^"]+\.js)"/g)].map((m) => m[1]!);
  expect(scripts.some((url) => url.includes('engine-worker'))).toBe(true);
  const precached = await Promise.all(scripts.map(async (url) => (await page.request.get(new URL(url, `${baseURL}/`).href)).text()));
  // Each engine's own chunks are left out of the precache (src/shared/engine-files.ts) and kept on first use: the precached
  // scripts name them, so they are read too.
  const engineChunks = [...new Set(precached.flatMap((text) => [...text.matchAll(/engine-(?:webllm|llamacpp)[\w-]*\.js/g)].map((m) => m[0])))];
  expect(engineChunks.some((name) => name.startsWith('engine-webllm'))).toBe(true);
  const chunks = await Promise.all(engineChunks.map(async (name) => (await page.request.get(`${baseURL}/assets/${name}`)).text()));
  const bodies = [...precached, ...chunks];
  const marker = 'Thinking about: '; // the deterministic engine's own text
  expect([sw, ...bodies].filter((text) => text.includes(marker))).toEqual([]);
  expect(bodies.some((text) => text.includes('MLCEngine'))).toBe(true);
});
