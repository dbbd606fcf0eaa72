// Real clients, unchanged, pointed at origin + "/v1": the official openai SDK, the AI SDK, LangChain.
import { expect, test, type Page } from '@playwright/test';
import { makeKey, openApp } from './helpers';

async function setup(page: Page): Promise<string> {
  await openApp(page, '/test/pages/clients.html');
  return makeKey(page);
}

test('openai SDK: models.list, JSON completion, stream, include_usage', async ({ page }) => {
  const key = await setup(page);
  const result = await page.evaluate(async (apiKey) => {
    const client = new window.clients.OpenAI({ baseURL: `${location.origin}/v1`, apiKey, dangerouslyAllowBrowser: true });
    const models = [];
    for await (const m of client.models.list()) models.push(m.id);
    const one = await client.models.retrieve('svc-vision');
    const completion = await client.chat.completions.create({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'hello sdk' }] });
    const stream = await client.chat.completions.create({
      model: 'svc-model-5.2-fast',
      messages: [{ role: 'user', content: 'count 4' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let streamed = '';
    let usage = null;
    let finish = null;
    for await (const chunk of stream) {
      streamed += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    return { models, one: one.id, content: completion.choices[0]!.message.content, usage: completion.usage, streamed, streamUsage: usage, finish };
  }, key);
  expect(result.models).toEqual(['svc-model-5.2', 'svc-model-5.2-fast', 'svc-model-5.2-short', 'svc-model-5.2-short-fast', 'svc-vision']);
  expect(result.one).toBe('svc-vision');
  expect(result.content).toBe('Echo: hello sdk');
  expect(result.usage?.completion_tokens).toBe(3);
  expect(result.streamed).toBe('1 2 3 4');
  expect(result.finish).toBe('stop');
  expect(result.streamUsage).toMatchObject({ completion_tokens: 4 });
});

test('openai SDK raises typed errors: 401, 404, 400, and an in-band stream error', async ({ page }) => {
  const key = await setup(page);
  const errors = await page.evaluate(async (apiKey) => {
    const { OpenAI } = window.clients;
    const base = { baseURL: `${location.origin}/v1`, dangerouslyAllowBrowser: true, maxRetries: 0 };
    const client = new OpenAI({ ...base, apiKey });
    const bad = new OpenAI({ ...base, apiKey: `sk-svc-${'Z'.repeat(43)}` });
    const grab = async (p: Promise<unknown>) => {
      try {
        await p;
        return null;
      } catch (err) {
        const e = err as InstanceType<typeof OpenAI.APIError>;
        // Class names are minified in the bundle: ask instanceof instead.
        const kinds = ['AuthenticationError', 'NotFoundError', 'BadRequestError', 'APIError'] as const;
        const name = kinds.find((k) => err instanceof OpenAI[k]) ?? 'other';
        return { name, status: e.status ?? null, code: e.code ?? null, param: e.param ?? null, requestId: e.requestID ?? null };
      }
    };
    const msgs = [{ role: 'user' as const, content: 'x' }];
    return {
      auth: await grab(bad.models.list()),
      model: await grab(client.chat.completions.create({ model: 'svc-nope', messages: msgs })),
      value: await grab(client.chat.completions.create({ model: 'svc-model-5.2-fast', messages: msgs, temperature: 9 })),
      midStream: await grab(
        (async () => {
          const s = await client.chat.completions.create({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'fail after 2' }], stream: true });
          for await (const _ of s) void _;
        })(),
      ),
    };
  }, key);
  expect(errors.auth).toMatchObject({ name: 'AuthenticationError', status: 401, code: 'invalid_api_key', requestId: expect.stringMatching(/^req_/) });
  expect(errors.model).toMatchObject({ name: 'NotFoundError', status: 404, code: 'model_not_found', param: 'model' });
  expect(errors.value).toMatchObject({ name: 'BadRequestError', status: 400, code: 'invalid_value', param: 'temperature' });
  expect(errors.midStream).toMatchObject({ name: 'APIError', code: 'internal_error' });
});

test('AI SDK openai-compatible provider: generateText and streamText', async ({ page }) => {
  const key = await setup(page);
  const result = await page.evaluate(async (apiKey) => {
    const { createOpenAICompatible, generateText, streamText } = window.clients;
    const provider = createOpenAICompatible({ name: 'inpage', baseURL: `${location.origin}/v1`, apiKey, includeUsage: true });
    const generated = await generateText({ model: provider('svc-model-5.2-fast'), prompt: 'hello ai sdk' });
    const streamed = streamText({ model: provider('svc-model-5.2-short'), prompt: 'count 3' });
    let text = '';
    for await (const part of streamed.textStream) text += part;
    return {
      text: generated.text,
      usage: generated.usage.outputTokens,
      streamed: text,
      reasoning: await streamed.reasoningText,
      finish: await streamed.finishReason,
    };
  }, key);
  expect(result).toEqual({ text: 'Echo: hello ai sdk', usage: 4, streamed: '1 2 3', reasoning: 'Thinking about: count 3', finish: 'stop' });
});

test('LangChain ChatOpenAI: invoke and stream', async ({ page }) => {
  const key = await setup(page);
  const result = await page.evaluate(async (apiKey) => {
    const model = new window.clients.ChatOpenAI({ model: 'svc-model-5.2-fast', apiKey, configuration: { baseURL: `${location.origin}/v1`, dangerouslyAllowBrowser: true } });
    const reply = await model.invoke('hello langchain');
    let streamed = '';
    for await (const chunk of await model.stream('count 3')) streamed += chunk.content as string;
    return { reply: reply.content, streamed };
  }, key);
  expect(result).toEqual({ reply: 'Echo: hello langchain', streamed: '1 2 3' });
});
