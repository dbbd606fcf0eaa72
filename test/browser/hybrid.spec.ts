// Hybrid inference in the test build (docs/hybrid.md): the local side is the deterministic engine, the upstream the
// OpenAI-compatible test server on loopback (test/upstream/server.ts, started by playwright.config.ts) — its
// deterministic flavours stream as vLLM, Ollama and llama-server do, its `llama` flavour is real llama.cpp. Each test
// uses a tag of its own in the upstream's paths, so parallel tests do not read each other's requests.
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { auth, call, chat, deployConfig, makeKey, openApp, sseEvents, type Answer } from './helpers';
import { UPSTREAM_PORT } from '../../playwright.config';
import { goToArea, openWorkspace, playgroundKey, registerThroughForm, sendAndWait } from './workspace-steps';

const UP = `http://127.0.0.1:${UPSTREAM_PORT}`;
/** A loopback port nothing listens on (the last of the range the tests' fixed ports take). */
const DOWN = `http://127.0.0.1:${4669 + Number(process.env.INPAGE_PORT_OFFSET ?? 0)}`;
const HOST = `upstream; host=127.0.0.1:${UPSTREAM_PORT}`;

let tags = 0;
/** Deploys one upstream `gpu` at `/<tag>/<flavour>/v1` and routes `ids` to it in `mode` (model `up/<id>`). */
async function hybrid(
  context: BrowserContext,
  flavour: string,
  mode: string,
  ids: string[],
  options: { base?: string; timeoutMs?: number; tag?: string } = {},
): Promise<string> {
  const tag = options.tag ?? `t${process.pid}-${Date.now()}-${tags++}`;
  await deployConfig(context, {
    upstreams: {
      gpu: {
        url: `${options.base ?? UP}/${tag}/${flavour}/v1`,
        dialect: flavour === 'llama' ? 'llama-server' : flavour.startsWith('fault') ? 'openai' : flavour,
        ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      },
    },
    models: Object.fromEntries(ids.map((id) => [id, { mode, upstream: { model: `up/${id}` } }])),
  });
  return tag;
}
const upstreamLog = async (tag: string): Promise<string[]> => (await (await fetch(`${UP}/${tag}/_log`)).json()) as string[];
const upstreamLast = async (tag: string): Promise<Record<string, unknown>> => (await (await fetch(`${UP}/${tag}/_last`)).json()) as Record<string, unknown>;

type Completion = {
  choices: {
    message: { content: string | null; reasoning?: string; reasoning_content?: string; tool_calls?: { function: { name: string; arguments: string } }[] };
    finish_reason: string;
  }[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  timings?: Record<string, number>;
};
const servedBy = (a: Answer) => a.headers['x-inpage-served-by'];
const errorOf = (a: Answer) => (a.json as { error: { code: string; message: string; type: string } }).error;

async function start(page: Page): Promise<string> {
  await openApp(page);
  return makeKey(page);
}

test('prefer-local, weights not here: the upstream answers at once while they download, then this device answers the same', async ({ page, context }) => {
  const tag = await hybrid(context, 'vllm', 'prefer-local', ['svc-model-5.2-fast']);
  const key = await start(page);
  const models = (await call(page, '/v1/models/svc-model-5.2-fast', { headers: auth(key) })).json as {
    mode: string;
    serving: { engine: string; why: string; upstream: { host: string } };
  };
  expect(models.mode).toBe('prefer-local');
  expect(models.serving.engine).toBe('upstream');
  expect(models.serving.why).toContain('not downloaded');
  const body = { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'count 4' }] };
  const first = await chat(page, key, body);
  expect(servedBy(first)).toBe(HOST);
  // vLLM's thinking switch went with the -fast id, and the upstream's model name.
  expect(await upstreamLast(tag)).toMatchObject({ model: 'up/svc-model-5.2-fast', chat_template_kwargs: { enable_thinking: false }, stream: true });
  // The weights download in the background; once here, this device answers.
  await expect
    .poll(async () => ((await call(page, '/v1/models/svc-model-5.2-fast', { headers: auth(key) })).json as { serving: { engine: string } }).serving.engine)
    .toBe('local');
  const second = await chat(page, key, body);
  expect(servedBy(second)).toBe('local');
  const a = first.json as Completion;
  const b = second.json as Completion;
  expect(a.choices[0]!.message.content).toBe('1 2 3 4');
  expect(b.choices[0]!.message.content).toBe(a.choices[0]!.message.content);
  expect(b.usage).toEqual(a.usage);
});

test("thinking through vLLM's `reasoning` comes back in both spellings; the stream carries usage", async ({ page, context }) => {
  await hybrid(context, 'vllm', 'upstream', ['svc-model-5.2']);
  const key = await start(page);
  const json = (await chat(page, key, { model: 'svc-model-5.2', messages: [{ role: 'user', content: 'hi' }] })).json as Completion;
  expect(json.choices[0]!.message).toMatchObject({ content: 'Echo: hi', reasoning: 'Thinking about: hi', reasoning_content: 'Thinking about: hi' });
  const streamed = await chat(page, key, {
    model: 'svc-model-5.2',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  expect(servedBy(streamed)).toBe(HOST);
  const chunks = sseEvents(streamed.text)
    .filter((d) => d !== '[DONE]')
    .map((d) => JSON.parse(d) as { choices: { delta: { content?: string; reasoning?: string } }[]; usage?: { total_tokens: number } });
  expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Echo: hi');
  expect(chunks.map((c) => c.choices[0]?.delta.reasoning ?? '').join('')).toBe('Thinking about: hi');
  expect(chunks.at(-1)!.usage!.total_tokens).toBe(json.usage.total_tokens);
});

test('offline: prefer-upstream answers here without asking; upstream mode says 503 upstream_unavailable, offline', async ({ page, context }) => {
  const tag = await hybrid(context, 'vllm', 'prefer-upstream', ['svc-model-5.2-fast']);
  const key = await start(page);
  await context.setOffline(true);
  try {
    await expect
      .poll(async () => ((await call(page, '/v1/models/svc-model-5.2-fast', { headers: auth(key) })).json as { serving: { why: string } }).serving.why)
      .toContain('offline');
    const answer = await chat(page, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'count 2' }] });
    expect(servedBy(answer)).toBe('local');
    expect((answer.json as Completion).choices[0]!.message.content).toBe('1 2');
  } finally {
    await context.setOffline(false);
  }
  expect(await upstreamLog(tag)).toEqual([]);
});

test('upstream mode while offline is 503 upstream_unavailable saying so', async ({ page, context }) => {
  await hybrid(context, 'vllm', 'upstream', ['svc-model-5.2-fast']);
  const key = await start(page);
  await context.setOffline(true);
  try {
    await expect
      .poll(async () => errorOf(await chat(page, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'x' }] }))?.message ?? '')
      .toContain('offline');
    const answer = await chat(page, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'x' }] });
    expect(answer.status).toBe(503);
    expect(errorOf(answer)).toMatchObject({ code: 'upstream_unavailable', type: 'server_error' });
  } finally {
    await context.setOffline(false);
  }
});

test('upstream down: prefer-upstream falls over to this device; upstream mode is 503 naming the upstream', async ({ page, context }) => {
  await hybrid(context, 'vllm', 'prefer-upstream', ['svc-model-5.2-fast'], { base: DOWN });
  const key = await start(page);
  const answer = await chat(page, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'count 3' }] });
  expect(servedBy(answer)).toBe('local');
  expect((answer.json as Completion).choices[0]!.message.content).toBe('1 2 3');
  // The failure is remembered: the models list says this device answers for a while, and why.
  const model = (await call(page, '/v1/models/svc-model-5.2-fast', { headers: auth(key) })).json as { serving: { engine: string; why: string } };
  expect(model.serving.engine).toBe('local');
  expect(model.serving.why).toContain('failed in the last');
});

// Upstream mode allows no fall-over: each failure is the answer, in the contract's shape, naming the upstream.
const FAILURES: [string, number, string, string, number?][] = [
  ['down', 503, 'upstream_unavailable', 'could not be reached'],
  ['fault-401-cors', 503, 'upstream_unavailable', 'HTTP 401'],
  ['fault-401', 503, 'upstream_unavailable', 'could not be reached'],
  ['fault-garbage', 502, 'upstream_error', 'not JSON'],
  ['fault-500', 502, 'upstream_error', 'CUDA out of memory'],
  ['fault-slow', 504, 'upstream_timeout', 'sent nothing within 500 ms', 500],
];
for (const [flavour, status, code, words, timeoutMs] of FAILURES) {
  test(`upstream mode, upstream ${flavour}: ${status} ${code}, naming the upstream (a 401 is not the client's key)`, async ({ page, context }) => {
    await hybrid(context, flavour === 'down' ? 'vllm' : flavour, 'upstream', ['svc-model-5.2-fast'], {
      ...(flavour === 'down' ? { base: DOWN } : {}),
      ...(timeoutMs ? { timeoutMs } : {}),
    });
    const key = await start(page);
    const answer = await chat(page, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'x' }] });
    expect(answer.status).toBe(status);
    expect(errorOf(answer)).toMatchObject({ code, type: 'server_error' });
    expect(errorOf(answer).message).toContain(words);
    expect(errorOf(answer).message).toContain("'gpu' (127.0.0.1:");
    expect(servedBy(answer)).toBe('upstream');
  });
}

test('a stream that breaks after its first token carries the failure in-band; abort mid-stream reaches the upstream', async ({ page, context }) => {
  const tag = await hybrid(context, 'fault-drip', 'upstream', ['svc-model-5.2-fast']);
  const key = await start(page);
  // Abort after the first pieces: the upstream sees its client go.
  const got = await page.evaluate(async (key) => {
    const controller = new AbortController();
    const res = await fetch('/v1/chat/completions', {
      method: 'POST',
      signal: controller.signal,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'x' }], stream: true }),
    });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('"2 "')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    return text;
  }, key);
  expect(got).toContain('"1 "');
  await expect.poll(() => upstreamLog(tag)).toContain('client aborted');

  await hybrid(context, 'fault-broken', 'upstream', ['svc-model-5.2-fast']);
  await page.close();
  const next = await context.newPage();
  await openApp(next);
  const broken = await chat(next, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'x' }], stream: true });
  const data = sseEvents(broken.text);
  expect(JSON.parse(data[1]!).choices[0].delta.content).toBe('Half');
  const failure = JSON.parse(data.at(-2)!) as { error: { code: string; message: string } };
  expect(failure.error.code).toBe('upstream_error');
  expect(data.at(-1)).toBe('[DONE]');
});

/** The same request answered here and by the upstream (its flavour), parsed. */
async function bothSides(
  page: Page,
  context: BrowserContext,
  flavour: string,
  request: Record<string, unknown>,
  path = '/v1/chat/completions',
): Promise<[Answer, Answer]> {
  await hybrid(context, flavour, 'upstream', [String(request.model)]);
  await openApp(page);
  const key = await makeKey(page);
  const remote = await call(page, path, { method: 'POST', headers: auth(key), body: JSON.stringify(request) });
  // The engine reads its config when it starts: the page that hosts it goes, and a new one starts it without upstreams.
  await deployConfig(context, {});
  await page.close();
  const here = await context.newPage();
  await openApp(here);
  const local = await call(here, path, { method: 'POST', headers: auth(key), body: JSON.stringify(request) });
  return [remote, local];
}

test('tools through Ollama (whole calls in one delta) parse as they do here', async ({ page, context }) => {
  const tools = [
    { type: 'function', function: { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
    { type: 'function', function: { name: 'time', parameters: { type: 'object', properties: {} } } },
  ];
  const [remote, local] = await bothSides(page, context, 'ollama', {
    model: 'svc-model-5.2-fast',
    messages: [{ role: 'user', content: 'weather and time please' }],
    tools,
    stream: true,
  });
  expect(servedBy(remote)).toBe(HOST);
  expect(servedBy(local)).toBe('local');
  const calls = (a: Answer) => {
    const out: Record<number, { name: string; args: string }> = {};
    for (const d of sseEvents(a.text)) {
      if (d === '[DONE]') continue;
      for (const c of (JSON.parse(d) as { choices: { delta: { tool_calls?: { index: number; function: { name?: string; arguments?: string } }[] } }[] })
        .choices[0]?.delta.tool_calls ?? []) {
        out[c.index] ??= { name: '', args: '' };
        out[c.index]!.name += c.function.name ?? '';
        out[c.index]!.args += c.function.arguments ?? '';
      }
    }
    return Object.values(out).map((c) => ({ name: c.name, args: JSON.parse(c.args) as unknown }));
  };
  expect(calls(remote)).toEqual([
    { name: 'weather', args: { city: expect.any(String) } },
    { name: 'time', args: {} },
  ]);
  expect(calls(remote)).toEqual(calls(local));
});

test('json_schema through vLLM: the same object as here', async ({ page, context }) => {
  const schema = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name', 'age'], additionalProperties: false };
  const [remote, local] = await bothSides(page, context, 'vllm', {
    model: 'svc-model-5.2-fast',
    messages: [{ role: 'user', content: 'a person' }],
    response_format: { type: 'json_schema', json_schema: { name: 'p', schema, strict: true } },
  });
  expect(servedBy(remote)).toBe(HOST);
  const parsed = JSON.parse((remote.json as Completion).choices[0]!.message.content!) as unknown;
  expect(parsed).toEqual({ name: expect.any(String), age: expect.any(Number) });
  expect(parsed).toEqual(JSON.parse((local.json as Completion).choices[0]!.message.content!));
});

test('the Responses API through the upstream (llama-server dialect) gives what this device gives', async ({ page, context }) => {
  const [remote, local] = await bothSides(
    page,
    context,
    'llama-server',
    { model: 'svc-model-5.2', input: 'hello responses', reasoning: { effort: 'low' } },
    '/v1/responses',
  );
  expect(servedBy(remote)).toBe(HOST);
  type R = { output: { type: string; content?: { type: string; text: string }[] }[]; usage: { input_tokens: number; output_tokens: number } };
  const text = (a: Answer) =>
    (a.json as R).output
      .flatMap((o) => o.content ?? [])
      .filter((c) => c.type === 'output_text')
      .map((c) => c.text)
      .join('');
  expect(text(remote)).toBe('Echo: hello responses');
  expect(text(remote)).toBe(text(local));
  expect((remote.json as R).usage).toEqual((local.json as R).usage);
});

test('embeddings through the upstream give the vectors this device gives', async ({ page, context }) => {
  const [remoteE, localE] = await bothSides(page, context, 'openai', { model: 'svc-embed', input: ['the cat sat', 'on the mat'] }, '/v1/embeddings');
  expect(servedBy(remoteE)).toBe(HOST);
  type E = { data: { embedding: number[]; index: number }[]; usage: { prompt_tokens: number } };
  expect((remoteE.json as E).data.map((d) => d.index)).toEqual([0, 1]);
  expect((remoteE.json as E).data[0]!.embedding).toHaveLength(384);
  expect((remoteE.json as E).data).toEqual((localE.json as E).data);
  expect((remoteE.json as E).usage).toEqual((localE.json as E).usage);
});

test('real llama.cpp upstream (llama-server dialect): JSON and SSE, its thinking split, usage and timings', async ({ page, context }) => {
  await hybrid(context, 'llama', 'upstream', ['svc-model-5.2-short']);
  const key = await start(page);
  const json = await chat(page, key, { model: 'svc-model-5.2-short', messages: [{ role: 'user', content: 'Hello the world' }], max_tokens: 10 });
  expect(servedBy(json)).toBe(HOST);
  const c = json.json as Completion;
  // The synthesized model thinks "<think> Let me think.</think>" first (scripts/gguf/synthesize.ts).
  expect(c.choices[0]!.message.reasoning_content).toBe(' Let me think.');
  expect(c.choices[0]!.message.reasoning).toBe(' Let me think.');
  expect(c.choices[0]!.message.content!.length).toBeGreaterThan(0);
  expect(c.usage.completion_tokens).toBe(10);
  expect(c.usage.total_tokens).toBe(c.usage.prompt_tokens + 10);
  expect(c.timings).toMatchObject({ predicted_n: 10, prompt_n: c.usage.prompt_tokens });
  const sse = await chat(page, key, { model: 'svc-model-5.2-short', messages: [{ role: 'user', content: 'Hello the world' }], max_tokens: 10, stream: true });
  const content = sseEvents(sse.text)
    .filter((d) => d !== '[DONE]')
    .map((d) => (JSON.parse(d) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '')
    .join('');
  // Greedy: the same answer again.
  expect(content).toBe(c.choices[0]!.message.content);
});

test('a config holding a literal API key is refused at start-up, naming the field', async ({ page, context }) => {
  await deployConfig(context, { upstreams: { gpu: { url: `${UP}/x/vllm/v1`, dialect: 'vllm', apiKey: 'sk-live-123' } } });
  await page.goto('/');
  const failure = await page.evaluate(() =>
    window.inpageReady!.then(
      () => 'started',
      (err: Error) => err.message,
    ),
  );
  expect(failure).toContain('upstreams.gpu.apiKey');
  expect(failure).toContain('served to every visitor');
});

test("a person's connection: added in the Models area with their own key, used by the next request without a reload, shown only in part, removed the same way", async ({
  page,
}) => {
  const tag = `conn-${process.pid}-${Date.now()}`;
  await openWorkspace(page);
  await registerThroughForm(page);
  const key = await makeKey(page);
  const body = { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'count 2' }] };
  // No upstream configured and no connection yet: this device answers.
  expect(servedBy(await chat(page, key, body))).toBe('local');
  await goToArea(page, 'Models');
  const form = page.getByRole('form', { name: 'Add an upstream connection' });
  await form.getByLabel('Name', { exact: true }).fill('mine');
  await form.getByLabel('Base URL', { exact: true }).fill(`${UP}/${tag}/auth/v1`);
  await form.getByLabel('API key (optional)', { exact: true }).fill('sk-test-connection');
  await form.getByLabel('For the id', { exact: true }).selectOption('svc-model-5.2-fast');
  await form.getByLabel("The server's model name", { exact: true }).fill('up/svc-model-5.2-fast');
  await form.getByLabel('Mode', { exact: true }).selectOption('upstream');
  await form.getByRole('button', { name: 'Add connection' }).click();
  const row = page.locator('li[data-connection="mine"]');
  await expect(row.getByTestId('connection-key')).toHaveText('sk-t…tion');
  await expect(row).not.toContainText('sk-test-connection');
  // The mode in plain words, in the list and in the form's choices.
  await expect(row).toContainText('svc-model-5.2-fast → up/svc-model-5.2-fast: your server only');
  await expect(form.getByLabel('Mode', { exact: true }).locator('option[value="prefer-local"]')).toHaveText(
    'This device first, your server when this device cannot (prefer-local)',
  );

  // The next request, without a reload, goes to the new connection (the engine worker was told on a BroadcastChannel).
  await expect(page.locator('article[data-model="svc-model-5.2-fast"]').getByTestId('serving')).toHaveAttribute('data-engine', 'upstream');
  const answer = await chat(page, key, body);
  expect(servedBy(answer)).toBe(HOST);
  expect((answer.json as Completion).choices[0]!.message.content).toBe('1 2');
  expect(await upstreamLog(tag)).toEqual(['auth /v1/chat/completions']);
  await expect(page.locator('article[data-model="svc-model-5.2-fast"]').getByTestId('serving')).toContainText('now · your server only.');

  await row.getByRole('button', { name: 'Remove connection mine' }).click();
  await expect(page.getByTestId('no-connections')).toBeVisible();
  await expect(page.locator('article[data-model="svc-model-5.2-fast"]').getByTestId('serving')).toHaveAttribute('data-engine', 'local');
  const after = await chat(page, key, body);
  expect(servedBy(after)).toBe('local');
  expect(await upstreamLog(tag)).toEqual(['auth /v1/chat/completions']);
  // A reload keeps the removal.
  await page.reload();
  await page.evaluate(async () => void (await window.inpageReady));
  expect(servedBy(await chat(page, key, body))).toBe('local');
});

test("a connection's Test button: a reachable server's models (and whether the connection's model is among them); a dead one, a refused key and a failing server each named by their cause", async ({
  page,
}) => {
  const tag = `test-${process.pid}-${Date.now()}`;
  await openWorkspace(page);
  await registerThroughForm(page);
  await goToArea(page, 'Models');
  const form = page.getByRole('form', { name: 'Add an upstream connection' });
  const add = async (name: string, url: string, apiKey: string, model = 'up/svc-model-5.2-fast') => {
    await form.getByLabel('Name', { exact: true }).fill(name);
    await form.getByLabel('Base URL', { exact: true }).fill(url);
    await form.getByLabel('API key (optional)', { exact: true }).fill(apiKey);
    await form.getByLabel('For the id', { exact: true }).selectOption('svc-model-5.2-fast');
    await form.getByLabel("The server's model name", { exact: true }).fill(model);
    await form.getByRole('button', { name: 'Add connection' }).click();
    await expect(page.locator(`li[data-connection="${name}"]`)).toBeVisible();
  };
  const tested = async (name: string) => {
    const row = page.locator(`li[data-connection="${name}"]`);
    await row.getByRole('button', { name: `Test connection ${name}` }).click();
    const result = row.getByTestId('connection-test');
    await expect(result).toHaveAttribute('data-ok', /true|false/, { timeout: 60_000 });
    return { ok: await result.getAttribute('data-ok'), text: await result.textContent(), row };
  };
  await add('good', `${UP}/${tag}/auth/v1`, 'sk-test-connection');
  await add('other-name', `${UP}/${tag}/vllm/v1`, '', 'up/not-there');
  await add('wrong-key', `${UP}/${tag}/auth/v1`, 'sk-wrong-key-123');
  await add('dead', `${DOWN}/v1`, '');
  await add('failing', `${UP}/${tag}/fault-500/v1`, '');

  const good = await tested('good');
  expect(good.ok).toBe('true');
  expect(good.text).toBe('Reachable: the server lists 2 models: up/svc-model-5.2-fast, up/svc-model-5.2-short.');
  const other = await tested('other-name');
  expect(other.ok).toBe('true');
  expect(other.text).toBe(
    "Reachable: the server lists 2 models: up/svc-model-5.2-fast, up/svc-model-5.2-short. Not among them: up/not-there (check the server's model name).",
  );
  const refused = await tested('wrong-key');
  expect(refused.ok).toBe('false');
  expect(refused.text).toBe('The server refused the key (HTTP 401).');
  await refused.row.getByText('Technical detail').click();
  await expect(refused.row.locator('details p')).toContainText('Invalid key.');
  await expect(refused.row).not.toContainText('sk-wrong-key-123');
  const dead = await tested('dead');
  expect(dead.ok).toBe('false');
  expect(dead.text).toMatch(/^Could not reach the server: it is down, the address is wrong, or it does not let this site in \(CORS/);
  const failing = await tested('failing');
  expect(failing.ok).toBe('false');
  expect(failing.text).toBe('The server is failing (HTTP 500).');
  await page
    .locator('section.upstream-connections')
    .screenshot({ path: `${process.env.INPAGE_SCREENS_DIR ?? 'test-results/screens'}/models-connection-tests.png` });
});

test('the Playground says per answer where it ran: the upstream (with its host) for an id in upstream mode, this device for the others', async ({
  page,
  context,
}) => {
  await hybrid(context, 'vllm', 'upstream', ['svc-model-5.2-short-fast']);
  await openWorkspace(page);
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  await playgroundKey(page);
  await page.getByLabel('Model').selectOption('svc-model-5.2-short-fast');
  const remote = await sendAndWait(page, 'hello upstream');
  await expect(remote.locator('.answer')).toHaveText('Echo: hello upstream');
  await expect(remote.getByTestId('stats')).toContainText(`answered by the upstream 127.0.0.1:${UPSTREAM_PORT}`);
  await page.getByLabel('Model').selectOption('svc-model-5.2-fast');
  const here = await sendAndWait(page, 'hello device');
  await expect(here.getByTestId('stats')).toContainText('answered on this device');
  await expect(here.getByTestId('stats')).not.toContainText('upstream');
});

test('a variant too large for this CPU device that an upstream serves (prefer-local) is no "cannot run here": the Playground sends it, the upstream answers', async ({
  page,
  context,
}) => {
  await hybrid(context, 'vllm', 'prefer-local', ['svc-model-5.2-fast']);
  // The test build's knob: a device without WebGPU with 4 GiB for a model, which Qwen3-8B does not fit.
  await openWorkspace(page, '/?cpuMemoryMiB=4096');
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  await playgroundKey(page);
  const picker = page.getByLabel('Model');
  await expect(picker.locator('option[value="svc-model-5.2-fast"]')).toHaveText('svc-model-5.2-fast · Qwen3 8B · answered upstream');
  await expect(picker.locator('option[value="svc-model-5.2"]')).toHaveText('svc-model-5.2 · Qwen3 8B · cannot run here');
  await picker.selectOption('svc-model-5.2-fast');
  await expect(page.getByTestId('cannot-run')).toHaveCount(0);
  const answer = await sendAndWait(page, 'hello from a small device');
  await expect(answer.locator('.answer')).toHaveText('Echo: hello from a small device');
  await expect(answer.getByTestId('stats')).toContainText(`answered by the upstream 127.0.0.1:${UPSTREAM_PORT}`);
});

/** One id of the deployment's own, `acme-large`, that only the upstream answers (no local model). */
async function upstreamOnlyId(context: BrowserContext): Promise<string> {
  const tag = `t${process.pid}-${Date.now()}-${tags++}`;
  await deployConfig(context, {
    upstreams: { gpu: { url: `${UP}/${tag}/vllm/v1`, dialect: 'vllm' } },
    models: { 'acme-large': { mode: 'upstream', upstream: { model: 'up/acme-large' }, contextLength: 32768 } },
  });
  return tag;
}

test("an id of the deployment's own that only an upstream answers: listed with its route, answered upstream, 503 offline", async ({ page, context }) => {
  const tag = await upstreamOnlyId(context);
  const key = await start(page);
  const listed = (await call(page, '/v1/models', { headers: auth(key) })).json as {
    data: { id: string; mode?: string; serving?: { engine: string; why: string; upstream: { model: string } } }[];
  };
  const own = listed.data.find((m) => m.id === 'acme-large');
  expect(own).toMatchObject({ mode: 'upstream', serving: { engine: 'upstream', upstream: { model: 'up/acme-large' } } });
  // The five are still this device's.
  expect(listed.data.find((m) => m.id === 'svc-model-5.2-fast')).toMatchObject({ mode: 'local', serving: { engine: 'local' } });
  const answer = await chat(page, key, { model: 'acme-large', messages: [{ role: 'user', content: 'count 3' }] });
  expect(servedBy(answer)).toBe(HOST);
  expect((answer.json as Completion).choices[0]!.message.content).toBe('1 2 3');
  expect(await upstreamLast(tag)).toMatchObject({ model: 'up/acme-large', stream: true });
  await context.setOffline(true);
  const offline = await chat(page, key, { model: 'acme-large', messages: [{ role: 'user', content: 'count 3' }] });
  expect(offline.status).toBe(503);
  expect(errorOf(offline).code).toBe('upstream_unavailable');
  expect(errorOf(offline).message).toContain('offline');
});

test("an id of the deployment's own that only an upstream answers is sendable in the Playground, which says where it ran", async ({ page, context }) => {
  await upstreamOnlyId(context);
  await openWorkspace(page);
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  await playgroundKey(page);
  const picker = page.getByLabel('Model');
  await expect(picker.locator('option[value="acme-large"]')).toHaveText('acme-large · answered upstream');
  await picker.selectOption('acme-large');
  await goToArea(page, 'Models');
  // Not "Unavailable": this device has no model for it, and the upstream answers it.
  await expect(page.locator('article[data-model="acme-large"]').getByTestId('state')).toHaveText('Answered upstream');
  await expect(page.locator('article[data-model="acme-large"]').getByTestId('unavailable')).toHaveText(
    'Answered by an upstream server only: this device has no model for it.',
  );
  await page
    .locator('article[data-model="acme-large"]')
    .screenshot({ path: `${process.env.INPAGE_SCREENS_DIR ?? 'test-results/screens'}/models-upstream-only-card.png` });
  await goToArea(page, 'Playground');
  await expect(page.getByTestId('cannot-run')).toHaveCount(0);
  const sent = await sendAndWait(page, 'hello own id');
  await expect(sent.locator('.answer')).toHaveText('Echo: hello own id');
  await expect(sent.getByTestId('stats')).toContainText(`answered by the upstream 127.0.0.1:${UPSTREAM_PORT}`);
});

test('the Models area switches the mode of an id the config routes: the next request follows it at once, and a reload keeps it', async ({ page, context }) => {
  const tag = await hybrid(context, 'vllm', 'prefer-local', ['svc-model-5.2-fast']);
  await openWorkspace(page);
  await registerThroughForm(page);
  const key = await makeKey(page);
  await goToArea(page, 'Models');
  const serving = page.locator('article[data-model="svc-model-5.2-fast"]').getByTestId('serving');
  await expect(serving).toHaveAttribute('data-mode', 'prefer-local');
  await expect(serving).toHaveAttribute('data-engine', 'upstream');
  // An id the config leaves local has no switch.
  await expect(page.getByLabel('Mode for svc-model-5.2-short')).toHaveCount(0);

  // The card as a person sees it (test-results/screens, as the workspace specs keep theirs).
  await page
    .locator('article[data-model="svc-model-5.2-fast"]')
    .screenshot({ path: `${process.env.INPAGE_SCREENS_DIR ?? 'test-results/screens'}/models-mode-switch-card.png` });
  await page.getByLabel('Mode for svc-model-5.2-fast').selectOption('local');
  await expect(serving).toHaveAttribute('data-mode', 'local');
  await expect(serving).toHaveAttribute('data-engine', 'local');
  const body = { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'count 2' }] };
  const here = await chat(page, key, body);
  expect(servedBy(here)).toBe('local');
  expect(await upstreamLog(tag)).toEqual([]);

  await page.reload();
  await page.evaluate(async () => void (await window.inpageReady));
  await expect(serving).toHaveAttribute('data-mode', 'local');
  await page.getByLabel('Mode for svc-model-5.2-fast').selectOption('upstream');
  await expect(serving).toHaveAttribute('data-mode', 'upstream');
  const there = await chat(page, key, body);
  expect(servedBy(there)).toBe(HOST);
  expect((there.json as Completion).choices[0]!.message.content).toBe('1 2');
  expect(((await call(page, '/v1/models/svc-model-5.2-fast', { headers: auth(key) })).json as { mode: string }).mode).toBe('upstream');
});
