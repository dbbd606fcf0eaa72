// Models by configuration, in the test build: the deployment's /inpage.config.json hides one of the five, adds an
// id of its own (a custom web-llm record) and maps another to a smaller model. /v1/models, keys, requests, the
// answer's system_fingerprint and the Models area all follow it; a bad entry stops the page with its name.
import { expect, test } from '@playwright/test';
import { auth, call, chat, deployConfig, makeKey, openApp, stopServiceWorker } from './helpers';
import { goToArea, openWorkspace, registerThroughForm } from './workspace-steps';

const MODELS = {
  'svc-vision': { hidden: true },
  'svc-model-5.2-short-fast': { webllm: { f16: 'Qwen3-0.6B-q4f16_1-MLC', f32: 'Qwen3-0.6B-q4f32_1-MLC' } },
  'acme-chat': {
    record: { model_id: 'Acme-Chat-q4f32_1-MLC', model: '/models/Acme-Chat-q4f32_1-MLC', model_lib: '/models/libs/Acme-Chat-q4f32_1-webgpu.wasm' },
  },
};

interface ModelList {
  data: { id: string; object: string; created: number; reasoning: boolean; vision: boolean; context_length: number }[];
}

test('configured models: listed, reachable by keys, answered, fingerprinted by the real model; the hidden one is gone', async ({ page, context }) => {
  await deployConfig(context, { models: MODELS });
  await openApp(page);
  const key = await makeKey(page);
  const list = (await call(page, '/v1/models', { headers: { authorization: `Bearer ${key}` } })).json as ModelList;
  expect(list.data.map((m) => m.id)).toEqual([
    'svc-model-5.2',
    'svc-model-5.2-fast',
    'svc-model-5.2-short',
    'svc-model-5.2-short-fast',
    'svc-embed',
    'acme-chat',
  ]);
  const acme = list.data.find((m) => m.id === 'acme-chat')!;
  expect(acme).toMatchObject({ object: 'model', reasoning: false, vision: false });
  expect(acme.created).toBeGreaterThan(list.data.find((m) => m.id === 'svc-model-5.2-short-fast')!.created);
  expect((await call(page, '/v1/models/acme-chat', { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);

  const answer = await chat(page, key, { model: 'acme-chat', messages: [{ role: 'user', content: 'count 3' }] });
  expect(answer.status).toBe(200);
  const completion = answer.json as { model: string; system_fingerprint: string; choices: { message: { content: string } }[] };
  expect(completion.model).toBe('acme-chat');
  expect(completion.choices[0]!.message.content).toBe('1 2 3');
  expect(completion.system_fingerprint).toBe('fp_test_Acme-Chat-q4f32_1-MLC');
  const mapped = (await chat(page, key, { model: 'svc-model-5.2-short-fast', messages: [{ role: 'user', content: 'hi' }] })).json as {
    system_fingerprint: string;
  };
  expect(mapped.system_fingerprint).toBe('fp_test_Qwen3-0.6B-q4f32_1-MLC');

  const hidden = await chat(page, key, { model: 'svc-vision', messages: [{ role: 'user', content: 'hi' }] });
  expect(hidden.status).toBe(404);
  expect((hidden.json as { error: { code: string; message: string } }).error).toMatchObject({
    code: 'model_not_found',
    message: "The model 'svc-vision' does not exist or you do not have access to it.",
  });
  expect((await call(page, '/v1/models/svc-vision', { headers: { authorization: `Bearer ${key}` } })).status).toBe(404);

  // A key limited to the five's ids does not reach the deployment's own.
  const narrow = await makeKey(page, { name: 'narrow', models: ['svc-model-5.2-fast'] });
  expect((await chat(page, narrow, { model: 'acme-chat', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(404);
});

test('the Models area shows the configured ids with the real model behind each, and not the hidden one', async ({ page, context }) => {
  await deployConfig(context, { models: MODELS });
  await openWorkspace(page);
  await registerThroughForm(page);
  await goToArea(page, 'Models');
  const acme = page.locator('article[data-model="acme-chat"]');
  await expect(acme).toBeVisible();
  await expect(acme.getByTestId('real-model')).toHaveText('Acme-Chat-q4f32_1-MLC');
  await expect(page.locator('article[data-model="svc-model-5.2-short-fast"]')).toContainText('Qwen3-0.6B-q4f32_1-MLC');
  await expect(page.locator('article[data-model="svc-model-5.2"]')).toContainText('(Qwen3-8B-q4f32_1-MLC)');
  await expect(page.locator('article[data-model="svc-vision"]')).toHaveCount(0);
});

test('a bad models entry stops the page at start with an error that names the entry', async ({ page, context }) => {
  // Checked by the page: the shape of every entry. The workspace shows the error.
  await deployConfig(context, { models: { 'svc-model-5.2': { webllm: 'Qwen3-4B-q4f16_1-MLC', colour: 'red' } } });
  await page.goto('/');
  const shape = await page.evaluate(() =>
    window.inpageReady!.then(
      () => 'started',
      (err: Error) => err.message,
    ),
  );
  expect(shape).toBe('inpage.config.json: models["svc-model-5.2"]: unknown field \'colour\'');
  await expect(page.getByRole('alert')).toContainText('models["svc-model-5.2"]: unknown field');

  // A llama.cpp entry whose split parts are not named as llama.cpp names them: refused by the page, by name.
  await deployConfig(context, { models: { 'team-gguf': { engine: 'llamacpp', gguf: ['/m/team-00001-of-00002.gguf', '/m/team-2.gguf'] } } });
  await page.goto('/');
  const split = await page.evaluate(() =>
    window.inpageReady!.then(
      () => 'started',
      (err: Error) => err.message,
    ),
  );
  expect(split).toContain('inpage.config.json: models["team-gguf"].gguf[1]: the parts of a split model must be named');
  expect(split).toContain("expected '/m/team-00002-of-00002.gguf'");
  await expect(page.getByRole('alert')).toContainText('models["team-gguf"].gguf[1]');

  // Checked by the engine against the models it can run: the engine does not start, and says why.
  await deployConfig(context, { models: { 'svc-model-5.2': { webllm: 'No-Such-Model-MLC' } } });
  await page.goto('/');
  const failure = await page.evaluate(() =>
    window.inpageReady!.then(
      () => 'started',
      (err: Error) => err.message,
    ),
  );
  expect(failure).toContain('models["svc-model-5.2"].webllm');
  expect(failure).toContain("'No-Such-Model-MLC'");
  await expect(page.getByRole('alert')).toContainText('models["svc-model-5.2"].webllm');
});

test("after the service worker restarts, every route that takes a model knows the deployment's own id on its first request", async ({ page, context }) => {
  // The catalog comes with the engine's port offer: a restarted worker has the five until a page offers one.
  await deployConfig(context, { models: MODELS });
  await openApp(page);
  const key = await makeKey(page);
  const post = (path: string, body: unknown) => call(page, path, { method: 'POST', headers: auth(key), body: JSON.stringify(body) });
  const firsts: Record<string, () => Promise<{ status: number; json: unknown }>> = {
    '/v1/chat/completions': () => chat(page, key, { model: 'acme-chat', messages: [{ role: 'user', content: 'count 2' }] }),
    '/v1/responses': () => post('/v1/responses', { model: 'acme-chat', input: 'count 2', store: false }),
    '/v1/completions': () => post('/v1/completions', { model: 'acme-chat', prompt: 'count 2', max_tokens: 8 }),
    '/v1/models/acme-chat': () => call(page, '/v1/models/acme-chat', { headers: { authorization: `Bearer ${key}` } }),
    '/v1/models': () => call(page, '/v1/models', { headers: { authorization: `Bearer ${key}` } }),
    '/v1/embeddings': () => post('/v1/embeddings', { model: 'svc-embed', input: 'hello' }),
  };
  // The page's port offer (with the catalog) reaches the restarted worker late, as it may under load: a route
  // that does not wait for it judges the id by the five alone.
  await page.evaluate(() => {
    const post = ServiceWorker.prototype.postMessage;
    ServiceWorker.prototype.postMessage = function (this: ServiceWorker, ...args: Parameters<ServiceWorker['postMessage']>) {
      if ((args[0] as { type?: string } | null)?.type !== 'inpage:engine-port') return post.apply(this, args as never);
      setTimeout(() => post.apply(this, args as never), 400);
    } as ServiceWorker['postMessage'];
  });
  const seen: Record<string, unknown> = {};
  for (const [route, first] of Object.entries(firsts)) {
    await stopServiceWorker(page);
    const answer = await first();
    const json = answer.json as Record<string, unknown> & { error?: { code: string } };
    seen[route] = answer.status === 200 ? 'ok' : `${answer.status} ${json?.error?.code}`;
    if (answer.status !== 200) continue;
    if (route === '/v1/chat/completions') expect((json as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe('1 2');
    if (route === '/v1/responses')
      expect((json as { output_text?: string; output: { content?: { text: string }[] }[] }).output.at(-1)!.content![0]!.text).toBe('1 2');
    if (route === '/v1/completions') expect((json as { model: string }).model).toBe('acme-chat');
    if (route === '/v1/models/acme-chat') expect(json).toMatchObject({ id: 'acme-chat', object: 'model' });
    if (route === '/v1/models') expect((json as unknown as ModelList).data.map((m) => m.id)).toContain('acme-chat');
    if (route === '/v1/embeddings') expect((json as { data: { embedding: number[] }[] }).data[0]!.embedding.length).toBeGreaterThan(0);
  }
  expect(seen).toEqual(Object.fromEntries(Object.keys(firsts).map((route) => [route, 'ok'])));
});
