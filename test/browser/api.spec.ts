// The /v1 endpoints with plain fetch from a page: routes, auth, errors, headers (docs/contract.md).
import { expect, test, type Page } from '@playwright/test';
import { VARIANT_IDS } from '#shared/variants';
import { auth, call, chat, makeKey, openApp, type Answer } from './helpers';
import { expectSchema } from './schema';

const hi = { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'hi' }] };

function expectError(answer: Answer, status: number, code: string, param: string | null = null): void {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(answer.headers['x-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
  expectSchema('ErrorResponse', answer.json);
  const body = answer.json as { error: Record<string, unknown> };
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error).toEqual({ message: expect.any(String), type: expect.any(String), param, code });
  expect((body.error.message as string).length).toBeGreaterThan(10);
}

let page: Page;
let key: string;

test.beforeEach(async ({ page: p }) => {
  page = p;
  await openApp(page);
  key = await makeKey(page);
});

test('GET /v1/models lists the five variants and svc-embed with the contract fields', async () => {
  const answer = await call(page, '/v1/models', { headers: { authorization: `Bearer ${key}` } });
  expect(answer.status).toBe(200);
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(answer.headers['x-request-id']).toMatch(/^req_/);
  expectSchema('ListModelsResponse', answer.json);
  const list = answer.json as { object: string; data: Record<string, unknown>[] };
  expect(list.object).toBe('list');
  expect(list.data.map((m) => m.id)).toEqual([...VARIANT_IDS]);
  const orgId = await page.evaluate(async () => (await window.inpage!.workspace.get())!.orgId);
  for (const model of list.data) {
    expect(model).toEqual({
      id: expect.any(String),
      object: 'model',
      created: expect.any(Number),
      owned_by: orgId,
      context_length: expect.any(Number),
      reasoning: expect.any(Boolean),
      vision: expect.any(Boolean),
      state: expect.stringMatching(/^(not_downloaded|downloading|cached|loading|ready|unavailable)$/),
      // Only the embedding model says so, with the size of its vectors.
      ...(model.id === 'svc-embed' ? { embeddings: true, dimensions: 384 } : {}),
    });
  }
  const byId = Object.fromEntries(list.data.map((m) => [m.id, m]));
  expect(byId['svc-embed']).toMatchObject({ reasoning: false, vision: false, context_length: 512, embeddings: true });
  expect(byId['svc-model-5.2']).toMatchObject({ reasoning: true, vision: false });
  expect(byId['svc-model-5.2-fast']).toMatchObject({ reasoning: false, vision: false });
  expect(byId['svc-vision']).toMatchObject({ vision: true });
});

test('GET /v1/models/{id} answers one model, and 404 model_not_found for others', async () => {
  const one = await call(page, '/v1/models/svc-model-5.2-short', { headers: { authorization: `Bearer ${key}` } });
  expect(one.status).toBe(200);
  expectSchema('Model', one.json);
  expect(one.json).toMatchObject({ id: 'svc-model-5.2-short', object: 'model', reasoning: true });
  expectError(await call(page, '/v1/models/gpt-4o', { headers: { authorization: `Bearer ${key}` } }), 404, 'model_not_found', 'model');
});

test('a key sees only the models it reaches; others answer exactly like unknown models', async () => {
  const narrow = await makeKey(page, { name: 'narrow', models: ['svc-model-5.2-short-fast'] });
  const list = await call(page, '/v1/models', { headers: { authorization: `Bearer ${narrow}` } });
  expect((list.json as { data: { id: string }[] }).data.map((m) => m.id)).toEqual(['svc-model-5.2-short-fast']);
  const hidden = await call(page, '/v1/models/svc-model-5.2', { headers: { authorization: `Bearer ${narrow}` } });
  const unknown = await call(page, '/v1/models/no-such-model', { headers: { authorization: `Bearer ${narrow}` } });
  expectError(hidden, 404, 'model_not_found', 'model');
  expect((hidden.json as { error: { message: string } }).error.message).toBe(
    (unknown.json as { error: { message: string } }).error.message.replace('no-such-model', 'svc-model-5.2'),
  );
  expectError(await chat(page, narrow, hi), 404, 'model_not_found', 'model');
  expect((await chat(page, narrow, { ...hi, model: 'svc-model-5.2-short-fast' })).status).toBe(200);
});

test('POST /v1/chat/completions answers a chat.completion object', async () => {
  const answer = await chat(page, key, {
    ...hi,
    messages: [
      { role: 'system', content: 'be kind' },
      { role: 'user', content: 'hello world' },
    ],
  });
  expect(answer.status).toBe(200);
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(answer.headers['x-request-id']).toMatch(/^req_/);
  expectSchema('CreateChatCompletionResponse', answer.json);
  const completion = answer.json as Record<string, unknown>;
  expect(completion).toEqual({
    id: expect.stringMatching(/^chatcmpl-/),
    object: 'chat.completion',
    created: expect.any(Number),
    model: 'svc-model-5.2-fast',
    system_fingerprint: expect.any(String),
    choices: [{ index: 0, message: { role: 'assistant', content: 'Echo: hello world', refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage: {
      prompt_tokens: expect.any(Number),
      completion_tokens: 3,
      total_tokens: expect.any(Number),
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    },
  });
  const usage = completion.usage as { prompt_tokens: number; total_tokens: number };
  expect(usage.total_tokens).toBe(usage.prompt_tokens + 3);
  expect(Math.abs((completion.created as number) - Date.now() / 1000)).toBeLessThan(600);
});

test('usage.prompt_tokens_details.cached_tokens: the earlier turns of a continued conversation, none for an edited one', async () => {
  type Usage = { prompt_tokens: number; prompt_tokens_details: { cached_tokens: number } };
  const ask = async (messages: { role: string; content: string }[]) => {
    const answer = await chat(page, key, { ...hi, model: 'svc-model-5.2', messages });
    expect(answer.status).toBe(200);
    const json = answer.json as { choices: { message: { content: string } }[]; usage: Usage };
    return { content: json.choices[0]!.message.content, usage: json.usage };
  };
  const first = await ask([{ role: 'user', content: 'turn one' }]);
  expect(first.usage.prompt_tokens_details.cached_tokens).toBe(0);
  // The client sends back the content only; the reasoning it was given stays out, as clients do.
  const history = [
    { role: 'user', content: 'turn one' },
    { role: 'assistant', content: first.content },
  ];
  const second = await ask([...history, { role: 'user', content: 'turn two' }]);
  // Everything but the new message ("turn two": 2 tokens, plus 4 of the test engine's template) was cached.
  expect(second.usage.prompt_tokens_details.cached_tokens).toBe(second.usage.prompt_tokens - (2 + 4));
  const edited = await ask([
    { role: 'user', content: 'turn 1' },
    { role: 'assistant', content: first.content },
    { role: 'user', content: 'turn two' },
  ]);
  expect(edited.usage.prompt_tokens_details.cached_tokens).toBe(0);
});

test('thinking goes to reasoning_content and reasoning, never content; reasoning_effort none turns it off', async () => {
  const thinking = (await chat(page, key, { ...hi, model: 'svc-model-5.2' })).json as {
    choices: { message: Record<string, string> }[];
    usage: { completion_tokens_details: { reasoning_tokens: number } };
  };
  expect(thinking.choices[0]!.message.content).toBe('Echo: hi');
  expect(thinking.choices[0]!.message.reasoning_content).toBe('Thinking about: hi');
  expect(thinking.choices[0]!.message.reasoning).toBe('Thinking about: hi');
  expect(thinking.usage.completion_tokens_details.reasoning_tokens).toBe(3);
  const plain = (await chat(page, key, { ...hi, model: 'svc-model-5.2', reasoning_effort: 'none' })).json as {
    choices: { message: Record<string, string> }[];
  };
  expect(plain.choices[0]!.message).toEqual({ role: 'assistant', content: 'Echo: hi', refusal: null });
});

test('max_tokens and max_completion_tokens cut with finish_reason length; stop cuts with stop', async () => {
  const cut = (await chat(page, key, { ...hi, messages: [{ role: 'user', content: 'count 10' }], max_tokens: 4 })).json as {
    choices: { message: { content: string }; finish_reason: string }[];
    usage: { completion_tokens: number };
  };
  expect(cut.choices[0]).toMatchObject({ message: { content: '1 2 3 4' }, finish_reason: 'length' });
  expect(cut.usage.completion_tokens).toBe(4);
  const cut2 = (await chat(page, key, { ...hi, messages: [{ role: 'user', content: 'count 10' }], max_completion_tokens: 2 })).json as {
    choices: { message: { content: string }; finish_reason: string }[];
  };
  expect(cut2.choices[0]).toMatchObject({ message: { content: '1 2' }, finish_reason: 'length' });
  const stopped = (await chat(page, key, { ...hi, messages: [{ role: 'user', content: 'count 10' }], stop: [' 5', 'x'] })).json as {
    choices: { message: { content: string }; finish_reason: string }[];
  };
  expect(stopped.choices[0]).toMatchObject({ message: { content: '1 2 3 4' }, finish_reason: 'stop' });
  // A thinking variant: the stop sequence also occurs in the thinking, which runs on; only the answer is cut.
  const thought = (await chat(page, key, { ...hi, model: 'svc-model-5.2', messages: [{ role: 'user', content: 'count 10' }], stop: ['about', ' 10'] }))
    .json as {
    choices: { message: { content: string; reasoning_content: string }; finish_reason: string }[];
  };
  expect(thought.choices[0]).toMatchObject({ message: { content: '1 2 3 4 5 6 7 8 9', reasoning_content: 'Thinking about: count 10' }, finish_reason: 'stop' });
});

test('401: missing header, not Bearer, unknown key, revoked key', async () => {
  expectError(await call(page, '/v1/models'), 401, 'missing_api_key');
  expectError(await call(page, '/v1/models', { headers: { authorization: `Basic ${key}` } }), 401, 'missing_api_key');
  expectError(
    await call(page, '/v1/chat/completions', { method: 'POST', body: JSON.stringify(hi), headers: { 'content-type': 'application/json' } }),
    401,
    'missing_api_key',
  );
  const forged = `sk-svc-${'A'.repeat(43)}`;
  const unknown = await call(page, '/v1/models', { headers: { authorization: `Bearer ${forged}` } });
  expectError(unknown, 401, 'invalid_api_key');
  expect(unknown.text).toContain('sk-svc-AAAA…AAAA');
  expect(unknown.text).not.toContain(forged);

  const doomed = await makeKey(page, { name: 'doomed' });
  expect((await call(page, '/v1/models', { headers: { authorization: `Bearer ${doomed}` } })).status).toBe(200);
  await page.evaluate(async (full) => {
    const api = window.inpage!;
    const keys = await api.keys.list();
    const record = keys.find((k) => k.display === `sk-svc-${full.slice(7, 11)}…${full.slice(-4)}`)!;
    await api.keys.revoke(record.id);
  }, doomed);
  const revoked = await chat(page, doomed, hi);
  expectError(revoked, 401, 'invalid_api_key');
  expect(revoked.text).toContain(`sk-svc-${doomed.slice(7, 11)}…${doomed.slice(-4)}`);
  expect(revoked.text).not.toContain(doomed);
  expect((await chat(page, key, hi)).status).toBe(200);
});

test('400 for bodies: not JSON, wrong content type, missing and bad fields', async () => {
  const post = (body: string, headers = auth(key)) => call(page, '/v1/chat/completions', { method: 'POST', headers, body });
  expectError(await post('{"model": '), 400, 'invalid_json');
  expectError(await post(''), 400, 'invalid_json');
  expectError(await post(JSON.stringify(hi), auth(key, { 'content-type': 'text/plain' })), 400, 'invalid_content_type');
  expectError(await post(JSON.stringify({ messages: hi.messages })), 400, 'missing_required_parameter', 'model');
  expectError(await post(JSON.stringify({ model: hi.model })), 400, 'missing_required_parameter', 'messages');
  expectError(await post(JSON.stringify({ ...hi, temperature: 'warm' })), 400, 'invalid_type', 'temperature');
  expectError(await post(JSON.stringify({ ...hi, temperature: 3 })), 400, 'invalid_value', 'temperature');
  expectError(await post(JSON.stringify({ ...hi, n: 2 })), 400, 'unsupported_parameter', 'n');
  expectError(await post(JSON.stringify({ ...hi, model: 'gpt-5' })), 404, 'model_not_found', 'model');
  const image = { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] };
  expectError(await post(JSON.stringify({ ...hi, messages: [image] })), 400, 'unsupported_parameter', 'messages[0].content[0]');
  // Unknown fields are ignored.
  expect((await post(JSON.stringify({ ...hi, tools: [], whatever: { deep: true } }))).status).toBe(200);
});

test('400 context_length_exceeded before anything is generated', async () => {
  const long = Array(5000).fill('word').join(' ');
  expectError(await chat(page, key, { ...hi, messages: [{ role: 'user', content: long }] }), 400, 'context_length_exceeded', 'messages');
  expectError(await chat(page, key, { ...hi, max_tokens: 5000 }), 400, 'context_length_exceeded', 'messages');
  expectError(await chat(page, key, { ...hi, max_tokens: 5000, stream: true }), 400, 'context_length_exceeded', 'messages');
});

test('413 request_too_large over 20 MiB', async () => {
  const answer = await page.evaluate(async (key) => {
    const big = JSON.stringify({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'x'.repeat(21 * 1024 * 1024) }] });
    const res = await fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: big,
    });
    return { status: res.status, body: await res.json() };
  }, key);
  expect(answer.status).toBe(413);
  expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', code: 'request_too_large' });
});

test('404 unknown_url under /v1/, 405 method_not_allowed on known paths', async () => {
  const h = { authorization: `Bearer ${key}` };
  expectError(await call(page, '/v1/images/generations', { method: 'POST', headers: h }), 404, 'unknown_url');
  expectError(await call(page, '/v1/models/', { headers: h }), 404, 'unknown_url');
  expectError(await call(page, '/v1', { headers: h }), 404, 'unknown_url');
  const wrong = await call(page, '/v1/chat/completions', { headers: h });
  expectError(wrong, 405, 'method_not_allowed');
  expect(wrong.headers.allow).toBe('POST');
  expectError(await call(page, '/v1/models', { method: 'DELETE', headers: h }), 405, 'method_not_allowed');
  expectError(await call(page, '/v1/models/svc-vision', { method: 'POST', headers: h }), 405, 'method_not_allowed');
});

test('paths outside /v1/ are left to the network', async () => {
  const home = await call(page, '/');
  expect(home.status).toBe(200);
  expect(home.text).toContain('<!doctype html>');
  expect(home.headers['x-request-id']).toBeUndefined();
  const beside = await call(page, '/v1beta/models');
  // Whatever the static server says, it is not the service's answer.
  expect(beside.headers['x-request-id']).toBeUndefined();
  expect(beside.json).toBeNull();
});

test('key use is booked: last used time and tokens', async () => {
  const answer = (await chat(page, key, hi)).json as { usage: { total_tokens: number } };
  await expect
    .poll(async () => page.evaluate(async () => (await window.inpage!.keys.list()).find((k) => k.name === 'test key')!.tokensUsed))
    .toBe(answer.usage.total_tokens);
  const lastUsed = await page.evaluate(async () => (await window.inpage!.keys.list()).find((k) => k.name === 'test key')!.lastUsedAt);
  expect(lastUsed).toBeGreaterThan(0);
});
