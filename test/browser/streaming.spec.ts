// Server-sent-event streaming through the service worker, read as raw bytes by fetch (docs/contract.md "Answers", streaming).
import { expect, test } from '@playwright/test';
import { auth, call, makeKey, openApp, sseEvents } from './helpers';
import { expectSchema } from './schema';

interface Chunk {
  id: string;
  object: string;
  created: number;
  model: string;
  system_fingerprint: string;
  choices: { index: number; delta: Record<string, string>; logprobs: null; finish_reason: string | null }[];
  usage?: Record<string, unknown> | null;
}

async function stream(page: import('@playwright/test').Page, key: string, body: Record<string, unknown>) {
  const answer = await call(page, '/v1/chat/completions', { method: 'POST', headers: auth(key), body: JSON.stringify({ ...body, stream: true }) });
  expect(answer.status, answer.text).toBe(200);
  expect(answer.headers['content-type']).toMatch(/^text\/event-stream/);
  expect(answer.headers['cache-control']).toBe('no-cache');
  expect(answer.headers['x-request-id']).toMatch(/^req_/);
  expect(answer.text.endsWith('data: [DONE]\n\n')).toBe(true);
  const events = sseEvents(answer.text);
  expect(events.at(-1)).toBe('[DONE]');
  const chunks = events.slice(0, -1).map((e) => JSON.parse(e) as Chunk);
  for (const chunk of chunks) expectSchema('CreateChatCompletionStreamResponse', chunk);
  return chunks;
}

test('a stream: role chunk, content fragments, an empty finishing delta, [DONE]', async ({ page }) => {
  await openApp(page);
  const key = await makeKey(page);
  const chunks = await stream(page, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'count 5' }] });
  expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
  const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
  expect(text).toBe('1 2 3 4 5');
  expect(chunks.slice(1, -1).every((c) => typeof c.choices[0]!.delta.content === 'string')).toBe(true);
  const last = chunks.at(-1)!;
  expect(last.choices[0]).toEqual({ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' });
  for (const c of chunks) {
    expect(c).toMatchObject({ id: chunks[0]!.id, object: 'chat.completion.chunk', created: chunks[0]!.created, model: 'svc-model-5.2-fast' });
    expect(c).not.toHaveProperty('usage');
  }
  expect(chunks[0]!.id).toMatch(/^chatcmpl-/);
});

test('stream_options.include_usage: usage null on each chunk, then one usage chunk with empty choices', async ({ page }) => {
  await openApp(page);
  const key = await makeKey(page);
  const chunks = await stream(page, key, {
    model: 'svc-model-5.2-fast',
    messages: [{ role: 'user', content: 'count 3' }],
    stream_options: { include_usage: true },
  });
  const usageChunk = chunks.at(-1)!;
  expect(usageChunk.choices).toEqual([]);
  expect(usageChunk.usage).toEqual({
    prompt_tokens: expect.any(Number),
    completion_tokens: 3,
    total_tokens: expect.any(Number),
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  });
  for (const c of chunks.slice(0, -1)) expect(c.usage).toBeNull();
  expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
  // The next turn of the same conversation: its earlier part is reported as served from the KV cache.
  const next = await stream(page, key, {
    model: 'svc-model-5.2-fast',
    messages: [
      { role: 'user', content: 'count 3' },
      { role: 'assistant', content: '1 2 3' },
      { role: 'user', content: 'count 2' },
    ],
    stream_options: { include_usage: true },
  });
  const usage = next.at(-1)!.usage as { prompt_tokens: number; prompt_tokens_details: { cached_tokens: number } };
  expect(usage.prompt_tokens_details.cached_tokens).toBeGreaterThan(0);
  expect(usage.prompt_tokens_details.cached_tokens).toBeLessThan(usage.prompt_tokens);
});

test('a thinking variant streams reasoning_content (mirrored in reasoning) before content', async ({ page }) => {
  await openApp(page);
  const key = await makeKey(page);
  const chunks = await stream(page, key, { model: 'svc-model-5.2-short', messages: [{ role: 'user', content: 'why' }] });
  const reasoning = chunks.map((c) => c.choices[0]?.delta.reasoning_content ?? '').join('');
  const mirrored = chunks.map((c) => c.choices[0]?.delta.reasoning ?? '').join('');
  const content = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
  expect(reasoning).toBe('Thinking about: why');
  expect(mirrored).toBe(reasoning);
  expect(content).toBe('Echo: why');
  const firstContent = chunks.findIndex((c) => c.choices[0]?.delta.content);
  const lastReasoning = chunks.findLastIndex((c) => c.choices[0]?.delta.reasoning_content);
  expect(lastReasoning).toBeLessThan(firstContent);
});

test('a failure after the stream began travels in-band, then [DONE]', async ({ page }) => {
  await openApp(page);
  const key = await makeKey(page);
  const answer = await call(page, '/v1/chat/completions', {
    method: 'POST',
    headers: auth(key),
    body: JSON.stringify({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'fail after 3' }], stream: true }),
  });
  expect(answer.status).toBe(200);
  const events = sseEvents(answer.text);
  expect(events.at(-1)).toBe('[DONE]');
  const error = JSON.parse(events.at(-2)!) as { error: Record<string, unknown> };
  expectSchema('ErrorResponse', error);
  expect(error).toEqual({ error: { message: expect.stringContaining('after 3 tokens'), type: 'server_error', param: null, code: 'internal_error' } });
  const content = events
    .slice(0, -2)
    .map((e) => (JSON.parse(e) as Chunk).choices[0]?.delta.content ?? '')
    .join('');
  expect(content).toBe('tick tick tick');
});
