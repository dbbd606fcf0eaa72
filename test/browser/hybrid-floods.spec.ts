// Hostile upstreams (docs/hybrid.md "Bounds"): the test upstream server's `flood-*` flavours (test/upstream/floods.ts)
// send 64 MiB without a newline, one token then silence, deltas without end, 10,000 tool calls, usage of 1e308, half an
// answer without its finish, and a 401 that echoes the key. Each ends in a bounded, contract-shaped error (in-band
// after the first token) within the upstream's documented bounds, while a local request from another tab still
// answers. Bounds whose default would make a test slow are set small in the test's config; the 64 MiB line and the
// 10,000 calls run at the defaults.
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { auth, call, chat, deployConfig, makeKey, openApp, sseEvents } from './helpers';
import { UPSTREAM_PORT } from '../../playwright.config';

const UP = `http://127.0.0.1:${UPSTREAM_PORT}`;
const FAST = 'svc-model-5.2-fast';
/** Left local by the config: the other tab's request, answered by this device's engine. */
const LOCAL = 'svc-model-5.2-short-fast';

let tags = 0;
const newTag = () => `flood${process.pid}-${Date.now()}-${tags++}`;
/** Deploys one upstream `gpu` at `/<tag>/<flavour>/v1` (with `bounds`) and routes FAST to it in mode upstream. */
async function deploy(context: BrowserContext, flavour: string, bounds: Record<string, number> = {}, extra: Record<string, unknown> = {}): Promise<string> {
  const tag = newTag();
  await deployConfig(context, {
    upstreams: { gpu: { url: `${UP}/${tag}/${flavour}/v1`, dialect: 'openai', ...bounds } },
    models: { [FAST]: { mode: 'upstream', upstream: { model: `up/${FAST}` } } },
    ...extra,
  });
  return tag;
}
const upstreamLog = async (tag: string): Promise<string[]> => (await (await fetch(`${UP}/${tag}/_log`)).json()) as string[];

type ErrorBody = { error: { message: string; type: string; param: string | null; code: string } };
type Chunk = { choices: { delta?: { content?: string; tool_calls?: { index: number }[] }; text?: string; finish_reason: string | null }[] };

/** The stream's pieces of content, its finish reasons and its in-band error (contract-shaped), with [DONE] last. */
function inBand(text: string): { content: string; finishes: (string | null)[]; calls: number; error: ErrorBody['error'] } {
  const data = sseEvents(text);
  expect(data.at(-1)).toBe('[DONE]');
  const error = JSON.parse(data.at(-2)!) as ErrorBody;
  expect(Object.keys(error.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  const chunks = data.slice(0, -2).map((d) => JSON.parse(d) as Chunk);
  return {
    content: chunks.map((c) => c.choices[0]?.delta?.content ?? c.choices[0]?.text ?? '').join(''),
    finishes: chunks.map((c) => c.choices[0]?.finish_reason ?? null).filter((f) => f !== null),
    calls: new Set(chunks.flatMap((c) => (c.choices[0]?.delta?.tool_calls ?? []).map((t) => t.index))).size,
    error: error.error,
  };
}

/** A second tab of the same origin: a request of its own that this device answers. */
async function localFromAnotherTab(context: BrowserContext, key: string): Promise<string | null> {
  const tab = await context.newPage();
  try {
    await openApp(tab);
    const answer = await chat(tab, key, { model: LOCAL, messages: [{ role: 'user', content: 'count 3' }] });
    expect(answer.headers['x-inpage-served-by']).toBe('local');
    return (answer.json as { choices: { message: { content: string | null } }[] }).choices[0]!.message.content;
  } finally {
    await tab.close();
  }
}

/** Starts a streamed request for FAST on `page` (not awaited), runs the other tab's local request meanwhile, then returns both. */
async function floodBeside(
  page: Page,
  context: BrowserContext,
  key: string,
  body: Record<string, unknown> = {},
): Promise<{ flood: string; local: string | null }> {
  const flood = page.evaluate(
    async ({ key, body }) => {
      const res = await fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'x' }], stream: true, ...body }),
      });
      return res.text();
    },
    { key, body },
  );
  const local = await localFromAnotherTab(context, key);
  return { flood: await flood, local };
}

async function start(page: Page): Promise<string> {
  await openApp(page);
  return makeKey(page);
}

test('64 MiB without a newline, at the default bounds: an in-band upstream_error naming maxEventBytes, the upstream cut off; another tab answers meanwhile', async ({
  page,
  context,
}) => {
  test.setTimeout(180_000);
  const tag = await deploy(context, 'flood-line');
  const key = await start(page);
  const { flood, local } = await floodBeside(page, context, key);
  expect(local).toBe('1 2 3');
  const got = inBand(flood);
  expect(got.content).toBe('One');
  expect(got.finishes).toEqual([]);
  expect(got.error).toMatchObject({ code: 'upstream_error', type: 'server_error' });
  expect(got.error.message).toContain("larger than 1.00 MiB (its 'maxEventBytes' bound)");
  // inpage stopped reading: the server saw its client go long before its 64 MiB were sent.
  await expect.poll(() => upstreamLog(tag)).toContain('client aborted');
});

test('one token then silence: an in-band upstream_timeout after idleMs, the lane freed', async ({ page, context }) => {
  const tag = await deploy(context, 'flood-silence', { idleMs: 1500 });
  const key = await start(page);
  const { flood, local } = await floodBeside(page, context, key);
  expect(local).toBe('1 2 3');
  const got = inBand(flood);
  expect(got.content).toBe('One');
  expect(got.error).toMatchObject({ code: 'upstream_timeout', type: 'server_error' });
  expect(got.error.message).toContain("sent nothing for 1500 ms in the middle of its answer (its 'idleMs' bound)");
  await expect.poll(() => upstreamLog(tag)).toContain('client aborted');
});

test('deltas without end: an in-band upstream_error once the answer passes maxAnswerBytes', async ({ page, context }) => {
  const tag = await deploy(context, 'flood-endless', { maxAnswerBytes: 1_048_576 });
  const key = await start(page);
  const { flood, local } = await floodBeside(page, context, key);
  expect(local).toBe('1 2 3');
  const got = inBand(flood);
  expect(got.content.startsWith('One 0 1 2 3')).toBe(true);
  expect(got.error).toMatchObject({ code: 'upstream_error', type: 'server_error' });
  expect(got.error.message).toContain("larger than 1.00 MiB (its 'maxAnswerBytes' bound)");
  await expect.poll(() => upstreamLog(tag)).toContain('client aborted');
});

test('10,000 tool calls, at the default bounds: an in-band upstream_error past maxToolCalls (128)', async ({ page, context }) => {
  test.setTimeout(120_000);
  await deploy(context, 'flood-tools');
  const key = await start(page);
  const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }];
  const { flood, local } = await floodBeside(page, context, key, { tools });
  expect(local).toBe('1 2 3');
  const got = inBand(flood);
  expect(got.calls).toBeGreaterThan(0);
  expect(got.calls).toBeLessThanOrEqual(128);
  expect(got.error).toMatchObject({ code: 'upstream_error', type: 'server_error' });
  expect(got.error.message).toContain("more than 128 tool calls in one answer (its 'maxToolCalls' bound)");
});

test('usage of 1e308: disregarded, the answer counted here in safe whole numbers', async ({ page, context }) => {
  await deploy(context, 'flood-usage');
  const key = await start(page);
  const answer = await chat(page, key, { model: FAST, messages: [{ role: 'user', content: 'x' }] });
  const json = answer.json as {
    choices: { message: { content: string }; finish_reason: string }[];
    usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  };
  expect(json.choices[0]).toMatchObject({ message: { content: 'One two' }, finish_reason: 'stop' });
  expect(json.usage.completion_tokens).toBe(2);
  expect(Number.isSafeInteger(json.usage.prompt_tokens) && json.usage.prompt_tokens > 0).toBe(true);
  expect(json.usage.total_tokens).toBe(json.usage.prompt_tokens + 2);
});

test('half an answer without its finish or [DONE] is an in-band upstream_error in chat, legacy completions and Responses streams, never a stop', async ({
  page,
  context,
}) => {
  await deploy(context, 'flood-truncated');
  const key = await start(page);
  const words = 'broke off its answer: it ended without a finish_reason';
  const chatStream = inBand((await chat(page, key, { model: FAST, messages: [{ role: 'user', content: 'x' }], stream: true })).text);
  expect(chatStream.content).toBe('One half');
  expect(chatStream.finishes).toEqual([]);
  expect(chatStream.error).toMatchObject({ code: 'upstream_error' });
  expect(chatStream.error.message).toContain(words);

  const legacy = inBand(
    (await call(page, '/v1/completions', { method: 'POST', headers: auth(key), body: JSON.stringify({ model: FAST, prompt: 'x', stream: true }) })).text,
  );
  expect(legacy.content).toBe('One half');
  expect(legacy.finishes).toEqual([]);
  expect(legacy.error.message).toContain(words);

  const responses = await call(page, '/v1/responses', { method: 'POST', headers: auth(key), body: JSON.stringify({ model: FAST, input: 'x', stream: true }) });
  const events = responses.text
    .split('\n\n')
    .filter((b) => b)
    .map((b) => ({ event: /^event: (.*)$/m.exec(b)![1]!, data: JSON.parse(/^data: (.*)$/m.exec(b)![1]!) as Record<string, unknown> }));
  expect(events.slice(-2).map((e) => e.event)).toEqual(['error', 'response.failed']);
  expect(events.at(-2)!.data).toMatchObject({ code: 'upstream_error', message: expect.stringContaining(words) });
  expect(events.map((e) => e.event)).not.toContain('response.completed');
});

test("an upstream that echoes the key in its error: the connection's key is redacted from the answer", async ({ page, context }) => {
  const tag = newTag();
  const KEY = 'sk-echo-0123456789abcdefSECRET';
  await deployConfig(context, { upstreams: { gpu: { url: `${UP}/${tag}/openai/v1`, dialect: 'openai' } } });
  const key = await start(page);
  // A person's connection with their own key (as the Models area's form saves it), read by the engine at its start.
  await page.evaluate(
    ({ url, secret }) =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open('inpage-upstreams', 2);
        open.onupgradeneeded = () => {
          if (!open.result.objectStoreNames.contains('connections')) open.result.createObjectStore('connections', { keyPath: 'name' });
          if (!open.result.objectStoreNames.contains('modes')) open.result.createObjectStore('modes', { keyPath: 'id' });
        };
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const tx = open.result.transaction('connections', 'readwrite');
          tx.objectStore('connections').put({
            name: 'echo',
            url,
            dialect: 'openai',
            key: secret,
            models: { 'svc-model-5.2-fast': { model: 'up/x', mode: 'upstream' } },
            created: Date.now(),
          });
          tx.oncomplete = () => (open.result.close(), resolve());
          tx.onerror = () => reject(tx.error);
        };
      }),
    { url: `${UP}/${tag}/flood-echo-key/v1`, secret: KEY },
  );
  await page.reload();
  await page.evaluate(async () => void (await window.inpageReady));
  const answer = await chat(page, key, { model: FAST, messages: [{ role: 'user', content: 'x' }] });
  expect(answer.status).toBe(503);
  const error = (answer.json as ErrorBody).error;
  expect(error).toMatchObject({ code: 'upstream_unavailable', type: 'server_error' });
  expect(error.message).toContain('Incorrect API key provided: Bearer [redacted]');
  expect(answer.text).not.toContain('0123456789abcdef');
  expect(await upstreamLog(tag)).toEqual(['flood-echo-key /v1/chat/completions']);
});

test('a vision request routed upstream with a link-local image URL is a 400 before anything is sent', async ({ page, context }) => {
  const tag = newTag();
  await deployConfig(context, {
    upstreams: { gpu: { url: `${UP}/${tag}/openai/v1`, dialect: 'openai' } },
    models: { 'svc-vision': { mode: 'upstream', upstream: { model: 'up/svc-vision' } } },
  });
  const key = await start(page);
  const answer = await chat(page, key, {
    model: 'svc-vision',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this' },
          { type: 'image_url', image_url: { url: 'http://169.254.169.254/latest/meta-data/iam/' } },
        ],
      },
    ],
  });
  expect(answer.status).toBe(400);
  expect((answer.json as ErrorBody).error).toMatchObject({
    code: 'invalid_value',
    type: 'invalid_request_error',
    param: 'messages[0].content[1].image_url.url',
  });
  expect(await upstreamLog(tag)).toEqual([]);
});

test('a key in a model-file base URL is refused at start-up, naming the setting', async ({ page, context }) => {
  await deployConfig(context, { ggufBaseUrl: 'https://cdn.example.com/models?sig=abc' });
  await page.goto('/');
  const failure = await page.evaluate(() =>
    window.inpageReady!.then(
      () => 'started',
      (err: Error) => err.message,
    ),
  );
  expect(failure).toContain('ggufBaseUrl: a literal credential in inpage.config.json is refused');
});
