// Hybrid (docs/hybrid.md): the official openai SDK, unchanged, pointed at origin + "/v1" with an id in prefer-local
// mode gets the same parsed results whichever side answered: the upstream (the test server, streaming as vLLM does)
// on the first visit, this device once the weights downloaded in the background.
import { expect, test } from '@playwright/test';
import { auth, call, deployConfig, makeKey, openApp } from './helpers';
import { UPSTREAM_PORT } from '../../playwright.config';

test('openai SDK in prefer-local: completion, stream with usage, a tool call and a json_schema object are the same from the upstream and from here', async ({ page, context }) => {
  const tag = `sdk-${process.pid}-${Date.now()}`;
  await deployConfig(context, {
    upstreams: { gpu: { url: `http://127.0.0.1:${UPSTREAM_PORT}/${tag}/vllm/v1`, dialect: 'vllm' } },
    models: { 'svc-model-5.2-short-fast': { mode: 'prefer-local', upstream: { model: 'up/svc-model-5.2-short-fast' } } },
  });
  await openApp(page, '/test/pages/clients.html');
  const key = await makeKey(page);
  const run = () =>
    page.evaluate(async (apiKey) => {
      const { OpenAI, zodResponseFormat, z } = window.clients;
      const client = new OpenAI({ baseURL: `${location.origin}/v1`, apiKey, dangerouslyAllowBrowser: true });
      const model = 'svc-model-5.2-short-fast';
      const { data: completion, response } = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hello sdk' }] }).withResponse();
      const stream = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'count 5' }], stream: true, stream_options: { include_usage: true } });
      let streamed = '';
      let usage: unknown = null;
      for await (const chunk of stream) {
        streamed += chunk.choices[0]?.delta.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      const tools = await client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'what is the weather' }],
        tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }],
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
  await expect.poll(async () => ((await call(page, '/v1/models/svc-model-5.2-short-fast', { headers: auth(key) })).json as { serving: { engine: string } }).serving.engine).toBe('local');
  const second = await run();
  expect(second.servedBy).toBe('local');
  const { servedBy: _a, ...fromUpstream } = first;
  const { servedBy: _b, ...fromHere } = second;
  expect(fromHere).toEqual(fromUpstream);
});
