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
  expect(result.models).toEqual(['svc-model-5.2', 'svc-model-5.2-fast', 'svc-model-5.2-short', 'svc-model-5.2-short-fast', 'svc-vision', 'svc-embed']);
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
    const model = new window.clients.ChatOpenAI({
      model: 'svc-model-5.2-fast',
      apiKey,
      configuration: { baseURL: `${location.origin}/v1`, dangerouslyAllowBrowser: true },
    });
    const reply = await model.invoke('hello langchain');
    let streamed = '';
    for await (const chunk of await model.stream('count 3')) streamed += chunk.content as string;
    return { reply: reply.content, streamed };
  }, key);
  expect(result).toEqual({ reply: 'Echo: hello langchain', streamed: '1 2 3' });
});

// Tools and structured output (issue 10), against the deterministic engine's fixed rules: under "auto" it calls
// every tool named in the last user message with the smallest valid arguments ({"city":"a"} here), answers a
// tool result with "Tool said: …", and answers a json_schema with the schema's smallest instance.
test('openai SDK: runTools to completion, a streamed tool call, parse with zodResponseFormat', async ({ page }) => {
  const key = await setup(page);
  const result = await page.evaluate(async (apiKey) => {
    const { OpenAI, zodResponseFormat, z } = window.clients;
    const client = new OpenAI({ baseURL: `${location.origin}/v1`, apiKey, dangerouslyAllowBrowser: true, maxRetries: 0 });
    const calledWith: unknown[] = [];
    const runner = client.chat.completions.runTools({
      model: 'svc-model-5.2-fast',
      messages: [{ role: 'user', content: 'What does get_weather say?' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'The weather in a city',
            parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] },
            parse: (text: string) => JSON.parse(text) as { city: string },
            function: (args: { city: string }) => {
              calledWith.push(args);
              return `sunny in ${args.city}`;
            },
          },
        },
      ],
    });
    const finalContent = await runner.finalContent();
    const roles = runner.messages.map((m) => m.role);

    const stream = client.chat.completions.stream({
      model: 'svc-model-5.2-short',
      messages: [{ role: 'user', content: 'anything' }],
      tools: [
        {
          type: 'function',
          function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string', minLength: 5 } }, required: ['q'] } },
        },
      ],
      tool_choice: 'required',
    });
    let fragments = 0;
    stream.on('tool_calls.function.arguments.delta', () => fragments++);
    const streamed = await stream.finalChatCompletion();
    const call = streamed.choices[0]!.message.tool_calls![0]!;

    const parsed = await client.chat.completions.parse({
      model: 'svc-model-5.2-fast',
      messages: [{ role: 'user', content: 'a person, please' }],
      response_format: zodResponseFormat(
        z.object({ name: z.string(), age: z.number().int().min(18), colour: z.enum(['red', 'green']), tags: z.array(z.string()) }),
        'person',
      ),
    });
    return {
      calledWith,
      finalContent,
      roles,
      streamed: {
        finish: streamed.choices[0]!.finish_reason,
        content: streamed.choices[0]!.message.content,
        id: call.id,
        type: call.type,
        name: call.type === 'function' ? call.function.name : null,
        arguments: call.type === 'function' ? call.function.arguments : null,
        fragments,
      },
      parsed: parsed.choices[0]!.message.parsed,
    };
  }, key);
  expect(result.calledWith).toEqual([{ city: 'a' }]);
  expect(result.finalContent).toBe('Tool said: sunny in a');
  expect(result.roles).toEqual(['user', 'assistant', 'tool', 'assistant']);
  expect(result.streamed).toMatchObject({ finish: 'tool_calls', type: 'function', name: 'lookup', arguments: '{"q":"aaaaa"}' });
  expect(result.streamed.content ?? '').toBe('');
  expect(result.streamed.id).toMatch(/^call_[A-Za-z0-9]{24}$/);
  expect(result.streamed.fragments).toBeGreaterThanOrEqual(2);
  expect(result.parsed).toEqual({ name: 'a', age: 18, colour: 'red', tags: [] });
});

test('AI SDK: generateText tool loop with stopWhen, streamText with tools, generateObject with structured outputs', async ({ page }) => {
  const key = await setup(page);
  const result = await page.evaluate(async (apiKey) => {
    const { createOpenAICompatible, generateText, streamText, generateObject, stepCountIs, tool, z } = window.clients;
    const provider = createOpenAICompatible({ name: 'inpage', baseURL: `${location.origin}/v1`, apiKey, supportsStructuredOutputs: true });
    const inputs: unknown[] = [];
    const getWeather = tool({
      description: 'The weather in a city',
      inputSchema: z.object({ city: z.string(), unit: z.enum(['C', 'F']) }),
      execute: async (input) => {
        inputs.push(input);
        return `sunny in ${input.city}`;
      },
    });
    const generated = await generateText({
      model: provider('svc-model-5.2-fast'),
      prompt: 'Ask get_weather, then tell me.',
      tools: { get_weather: getWeather },
      stopWhen: stepCountIs(5),
    });

    const streamed = streamText({
      model: provider('svc-model-5.2-fast'),
      prompt: 'call get_time and get_weather',
      tools: { get_weather: tool({ inputSchema: z.object({ city: z.string() }) }), get_time: tool({ inputSchema: z.object({ zone: z.string().min(3) }) }) },
    });
    const parts: string[] = [];
    const streamedCalls: unknown[] = [];
    for await (const part of streamed.fullStream) {
      parts.push(part.type);
      if (part.type === 'tool-call') streamedCalls.push([part.toolName, part.input]);
    }

    const object = await generateObject({
      model: provider('svc-model-5.2-short-fast'),
      prompt: 'a recipe',
      schema: z.object({ title: z.string().min(2), servings: z.number().int().min(1), steps: z.array(z.string()).min(1), vegan: z.boolean() }),
    });
    return {
      text: generated.text,
      steps: generated.steps.length,
      firstStepCalls: generated.steps[0]!.toolCalls.map((c) => [c.toolName, c.input]),
      inputs,
      streamedCalls,
      streamedFinish: await streamed.finishReason,
      sawInputDeltas: parts.filter((p) => p === 'tool-input-delta').length,
      object: object.object,
    };
  }, key);
  expect(result.inputs).toEqual([{ city: 'a', unit: 'C' }]);
  expect(result.firstStepCalls).toEqual([['get_weather', { city: 'a', unit: 'C' }]]);
  expect(result.steps).toBe(2);
  expect(result.text).toBe('Tool said: sunny in a');
  expect(result.streamedCalls).toEqual([
    ['get_weather', { city: 'a' }],
    ['get_time', { zone: 'aaa' }],
  ]);
  expect(result.streamedFinish).toBe('tool-calls');
  expect(result.sawInputDeltas).toBeGreaterThanOrEqual(4);
  expect(result.object).toEqual({ title: 'aa', servings: 1, steps: ['a'], vegan: false });
});

test('LangChain: bindTools and a ToolMessage round trip; withStructuredOutput with each method', async ({ page }) => {
  const key = await setup(page);
  const result = await page.evaluate(async (apiKey) => {
    const { ChatOpenAI, HumanMessage, langchainTool, z } = window.clients;
    const model = new ChatOpenAI({
      model: 'svc-model-5.2-fast',
      apiKey,
      maxRetries: 0,
      configuration: { baseURL: `${location.origin}/v1`, dangerouslyAllowBrowser: true },
    });
    const weather = langchainTool(async ({ city }: { city: string }) => `sunny in ${city}`, {
      name: 'get_weather',
      description: 'The weather in a city',
      schema: z.object({ city: z.string() }),
    });
    const bound = model.bindTools([weather]);
    const question = new HumanMessage('use get_weather');
    const ai = await bound.invoke([question]);
    const toolMessage = await weather.invoke(ai.tool_calls![0]!);
    const answer = await bound.invoke([question, ai, toolMessage]);

    const person = z.object({ name: z.string(), age: z.number().int().min(0).max(150) });
    const byFunction = await model.withStructuredOutput(person, { method: 'functionCalling', name: 'person' }).invoke('a person');
    const bySchema = await model.withStructuredOutput(person, { method: 'jsonSchema', name: 'person' }).invoke('a person');
    const byJsonMode = await model.withStructuredOutput(z.object({ note: z.string().optional() }), { method: 'jsonMode' }).invoke('say it in JSON');
    return {
      call: { name: ai.tool_calls![0]!.name, args: ai.tool_calls![0]!.args, id: ai.tool_calls![0]!.id },
      toolMessage: { content: toolMessage.content, id: toolMessage.tool_call_id },
      answer: answer.content,
      byFunction,
      bySchema,
      byJsonMode,
    };
  }, key);
  expect(result.call).toMatchObject({ name: 'get_weather', args: { city: 'a' }, id: expect.stringMatching(/^call_/) });
  expect(result.toolMessage).toEqual({ content: 'sunny in a', id: result.call.id });
  expect(result.answer).toBe('Tool said: sunny in a');
  expect(result.byFunction).toEqual({ name: 'a', age: 0 });
  expect(result.bySchema).toEqual({ name: 'a', age: 0 });
  expect(result.byJsonMode).toEqual({});
});
