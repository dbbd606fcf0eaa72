// Hybrid (docs/hybrid.md): the official openai SDK, unchanged, pointed at origin + "/v1" with an id in prefer-local
// mode gets the same parsed results whichever side answered: the upstream (the test server, streaming as vLLM does)
// on the first visit, this device once the weights downloaded in the background.
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { auth, call, deployConfig, makeKey, openApp } from './helpers';
import { UPSTREAM_PORT } from '../../playwright.config';

/** svc-model-5.2-short-fast in prefer-local through the test server (as vLLM), on the clients page; returns a key. */
async function preferLocalClients(page: Page, context: BrowserContext, prefix: string): Promise<string> {
  const tag = `${prefix}-${process.pid}-${Date.now()}`;
  await deployConfig(context, {
    upstreams: { gpu: { url: `http://127.0.0.1:${UPSTREAM_PORT}/${tag}/vllm/v1`, dialect: 'vllm' } },
    models: { 'svc-model-5.2-short-fast': { mode: 'prefer-local', upstream: { model: 'up/svc-model-5.2-short-fast' } } },
  });
  await openApp(page, '/test/pages/clients.html');
  return makeKey(page);
}

test('openai SDK in prefer-local: completion, stream with usage, a tool call and a json_schema object are the same from the upstream and from here', async ({
  page,
  context,
}) => {
  const key = await preferLocalClients(page, context, 'sdk');
  const run = () =>
    page.evaluate(async (apiKey) => {
      const { OpenAI, zodResponseFormat, z } = window.clients;
      const client = new OpenAI({ baseURL: `${location.origin}/v1`, apiKey, dangerouslyAllowBrowser: true });
      const model = 'svc-model-5.2-short-fast';
      const { data: completion, response } = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hello sdk' }] }).withResponse();
      const stream = await client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'count 5' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let streamed = '';
      let usage: unknown = null;
      for await (const chunk of stream) {
        streamed += chunk.choices[0]?.delta.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      const tools = await client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'what is the weather' }],
        tools: [
          { type: 'function', function: { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
        ],
        tool_choice: 'required',
      });
      const parsed = await client.chat.completions.parse({
        model,
        messages: [{ role: 'user', content: 'a point' }],
        response_format: zodResponseFormat(z.object({ x: z.number(), label: z.string() }), 'point'),
      });
      const call = tools.choices[0]!.message.tool_calls![0]!;
      return {
        servedBy: response.headers.get('x-inpage-served-by'),
        content: completion.choices[0]!.message.content,
        usage: completion.usage,
        streamed,
        streamUsage: usage,
        tool: call.type === 'function' ? { name: call.function.name, args: JSON.parse(call.function.arguments) as unknown } : null,
        finish: tools.choices[0]!.finish_reason,
        object: parsed.choices[0]!.message.parsed,
      };
    }, key);
  const first = await run();
  expect(first.servedBy).toBe(`upstream; host=127.0.0.1:${UPSTREAM_PORT}`);
  expect(first.content).toBe('Echo: hello sdk');
  expect(first.streamed).toBe('1 2 3 4 5');
  expect(first.tool).toEqual({ name: 'weather', args: { city: expect.any(String) } });
  expect(first.finish).toBe('tool_calls');
  expect(first.object).toEqual({ x: expect.any(Number), label: expect.any(String) });
  // The weights downloaded meanwhile: this device answers now, with the same parsed results.
  await expect
    .poll(
      async () => ((await call(page, '/v1/models/svc-model-5.2-short-fast', { headers: auth(key) })).json as { serving: { engine: string } }).serving.engine,
    )
    .toBe('local');
  const second = await run();
  expect(second.servedBy).toBe('local');
  const { servedBy: _a, ...fromUpstream } = first;
  const { servedBy: _b, ...fromHere } = second;
  expect(fromHere).toEqual(fromUpstream);
});

test('AI SDK and LangChain in prefer-local: text, stream, a tool call and an object are the same from the upstream and from here', async ({
  page,
  context,
}) => {
  const key = await preferLocalClients(page, context, 'frameworks');
  const run = () =>
    page.evaluate(async (apiKey) => {
      const { createOpenAICompatible, generateText, streamText, generateObject, tool, z, ChatOpenAI } = window.clients;
      // Where each answer came from, read from the header every answer carries.
      const servedBy: string[] = [];
      const recording: typeof fetch = async (input, init) => {
        const res = await fetch(input, init);
        servedBy.push(res.headers.get('x-inpage-served-by') ?? 'none');
        return res;
      };
      const model = 'svc-model-5.2-short-fast';
      const provider = createOpenAICompatible({
        name: 'inpage',
        baseURL: `${location.origin}/v1`,
        apiKey,
        includeUsage: true,
        supportsStructuredOutputs: true,
        fetch: recording,
      });
      const text = await generateText({ model: provider(model), prompt: 'hello ai sdk' });
      const streamed = streamText({ model: provider(model), prompt: 'count 4' });
      let streamedText = '';
      for await (const part of streamed.textStream) streamedText += part;
      const called = await generateText({
        model: provider(model),
        prompt: 'what is the weather',
        tools: { weather: tool({ description: 'The weather in a city', inputSchema: z.object({ city: z.string() }) }) },
        toolChoice: 'required',
      });
      const object = await generateObject({ model: provider(model), schema: z.object({ x: z.number(), label: z.string() }), prompt: 'a point' });
      const chat = new ChatOpenAI({ model, apiKey, configuration: { baseURL: `${location.origin}/v1`, dangerouslyAllowBrowser: true, fetch: recording } });
      const reply = await chat.invoke('hello langchain');
      let chunks = '';
      for await (const chunk of await chat.stream('count 3')) chunks += chunk.content as string;
      return {
        servedBy,
        aiText: text.text,
        aiTokens: text.usage.outputTokens,
        aiStreamed: streamedText,
        aiCall: called.toolCalls.map((c) => ({ name: c.toolName, input: c.input })),
        aiObject: object.object,
        lcReply: reply.content,
        lcStreamed: chunks,
      };
    }, key);
  const first = await run();
  expect(first.servedBy[0]).toBe(`upstream; host=127.0.0.1:${UPSTREAM_PORT}`);
  expect(first).toMatchObject({ aiText: 'Echo: hello ai sdk', aiStreamed: '1 2 3 4', lcReply: 'Echo: hello langchain', lcStreamed: '1 2 3' });
  expect(first.aiCall).toEqual([{ name: 'weather', input: { city: expect.any(String) } }]);
  expect(first.aiObject).toEqual({ x: expect.any(Number), label: expect.any(String) });
  await expect
    .poll(
      async () => ((await call(page, '/v1/models/svc-model-5.2-short-fast', { headers: auth(key) })).json as { serving: { engine: string } }).serving.engine,
    )
    .toBe('local');
  const second = await run();
  expect(new Set(second.servedBy)).toEqual(new Set(['local']));
  const { servedBy: _a, ...fromUpstream } = first;
  const { servedBy: _b, ...fromHere } = second;
  expect(fromHere).toEqual(fromUpstream);
});
