// POST /v1/completions (legacy text completion) with plain fetch and the openai SDK.
import { expect, test } from '@playwright/test';
import { auth, call, makeKey, openApp, sseEvents } from './helpers';
import { expectSchema } from './schema';

test('legacy completions: JSON, stream with [DONE], refusals; openai SDK completions.create', async ({ page }) => {
  await openApp(page, '/test/pages/clients.html');
  const key = await makeKey(page);
  const post = (body: unknown) => call(page, '/v1/completions', { method: 'POST', headers: auth(key), body: JSON.stringify(body) });

  const json = await post({ model: 'svc-model-5.2', prompt: 'Once upon a time', max_tokens: 30 });
  expect(json.status, json.text).toBe(200);
  expectSchema('CreateCompletionResponse', json.json);
  // A thinking variant never thinks here, and the prompt is counted as it is (4 tokens, no template).
  expect(json.json).toMatchObject({
    object: 'text_completion',
    model: 'svc-model-5.2',
    choices: [{ index: 0, text: 'Echo: Once upon a time', logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 4, completion_tokens: 5, total_tokens: 9 },
  });

  const short = await post({
    model: 'svc-model-5.2-fast',
    prompt: 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen',
  });
  expect(short.json).toMatchObject({ choices: [{ finish_reason: 'length' }], usage: { completion_tokens: 16 } });

  const streamed = await post({ model: 'svc-model-5.2-fast', prompt: 'a b', stream: true, stream_options: { include_usage: true } });
  expect(streamed.headers['content-type']).toMatch(/^text\/event-stream/);
  const events = sseEvents(streamed.text);
  expect(events.at(-1)).toBe('[DONE]');
  const chunks = events
    .slice(0, -1)
    .map((e) => JSON.parse(e) as { object: string; choices: { text: string; finish_reason: string | null }[]; usage?: unknown });
  for (const chunk of chunks) expect(chunk.object).toBe('text_completion');
  expect(chunks.map((c) => c.choices[0]?.text ?? '').join('')).toBe('Echo: a b');
  expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
  expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 2, completion_tokens: 3 } });

  for (const [field, value] of [
    ['n', 2],
    ['suffix', 'tail'],
    ['best_of', 2],
    ['echo', true],
  ] as const) {
    const refused = await post({ model: 'svc-model-5.2-fast', prompt: 'x', [field]: value });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ error: { code: 'unsupported_parameter', param: field } });
  }
  expect((await post({ model: 'svc-model-5.2-fast' })).json).toMatchObject({ error: { code: 'missing_required_parameter', param: 'prompt' } });
  expect((await call(page, '/v1/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(401);

  const sdk = await page.evaluate(async (apiKey) => {
    const client = new window.clients.OpenAI({ baseURL: `${location.origin}/v1`, apiKey, dangerouslyAllowBrowser: true, maxRetries: 0 });
    const completion = await client.completions.create({ model: 'svc-model-5.2-short', prompt: 'hello legacy', max_tokens: 20 });
    const stream = await client.completions.create({ model: 'svc-model-5.2-short', prompt: 'streamed legacy', stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.text ?? '';
    return { text: completion.choices[0]!.text, usage: completion.usage, streamed: text };
  }, key);
  expect(sdk).toEqual({
    text: 'Echo: hello legacy',
    usage: expect.objectContaining({ prompt_tokens: 2, completion_tokens: 3 }),
    streamed: 'Echo: streamed legacy',
  });
});
