// POST /v1/responses and the stored-response routes, with plain fetch and with real clients (openai SDK, AI SDK).
import { expect, test, type Page } from '@playwright/test';
import { auth, call, makeKey, openApp, type Answer } from './helpers';
import { expectSchema } from './schema';
import { goToArea, openWorkspace, registerThroughForm } from './workspace-steps';

function expectError(answer: Answer, status: number, code: string, param: string | null = null): void {
  expect(answer.status, answer.text).toBe(status);
  expectSchema('ErrorResponse', answer.json);
  expect((answer.json as { error: unknown }).error).toEqual({ message: expect.any(String), type: expect.any(String), param, code });
}

const post = (page: Page, key: string, body: unknown) => call(page, '/v1/responses', { method: 'POST', headers: auth(key), body: JSON.stringify(body) });

/** `event:` + `data:` blocks of a Responses stream. */
function typedEvents(text: string): { event: string; data: Record<string, unknown> }[] {
  return text
    .split('\n\n')
    .filter((block) => block.length > 0)
    .map((block) => {
      const match = /^event: (.+)\ndata: (.+)$/.exec(block);
      if (!match) throw new Error(`Not a typed SSE event: ${JSON.stringify(block)}`);
      return { event: match[1]!, data: JSON.parse(match[2]!) as Record<string, unknown> };
    });
}

test.describe('plain fetch', () => {
  let page: Page;
  let key: string;
  test.beforeEach(async ({ page: p }) => {
    page = p;
    await openApp(page, '/test/pages/clients.html');
    key = await makeKey(page);
  });

  test('JSON: a response object with reasoning and message items, usage, stored and retrievable', async () => {
    const answer = await post(page, key, { model: 'svc-model-5.2-short', input: 'hello responses', metadata: { run: 'a' } });
    expect(answer.status, answer.text).toBe(200);
    expectSchema('Response', answer.json);
    const response = answer.json as Record<string, unknown>;
    expect(response).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'svc-model-5.2-short',
      store: true,
      metadata: { run: 'a' },
      output: [
        { type: 'reasoning', content: [{ type: 'reasoning_text', text: 'Thinking about: hello responses' }] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Echo: hello responses' }] },
      ],
      usage: { output_tokens: 7, output_tokens_details: { reasoning_tokens: 4 } },
    });
    expect(response.id).toMatch(/^resp_/);
    const got = await call(page, `/v1/responses/${response.id as string}`, { headers: auth(key) });
    expect(got.status).toBe(200);
    expect(got.json).toEqual(response);
  });

  test('stream: typed events with sequence numbers, no [DONE], each valid against the schema', async () => {
    const answer = await post(page, key, { model: 'svc-model-5.2-fast', input: 'count 3', stream: true });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(answer.text).not.toContain('[DONE]');
    const events = typedEvents(answer.text);
    events.forEach((e, i) => {
      expect(e.data.type).toBe(e.event);
      expect(e.data.sequence_number).toBe(i);
      expectSchema('ResponseStreamEvent', e.data);
    });
    expect(events.map((e) => e.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.at(-1)!.data.response).toMatchObject({ status: 'completed', output: [{ content: [{ text: '1 2 3' }] }] });
  });

  test('a late failure arrives as error then response.failed', async () => {
    const answer = await post(page, key, { model: 'svc-model-5.2-fast', input: 'fail after 2', stream: true });
    const events = typedEvents(answer.text);
    expect(events.slice(-2).map((e) => e.event)).toEqual(['error', 'response.failed']);
    for (const e of events) expectSchema('ResponseStreamEvent', e.data);
  });

  test('max_output_tokens cuts the answer: incomplete with incomplete_details', async () => {
    const answer = await post(page, key, { model: 'svc-model-5.2-fast', input: 'count 40', max_output_tokens: 16 });
    expectSchema('Response', answer.json);
    expect(answer.json).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage: { output_tokens: 16 } });
  });

  test('previous_response_id continues the stored conversation; store:false is never stored', async () => {
    const first = (await post(page, key, { model: 'svc-model-5.2-fast', input: 'first turn' })).json as { id: string };
    const second = await post(page, key, { model: 'svc-model-5.2-fast', input: 'second turn', previous_response_id: first.id });
    // The prompt holds both turns and the first answer: 3 messages of the test engine's template.
    expect(second.json).toMatchObject({ previous_response_id: first.id, output: [{ content: [{ text: 'Echo: second turn' }] }] });
    const single = (await post(page, key, { model: 'svc-model-5.2-fast', input: 'second turn' })).json as { usage: { input_tokens: number } };
    expect((second.json as { usage: { input_tokens: number } }).usage.input_tokens).toBeGreaterThan(single.usage.input_tokens);

    const unstored = (await post(page, key, { model: 'svc-model-5.2-fast', input: 'forget me', store: false })).json as { id: string; store: boolean };
    expect(unstored.store).toBe(false);
    expectError(await call(page, `/v1/responses/${unstored.id}`, { headers: auth(key) }), 404, 'response_not_found', 'response_id');
    expectError(
      await post(page, key, { model: 'svc-model-5.2-fast', input: 'x', previous_response_id: unstored.id }),
      404,
      'response_not_found',
      'previous_response_id',
    );
  });

  test('another key cannot read, continue, list or delete; deleted is gone; revoked key is refused', async () => {
    const other = await makeKey(page, { name: 'other' });
    const mine = (await post(page, key, { model: 'svc-model-5.2-fast', input: 'private' })).json as { id: string };
    expectError(await call(page, `/v1/responses/${mine.id}`, { headers: auth(other) }), 404, 'response_not_found', 'response_id');
    expectError(await call(page, `/v1/responses/${mine.id}/input_items`, { headers: auth(other) }), 404, 'response_not_found', 'response_id');
    expectError(await call(page, `/v1/responses/${mine.id}`, { method: 'DELETE', headers: auth(other) }), 404, 'response_not_found', 'response_id');
    expectError(
      await post(page, other, { model: 'svc-model-5.2-fast', input: 'x', previous_response_id: mine.id }),
      404,
      'response_not_found',
      'previous_response_id',
    );
    expectError(await call(page, '/v1/responses/resp_unknown', { headers: auth(key) }), 404, 'response_not_found', 'response_id');

    const deleted = await call(page, `/v1/responses/${mine.id}`, { method: 'DELETE', headers: auth(key) });
    expect(deleted.json).toEqual({ id: mine.id, object: 'response', deleted: true });
    expectError(await call(page, `/v1/responses/${mine.id}`, { headers: auth(key) }), 404, 'response_not_found', 'response_id');

    const kept = (await post(page, other, { model: 'svc-model-5.2-fast', input: 'kept' })).json as { id: string };
    await page.evaluate(async (full) => {
      const api = await window.inpageReady!;
      const record = (await api.keys.list()).find((k) => k.display === `sk-svc-${full.slice(7, 11)}…${full.slice(-4)}`)!;
      await api.keys.revoke(record.id);
    }, other);
    expectError(await call(page, `/v1/responses/${kept.id}`, { headers: auth(other) }), 401, 'invalid_api_key');
  });

  test('refusals: built-in tools, background, conversation, include, max_output_tokens, missing input, keys', async () => {
    const base = { model: 'svc-model-5.2-fast', input: 'x' };
    expectError(await post(page, key, { ...base, tools: [{ type: 'web_search' }] }), 400, 'unsupported_parameter', 'tools[0].type');
    expectError(await post(page, key, { ...base, background: true }), 400, 'unsupported_parameter', 'background');
    expectError(await post(page, key, { ...base, conversation: { id: 'conv_1' } }), 400, 'unsupported_parameter', 'conversation');
    expectError(await post(page, key, { ...base, include: ['code_interpreter_call.outputs'] }), 400, 'unsupported_parameter', 'include[0]');
    expectError(await post(page, key, { ...base, max_output_tokens: 8 }), 400, 'invalid_value', 'max_output_tokens');
    expectError(await post(page, key, { model: 'svc-model-5.2-fast' }), 400, 'missing_required_parameter', 'input');
    expectError(await post(page, key, { ...base, model: 'svc-nope' }), 404, 'model_not_found', 'model');
    expectError(await post(page, key, { ...base, reasoning: { effort: 'high' } }), 400, 'unsupported_parameter', 'reasoning.effort');
    expectError(
      await call(page, '/v1/responses', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(base) }),
      401,
      'missing_api_key',
    );
    const narrow = await makeKey(page, { name: 'narrow', models: ['svc-vision'] });
    expectError(await post(page, narrow, base), 404, 'model_not_found', 'model');
    expectError(await call(page, '/v1/responses', { headers: auth(key) }), 405, 'method_not_allowed');
  });
});

test.describe('real clients', () => {
  test('openai SDK: responses.create (JSON and stream), retrieve, inputItems.list, delete', async ({ page }) => {
    await openApp(page, '/test/pages/clients.html');
    const key = await makeKey(page);
    const result = await page.evaluate(async (apiKey) => {
      const client = new window.clients.OpenAI({ baseURL: `${location.origin}/v1`, apiKey, dangerouslyAllowBrowser: true, maxRetries: 0 });
      const created = await client.responses.create({
        model: 'svc-model-5.2-fast',
        instructions: 'Be nice.',
        input: [
          { role: 'user', content: 'one' },
          { role: 'assistant', content: 'two' },
          { role: 'user', content: [{ type: 'input_text', text: 'three' }] },
        ],
      });
      const stream = await client.responses.create({ model: 'svc-model-5.2-short', input: 'count 2', stream: true });
      const types: string[] = [];
      let text = '';
      let reasoning = '';
      let completed: unknown = null;
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === 'response.output_text.delta') text += event.delta;
        if (event.type === 'response.reasoning_text.delta') reasoning += event.delta;
        if (event.type === 'response.completed') completed = event.response;
      }
      const retrieved = await client.responses.retrieve(created.id);
      const items = await client.responses.inputItems.list(created.id, { limit: 2 });
      const itemIds = items.data.map((i) => i.id);
      const all: string[] = [];
      for await (const item of client.responses.inputItems.list(created.id, { limit: 1, order: 'asc' })) all.push(item.id);
      await client.responses.delete(created.id);
      let afterDelete: number | undefined;
      try {
        await client.responses.retrieve(created.id);
      } catch (err) {
        afterDelete = (err as { status?: number }).status;
      }
      return {
        outputText: created.output_text,
        retrievedText: retrieved.output_text,
        types,
        text,
        reasoning,
        completed,
        itemIds,
        hasMore: items.has_more,
        all,
        afterDelete,
      };
    }, key);
    expect(result.outputText).toBe('Echo: three');
    expect(result.retrievedText).toBe('Echo: three');
    expect(result.text).toBe('1 2');
    expect(result.reasoning).toBe('Thinking about: count 2');
    expect(result.types[0]).toBe('response.created');
    expect(result.types.at(-1)).toBe('response.completed');
    expectSchema('Response', result.completed);
    // Three input items (instructions are not an item), newest first, paged by the SDK's cursor.
    expect(result.itemIds).toHaveLength(2);
    expect(result.hasMore).toBe(true);
    expect(result.all).toHaveLength(3);
    expect(result.all.slice().reverse().slice(0, 2)).toEqual(result.itemIds);
    expect(result.afterDelete).toBe(404);
  });

  test('openai SDK: a function-tool round trip with function_call_output and previous_response_id, streamed and not', async ({ page }) => {
    await openApp(page, '/test/pages/clients.html');
    const key = await makeKey(page);
    const result = await page.evaluate(async (apiKey) => {
      const client = new window.clients.OpenAI({ baseURL: `${location.origin}/v1`, apiKey, dangerouslyAllowBrowser: true, maxRetries: 0 });
      const tools = [
        {
          type: 'function' as const,
          name: 'get_weather',
          description: 'The weather in a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
          strict: true,
        },
      ];
      const first = await client.responses.create({ model: 'svc-model-5.2-fast', input: 'please call get_weather', tools });
      const call = first.output.find((item) => item.type === 'function_call');
      if (!call || call.type !== 'function_call') throw new Error(`no function call in ${JSON.stringify(first.output)}`);
      const second = await client.responses.create({
        model: 'svc-model-5.2-fast',
        previous_response_id: first.id,
        input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny, 21 °C' }],
        tools,
      });
      // The same first turn, streamed: the call opens with empty arguments and fills by deltas.
      const stream = await client.responses.create({ model: 'svc-model-5.2-fast', input: 'please call get_weather', tools, stream: true });
      const events: { type: string; arguments?: string; delta?: string }[] = [];
      for await (const event of stream) {
        if (event.type === 'response.output_item.added' && event.item.type === 'function_call')
          events.push({ type: event.type, arguments: event.item.arguments });
        else if (event.type === 'response.function_call_arguments.delta') events.push({ type: event.type, delta: event.delta });
        else if (event.type === 'response.function_call_arguments.done') events.push({ type: event.type, arguments: event.arguments });
      }
      const items = await client.responses.inputItems.list(second.id);
      return {
        call: { name: call.name, arguments: call.arguments, callId: call.call_id },
        status: first.status,
        text: second.output_text,
        events,
        items: items.data.map((i) => i.type),
      };
    }, key);
    expect(result.call.name).toBe('get_weather');
    expect(JSON.parse(result.call.arguments)).toEqual({ city: 'a' });
    expect(result.call.callId).toMatch(/^call_/);
    expect(result.status).toBe('completed');
    expect(result.text).toBe('Tool said: sunny, 21 °C');
    expect(result.events[0]).toEqual({ type: 'response.output_item.added', arguments: '' });
    expect(result.events.filter((e) => e.type === 'response.function_call_arguments.delta').length).toBeGreaterThanOrEqual(2);
    const done = result.events.at(-1)!;
    expect(done.type).toBe('response.function_call_arguments.done');
    expect(
      result.events
        .filter((e) => e.delta)
        .map((e) => e.delta)
        .join(''),
    ).toBe(done.arguments);
    expect(result.items).toEqual(['function_call_output']);
  });

  test('AI SDK default provider (Responses): generateText and streamText', async ({ page }) => {
    await openApp(page, '/test/pages/clients.html');
    const key = await makeKey(page);
    const result = await page.evaluate(async (apiKey) => {
      const { createOpenAI, generateText, streamText } = window.clients;
      const provider = createOpenAI({ baseURL: `${location.origin}/v1`, apiKey });
      const generated = await generateText({ model: provider('svc-model-5.2-fast'), prompt: 'hello ai sdk responses' });
      const streamed = streamText({ model: provider('svc-model-5.2-short'), prompt: 'count 3' });
      let text = '';
      for await (const part of streamed.textStream) text += part;
      return {
        text: generated.text,
        output: generated.usage.outputTokens,
        responseId: generated.response.id,
        streamed: text,
        finish: await streamed.finishReason,
      };
    }, key);
    // The AI SDK reads reasoning summaries only, not reasoning_text: the thinking does not reach its reasoningText.
    expect(result).toMatchObject({ text: 'Echo: hello ai sdk responses', output: 5, streamed: '1 2 3', finish: 'stop' });
    expect(result.responseId).toMatch(/^resp_/);
  });

  test("openai SDK: item_reference by hand resolves a key's stored items; another key's, unknown or deleted ones are OpenAI's 404", async ({ page }) => {
    await openApp(page, '/test/pages/clients.html');
    const key = await makeKey(page);
    const other = await makeKey(page, { name: 'other' });
    const result = await page.evaluate(
      async ({ apiKey, otherKey }) => {
        const { OpenAI } = window.clients;
        const base = { baseURL: `${location.origin}/v1`, dangerouslyAllowBrowser: true, maxRetries: 0 };
        const client = new OpenAI({ ...base, apiKey });
        const stranger = new OpenAI({ ...base, apiKey: otherKey });
        const tools = [
          {
            type: 'function' as const,
            name: 'get_weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
            strict: false,
          },
        ];
        const grab = async (p: Promise<unknown>) => {
          try {
            await p;
            return null;
          } catch (err) {
            const e = err as InstanceType<typeof OpenAI.APIError>;
            return {
              notFound: err instanceof OpenAI.NotFoundError,
              status: e.status,
              type: e.type,
              code: e.code,
              param: e.param,
              message: e.error && (e.error as { message?: string }).message,
            };
          }
        };
        // A thinking turn that calls the tool: output reasoning (rs_…) and function_call (fc_…).
        const first = await client.responses.create({ model: 'svc-model-5.2', input: 'please call get_weather', tools });
        const [question] = (await client.responses.inputItems.list(first.id)).data;
        const reasoning = first.output.find((item) => item.type === 'reasoning')!;
        const call = first.output.find((item) => item.type === 'function_call')!;
        if (call.type !== 'function_call') throw new Error('no call');
        // Every earlier item by reference (an input item and two output items), then the tool's output.
        const second = await client.responses.create({
          model: 'svc-model-5.2',
          tools,
          input: [
            { type: 'item_reference', id: question!.id },
            { type: 'item_reference', id: reasoning.id },
            { type: 'item_reference', id: call.id! },
            { type: 'function_call_output', call_id: call.call_id, output: 'sunny, 21 °C' },
          ],
        });
        // The function_call_output stored as the second request's input item is referable too.
        const secondItems = (await client.responses.inputItems.list(second.id, { order: 'asc' })).data;
        const output = secondItems.find((item) => item.type === 'function_call_output')!;
        const third = await client.responses.create({
          model: 'svc-model-5.2-fast',
          tools,
          input: [
            { type: 'item_reference', id: question!.id },
            { type: 'item_reference', id: call.id! },
            { type: 'item_reference', id: output.id! },
          ],
        });
        const refs = (id: string) => [
          { role: 'user' as const, content: 'hi' },
          { type: 'item_reference' as const, id },
        ];
        const othersKey = await grab(stranger.responses.create({ model: 'svc-model-5.2', input: refs(reasoning.id) }));
        const unknown = await grab(client.responses.create({ model: 'svc-model-5.2', input: refs('msg_0123456789abcdef') }));
        await client.responses.delete(first.id);
        const deleted = await grab(client.responses.create({ model: 'svc-model-5.2', input: refs(reasoning.id) }));
        return {
          ids: { question: question!.id, reasoning: reasoning.id, call: call.id },
          second: second.output_text,
          secondItems: secondItems.map((item) => [item.type, item.id]),
          third: third.output_text,
          othersKey,
          unknown,
          deleted,
        };
      },
      { apiKey: key, otherKey: other },
    );
    expect(result.ids.question).toMatch(/^msg_/);
    expect(result.ids.reasoning).toMatch(/^rs_/);
    expect(result.ids.call).toMatch(/^fc_/);
    expect(result.second).toBe('Tool said: sunny, 21 °C');
    // Listed as the items themselves (the reasoning item stays out, as one sent in full does), ids kept.
    expect(result.secondItems).toEqual([
      ['message', result.ids.question],
      ['function_call', result.ids.call],
      ['function_call_output', expect.stringMatching(/^fco_/)],
    ]);
    expect(result.third).toBe('Tool said: sunny, 21 °C');
    const notFound = (id: string) => ({
      notFound: true,
      status: 404,
      type: 'invalid_request_error',
      code: null,
      param: 'input',
      message: `Item with id '${id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
    });
    expect(result.othersKey).toEqual(notFound(result.ids.reasoning));
    expect(result.unknown).toEqual(notFound('msg_0123456789abcdef'));
    expect(result.deleted).toEqual(notFound(result.ids.reasoning));
  });

  // The AI SDK's default provider stores (store on) and, from the second step of a tool loop on, names the
  // earlier reasoning item by reference ({type: "item_reference", id: "rs_…"}) instead of resending it.
  for (const model of ['svc-model-5.2', 'svc-model-5.2-short']) {
    test(`AI SDK default provider: generateText and streamText tool loops on ${model}, earlier items sent by item_reference`, async ({ page }) => {
      await openApp(page, '/test/pages/clients.html');
      const key = await makeKey(page);
      const result = await page.evaluate(
        async ({ apiKey, model }) => {
          const { createOpenAI, generateText, streamText, stepCountIs, tool, z } = window.clients;
          const sent: { type: string; id?: string }[][] = [];
          const provider = createOpenAI({
            baseURL: `${location.origin}/v1`,
            apiKey,
            fetch: async (input, init) => {
              const body = JSON.parse(String(init?.body)) as { input: { type?: string; role?: string; id?: string }[] };
              sent.push(body.input.map((item) => ({ type: item.type ?? item.role ?? '?', ...(item.type === 'item_reference' ? { id: item.id } : {}) })));
              return fetch(input, init);
            },
          });
          const calledWith: unknown[] = [];
          const getWeather = tool({
            description: 'The weather in a city',
            inputSchema: z.object({ city: z.string() }),
            execute: async ({ city }) => {
              calledWith.push(city);
              return `sunny in ${city}`;
            },
          });
          const generated = await generateText({
            model: provider(model),
            prompt: 'Ask get_weather, then tell me.',
            tools: { get_weather: getWeather },
            stopWhen: stepCountIs(4),
          });
          const generatedSent = sent.splice(0);
          const streamed = streamText({
            model: provider(model),
            prompt: 'Ask get_weather, then tell me.',
            tools: { get_weather: getWeather },
            stopWhen: stepCountIs(4),
          });
          let streamedText = '';
          for await (const part of streamed.textStream) streamedText += part;
          const steps = await streamed.steps;
          const summary = (s: typeof steps) =>
            s.map((step) => ({ finish: step.finishReason, results: step.toolResults.map((r) => [r.toolName, r.input, r.output]) }));
          return {
            generated: {
              text: generated.text,
              steps: summary(generated.steps),
              reasoningIds: generated.steps[0]!.content.flatMap((part) => (part.type === 'reasoning' ? [part.providerMetadata?.openai?.itemId] : [])),
            },
            streamed: { text: streamedText, steps: summary(steps) },
            calledWith,
            generatedSent,
            streamedSent: sent,
          };
        },
        { apiKey: key, model },
      );
      const steps = [
        { finish: 'tool-calls', results: [['get_weather', { city: 'a' }, 'sunny in a']] },
        { finish: 'stop', results: [] },
      ];
      expect(result.generated.text).toBe('Tool said: sunny in a');
      expect(result.generated.steps).toEqual(steps);
      expect(result.streamed.text).toBe('Tool said: sunny in a');
      expect(result.streamed.steps).toEqual(steps);
      expect(result.calledWith).toEqual(['a', 'a']);
      // The second request of each loop referenced the first step's reasoning item by its id.
      const reasoningId = result.generated.reasoningIds[0];
      expect(reasoningId).toMatch(/^rs_/);
      for (const sent of [result.generatedSent, result.streamedSent]) {
        expect(sent).toHaveLength(2);
        expect(sent[0]).toEqual([{ type: 'user' }]);
        expect(sent[1]).toContainEqual({ type: 'item_reference', id: expect.stringMatching(/^rs_/) });
        expect(sent[1]!.filter((item) => item.type !== 'item_reference')).toEqual([
          { type: 'user' },
          { type: 'function_call' },
          { type: 'function_call_output' },
        ]);
      }
      expect(result.generatedSent[1]).toContainEqual({ type: 'item_reference', id: reasoningId });
    });
  }
});

test('the API Keys area shows how many responses are stored and deletes them all', async ({ page }) => {
  await openWorkspace(page);
  await registerThroughForm(page);
  const key = await page.evaluate(async () => (await window.inpage!.keys.create({ name: 'stores' })).key);
  const ids: string[] = [];
  for (const input of ['one', 'two']) ids.push(((await post(page, key, { model: 'svc-model-5.2-fast', input })).json as { id: string }).id);
  await post(page, key, { model: 'svc-model-5.2-fast', input: 'not kept', store: false });
  await goToArea(page, 'API Keys');
  const panel = page.getByTestId('stored-responses');
  await expect(panel.getByRole('heading')).toHaveText('Stored responses 2');
  await panel.getByRole('button', { name: 'Delete all stored responses' }).click();
  await panel.getByRole('button', { name: 'Delete all 2' }).click();
  await expect(panel.getByRole('heading')).toHaveText('Stored responses 0');
  await expect(panel.getByRole('button', { name: 'Delete all stored responses' })).toBeDisabled();
  for (const id of ids) expectError(await call(page, `/v1/responses/${id}`, { headers: auth(key) }), 404, 'response_not_found', 'response_id');
});

test('the Connect area has a Responses snippet, and it runs as shown with the real SDK', async ({ page }) => {
  await openWorkspace(page);
  await registerThroughForm(page);
  const key = await page.evaluate(async () => (await window.inpage!.keys.create({ name: 'snippet' })).key);
  await goToArea(page, 'Connect');
  await page.getByLabel('Fill your key into the snippets').fill(key);
  await page.getByRole('button', { name: 'Fill in' }).click();
  // The snippet is re-rendered with the key after the click: wait for it before reading the code.
  await expect(page.locator('[data-snippet="responses"] pre')).toContainText(key);
  const code = (await page.locator('[data-snippet="responses"] pre').textContent())!;
  await page.goto('/test/pages/clients.html');
  await page.evaluate(async () => {
    await window.inpageReady;
  });
  const logged = await page.evaluate(async (source) => {
    const lines: unknown[] = [];
    const body = source.replace("import OpenAI from 'openai';", '');
    const AsyncFunction = (async () => undefined).constructor as new (...args: string[]) => (OpenAI: unknown, console: unknown) => Promise<void>;
    await new AsyncFunction('OpenAI', 'console', body)(window.clients.OpenAI, { log: (line: unknown) => lines.push(line) });
    return lines;
  }, code);
  expect(logged).toEqual(['Echo: Say hello in five words.', 'Echo: Now in three.']);
});
