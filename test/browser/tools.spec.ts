// Tools and structured output on the wire (issue 10), read raw through the service worker and checked against
// OpenAI's schemas; the real clients are in clients.spec.ts.
import { expect, test } from '@playwright/test';
import { auth, call, chat, makeKey, openApp, sseEvents } from './helpers';
import { expectSchema } from './schema';

const weather = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

test('a JSON tool call: tool_calls, content null, finish_reason tool_calls; legacy functions get function_call', async ({ page }) => {
  await openApp(page);
  const key = await makeKey(page);
  const answer = await chat(page, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'get_weather now' }], tools: [weather] });
  expect(answer.status, answer.text).toBe(200);
  expectSchema('CreateChatCompletionResponse', answer.json);
  const choice = (answer.json as { choices: { message: Record<string, unknown>; finish_reason: string }[] }).choices[0]!;
  expect(choice.finish_reason).toBe('tool_calls');
  expect(choice.message).toMatchObject({
    role: 'assistant',
    content: null,
    tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: '{"city":"a"}' } }],
  });

  const legacy = await chat(page, key, {
    model: 'svc-model-5.2-fast',
    messages: [{ role: 'user', content: 'get_weather now' }],
    functions: [weather.function],
  });
  expectSchema('CreateChatCompletionResponse', legacy.json);
  const legacyChoice = (legacy.json as { choices: { message: Record<string, unknown>; finish_reason: string }[] }).choices[0]!;
  expect(legacyChoice).toMatchObject({
    finish_reason: 'function_call',
    message: { content: null, function_call: { name: 'get_weather', arguments: '{"city":"a"}' } },
  });
});

test('a streamed tool call: indexed deltas, the first with id, type, name and arguments ""', async ({ page }) => {
  await openApp(page);
  const key = await makeKey(page);
  const answer = await call(page, '/v1/chat/completions', {
    method: 'POST',
    headers: auth(key),
    body: JSON.stringify({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'x' }], tools: [weather], tool_choice: 'required', stream: true }),
  });
  expect(answer.status, answer.text).toBe(200);
  const chunks = sseEvents(answer.text)
    .slice(0, -1)
    .map((e) => JSON.parse(e) as { choices: { delta: Record<string, unknown>; finish_reason: string | null }[] });
  for (const chunk of chunks) expectSchema('CreateChatCompletionStreamResponse', chunk);
  expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
  const calls = chunks.flatMap((c) => (c.choices[0]?.delta.tool_calls as Record<string, unknown>[] | undefined) ?? []);
  expect(calls[0]).toEqual({ index: 0, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather', arguments: '' } });
  const rest = calls.slice(1);
  expect(rest.length).toBeGreaterThanOrEqual(2);
  for (const piece of rest) expect(Object.keys(piece).sort()).toEqual(['function', 'index']);
  expect(rest.map((p) => (p.function as { arguments: string }).arguments).join('')).toBe('{"city":"a"}');
  expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');
  expect(answer.text).not.toContain('<tool_call>');
});

test('refusals: svc-vision with tools, audio output, web search; svc-vision with tool_choice none answers', async ({ page }) => {
  await openApp(page);
  const key = await makeKey(page);
  const ask = (extra: Record<string, unknown>) =>
    chat(page, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'get_weather' }], ...extra });
  const vision = await ask({ model: 'svc-vision', tools: [weather] });
  expect(vision.status).toBe(400);
  expectSchema('ErrorResponse', vision.json);
  expect((vision.json as { error: Record<string, unknown> }).error).toMatchObject({ code: 'unsupported_parameter', param: 'tools' });
  for (const [extra, param] of [
    [{ modalities: ['text', 'audio'] }, 'modalities'],
    [{ audio: { voice: 'alloy', format: 'mp3' } }, 'audio'],
    [{ web_search_options: {} }, 'web_search_options'],
  ] as const) {
    const refused = await ask(extra);
    expect(refused.status).toBe(400);
    expect((refused.json as { error: Record<string, unknown> }).error).toMatchObject({ code: 'unsupported_parameter', param });
  }
  const none = await ask({ model: 'svc-vision', tools: [weather], tool_choice: 'none', store: true, metadata: { a: 'b' }, service_tier: 'auto' });
  expect(none.status, none.text).toBe(200);
  expect((none.json as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe('Echo: get_weather');
});
