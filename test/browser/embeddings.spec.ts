// POST /v1/embeddings (test build, deterministic engine): the openai SDK in the page with both encodings, and
// raw fetch for the error paths; answers checked against OpenAI's CreateEmbeddingResponse schema.
import { expect, test, type Page } from '@playwright/test';
import { auth, call, makeKey, openApp, type Answer } from './helpers';
import { expectSchema } from './schema';
import { goToArea, openWorkspace, registerThroughForm } from './workspace-steps';

function expectError(answer: Answer, status: number, code: string, param: string | null = null): void {
  expect(answer.status, answer.text).toBe(status);
  expectSchema('ErrorResponse', answer.json);
  expect((answer.json as { error: unknown }).error).toEqual({ message: expect.any(String), type: expect.any(String), param, code });
}

const post = (page: Page, key: string, body: unknown) => call(page, '/v1/embeddings', { method: 'POST', headers: auth(key), body: JSON.stringify(body) });

test('openai SDK embeddings.create: float and base64, 384 unit-length dimensions, same input same vector', async ({ page }) => {
  await openApp(page, '/test/pages/clients.html');
  const key = await makeKey(page);
  const result = await page.evaluate(async (apiKey) => {
    const client = new window.clients.OpenAI({ baseURL: `${location.origin}/v1`, apiKey, dangerouslyAllowBrowser: true, maxRetries: 0 });
    const floats = await client.embeddings.create({ model: 'svc-embed', input: ['the cat sat', 'on the mat', 'the cat sat'], encoding_format: 'float' });
    // The SDK asks for base64 when no format is given and decodes it back to numbers.
    const implicit = await client.embeddings.create({ model: 'svc-embed', input: 'the cat sat' });
    // Asked for explicitly, the SDK hands the base64 text through.
    const b64 = await client.embeddings.create({ model: 'svc-embed', input: 'the cat sat', encoding_format: 'base64', dimensions: 384, user: 'u-1' });
    const ids = await client.embeddings.create({ model: 'svc-embed', input: [[101, 2023, 102]] });
    const list = [];
    for await (const m of client.models.list()) list.push(m);
    return { floats, implicit, b64, ids, embedModel: list.find((m) => m.id === 'svc-embed') };
  }, key);
  expectSchema('CreateEmbeddingResponse', result.floats);
  expectSchema('CreateEmbeddingResponse', result.implicit);
  expect(result.floats.model).toBe('svc-embed');
  expect(result.floats.object).toBe('list');
  expect(result.floats.data.map((d) => [d.object, d.index])).toEqual([
    ['embedding', 0],
    ['embedding', 1],
    ['embedding', 2],
  ]);
  const [a, b, c] = result.floats.data.map((d) => d.embedding);
  const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  for (const v of [a!, b!, c!]) {
    expect(v).toHaveLength(384);
    expect(Math.abs(norm(v) - 1)).toBeLessThan(1e-5);
  }
  expect(c).toEqual(a);
  expect(b).not.toEqual(a);
  // The test engine's tokens: "the cat sat" 3 + "on the mat" 3 + 3.
  expect(result.floats.usage).toEqual({ prompt_tokens: 9, total_tokens: 9 });
  // base64 decoded by the SDK is the same float32 vector.
  expect(result.implicit.data[0]!.embedding).toEqual(a);
  const raw = result.b64.data[0]!.embedding as unknown as string;
  expect(typeof raw).toBe('string');
  const bytes = Buffer.from(raw, 'base64');
  expect(bytes.length).toBe(384 * 4);
  expect(Array.from({ length: 384 }, (_, i) => bytes.readFloatLE(i * 4))).toEqual(a);
  expect(result.ids.data[0]!.embedding).toHaveLength(384);
  expect(result.ids.data[0]!.embedding).not.toEqual(a);
  expect(result.ids.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
  expect(result.embedModel).toMatchObject({ id: 'svc-embed', embeddings: true, dimensions: 384, context_length: 512, state: 'ready' });
});

test('error paths: 401, 404, 400, chat models refuse embeddings and svc-embed refuses chat', async ({ page }) => {
  await openApp(page, '/test/pages/clients.html');
  const key = await makeKey(page);
  const chatOnly = await makeKey(page, { name: 'chat only', models: ['svc-model-5.2-fast'] });
  expectError(await call(page, '/v1/embeddings', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }), 401, 'missing_api_key');
  expectError(await post(page, `sk-svc-${'Z'.repeat(43)}`, { model: 'svc-embed', input: 'x' }), 401, 'invalid_api_key');
  expectError(await post(page, key, { model: 'text-embedding-3-small', input: 'x' }), 404, 'model_not_found', 'model');
  // A key that cannot reach svc-embed does not learn it exists.
  expectError(await post(page, chatOnly, { model: 'svc-embed', input: 'x' }), 404, 'model_not_found', 'model');
  expectError(await post(page, key, { model: 'svc-embed' }), 400, 'missing_required_parameter', 'input');
  expectError(await post(page, key, { model: 'svc-embed', input: [] }), 400, 'invalid_value', 'input');
  expectError(await post(page, key, { model: 'svc-embed', input: ['ok', ''] }), 400, 'invalid_value', 'input[1]');
  expectError(await post(page, key, { model: 'svc-embed', input: 'x', dimensions: 256 }), 400, 'unsupported_parameter', 'dimensions');
  expectError(await post(page, key, { model: 'svc-embed', input: 'x', encoding_format: 'int8' }), 400, 'invalid_value', 'encoding_format');
  expectError(await post(page, key, { model: 'svc-embed', input: [Array.from({ length: 513 }, () => 7)] }), 400, 'context_length_exceeded', 'input');
  const chatModel = await post(page, key, { model: 'svc-model-5.2-fast', input: 'x' });
  expectError(chatModel, 400, 'invalid_value', 'model');
  expect(chatModel.text).toContain('svc-embed');
  for (const [path, body] of [
    ['/v1/chat/completions', { model: 'svc-embed', messages: [{ role: 'user', content: 'hi' }] }],
    ['/v1/responses', { model: 'svc-embed', input: 'hi' }],
    ['/v1/completions', { model: 'svc-embed', prompt: 'hi' }],
  ] as const) {
    const answer = await call(page, path, { method: 'POST', headers: auth(key), body: JSON.stringify(body) });
    expectError(answer, 400, 'invalid_value', 'model');
    expect(answer.text).toContain('/v1/embeddings');
  }
  const get = await call(page, '/v1/embeddings', { headers: auth(key) });
  expectError(get, 405, 'method_not_allowed');
});

test('the Connect area has an embeddings snippet, and it runs as shown with the real SDK', async ({ page }) => {
  await openWorkspace(page);
  await registerThroughForm(page);
  const key = await page.evaluate(async () => (await window.inpage!.keys.create({ name: 'snippet' })).key);
  await goToArea(page, 'Connect');
  await page.getByLabel('Fill your key into the snippets').fill(key);
  await page.getByRole('button', { name: 'Fill in' }).click();
  // The snippet is re-rendered with the key once the key is checked: wait for it before reading the code.
  await expect(page.locator('[data-snippet="embeddings"] pre')).toContainText(key);
  const code = (await page.locator('[data-snippet="embeddings"] pre').textContent())!;
  expect(code).toContain("model: 'svc-embed'");
  await page.goto('/test/pages/clients.html');
  await page.evaluate(async () => {
    await window.inpageReady;
  });
  const logged = await page.evaluate(async (source) => {
    const lines: unknown[] = [];
    const body = source.replace("import OpenAI from 'openai';", '');
    const AsyncFunction = (async () => undefined).constructor as new (...args: string[]) => (OpenAI: unknown, console: unknown) => Promise<void>;
    await new AsyncFunction('OpenAI', 'console', body)(window.clients.OpenAI, { log: (line: unknown) => lines.push(line) });
    return lines;
  }, code);
  // One cosine similarity of two different unit vectors: a number in [-1, 1], not 1.
  expect(logged).toHaveLength(1);
  const similarity = logged[0] as number;
  expect(typeof similarity).toBe('number');
  expect(Math.abs(similarity)).toBeLessThan(0.999);
});

test('Connect snippets name models the filled-in key reaches, and say when it reaches no embedding model', async ({ page }) => {
  await openWorkspace(page);
  await registerThroughForm(page);
  const key = await page.evaluate(async () => (await window.inpage!.keys.create({ name: 'narrow', models: ['svc-model-5.2-short-fast'] })).key);
  await goToArea(page, 'Connect');
  await page.getByLabel('Fill your key into the snippets').fill(key);
  await page.getByRole('button', { name: 'Fill in' }).click();
  const code = (id: string) => page.locator(`[data-snippet="${id}"] pre`);
  // The key is checked, then its models read: wait for both before reading the code.
  await expect(code('openai')).toContainText(key);
  for (const id of ['fetch', 'openai', 'responses', 'ai-sdk']) {
    await expect(code(id)).toContainText("'svc-model-5.2-short-fast'");
    await expect(code(id)).not.toContainText("'svc-model-5.2-fast'");
  }
  await expect(page.locator('[data-snippet="embeddings"] .hint')).toHaveText(
    'npm install openai. This key reaches no embedding model: make one that includes svc-embed in API Keys.',
  );
  const fetchCode = (await code('fetch').textContent())!;
  const openaiCode = (await code('openai').textContent())!;
  // Run as copied: both print the answer of the one model the key reaches.
  await page.goto('/test/pages/clients.html');
  await page.evaluate(async () => void (await window.inpageReady));
  const logged = await page.evaluate(
    async ([fetchSource, openaiSource]) => {
      const AsyncFunction = (async () => undefined).constructor as new (...args: string[]) => (OpenAI: unknown, console: unknown) => Promise<void>;
      const lines: unknown[] = [];
      const console = { log: (line: unknown) => lines.push(line) };
      await new AsyncFunction('OpenAI', 'console', fetchSource!)(window.clients.OpenAI, console);
      await new AsyncFunction('OpenAI', 'console', openaiSource!.replace("import OpenAI from 'openai';", ''))(window.clients.OpenAI, console);
      return lines;
    },
    [fetchCode, openaiCode],
  );
  expect(logged).toEqual(['Echo: Say hello in five words.', 'Echo: Say hello in five words.']);
});
