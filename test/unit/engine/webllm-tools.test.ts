// Tools, structured output and logprobs on the web-llm engine (issue 10), against the typed fake: what reaches
// web-llm (Qwen3's tool format in the prompt, the grammar in response_format) and what comes back out.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '#shared/config';
import type { EngineEvent } from '#shared/wire/engine-port';
import { ApiError } from '#shared/protocol/errors';
import type { ChatCompletionRequest, FunctionTool } from '#shared/protocol/types';
import { buildCatalog, variantIn } from '#shared/model-config';
import { WebLlmEngine } from '../../../worker/engine/webllm/adapter';
import { renderCall } from '../../../worker/engine/webllm/tool-formats/qwen3';
import { resolved, scheduled, type RequestBody } from '../fakes/requests';
import { rig, type Rig } from '../fakes/webllm-fake';
import { withPlan, type PlannedRequest } from '../../../worker/engine/common/plan';
import { jsonSchemaGrammar } from '../../../worker/engine/common/json-grammar';

function setup(): Rig & { adapter: WebLlmEngine } {
  const r = rig();
  return { ...r, adapter: new WebLlmEngine({ ...DEFAULT_CONFIG }, r.deps) };
}

const ask = (model: RequestBody['model'], extra: Partial<RequestBody> = {}): PlannedRequest =>
  resolved({ model, messages: [{ role: 'user', content: 'weather in Oslo?' }], ...extra });

async function run(adapter: WebLlmEngine, request: PlannedRequest) {
  const generation = await adapter.generate(request, new AbortController().signal);
  const events: EngineEvent[] = [];
  for await (const event of generation.events) events.push(event);
  return events;
}

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected a rejection');
}

const weather: FunctionTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

/** The model writing `text`, a few characters per token. */
const pieces = (text: string) => text.match(/[\s\S]{1,3}/g) ?? [];

describe('web-llm: tools in Qwen3 format', () => {
  it('puts the tools in the system turn, renders calls and results as the template does, and sends the grammar', async () => {
    const t = setup();
    await run(
      t.adapter,
      ask('svc-model-5.2-fast', {
        tools: [weather],
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'weather in Oslo and Rome?' },
          {
            role: 'assistant',
            content: '',
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Oslo"}' } },
              { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Rome"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
          { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: 'rain' }] },
        ],
      }),
    );
    const sent = t.engine().requests[0]!;
    expect(sent.messages[0]!.role).toBe('system');
    expect(sent.messages[0]!.content).toMatch(
      /^Be brief\.\n\n# Tools\n\n[\s\S]*<tools>\n\{"type": "function", "function": \{"name": "get_weather"[\s\S]*<\/tools>[\s\S]*<\/tool_call>$/,
    );
    expect(sent.messages.slice(1)).toEqual([
      { role: 'user', content: 'weather in Oslo and Rome?' },
      { role: 'assistant', content: `${renderCall('get_weather', '{"city": "Oslo"}')}\n${renderCall('get_weather', '{"city": "Rome"}')}` },
      { role: 'user', content: '<tool_response>\nsunny\n</tool_response>\n<tool_response>\nrain\n</tool_response>' },
    ]);
    expect(sent.response_format).toMatchObject({ type: 'structural_tag', structural_tag: { format: { type: 'triggered_tags', triggers: ['<tool_call>'] } } });
    expect(sent).not.toHaveProperty('tools');
  });

  it('turns the answer into tool-call events, arguments in fragments, finish tool_calls; text stays content', async () => {
    const t = setup();
    t.engine().script = () => ({ pieces: pieces(`Checking.\n${renderCall('get_weather', '{"city": "Oslo"}')}`) });
    const events = await run(t.adapter, ask('svc-model-5.2-fast', { tools: [weather] }));
    const content = events.map((e) => (e.type === 'delta' ? (e.content ?? '') : '')).join('');
    expect(content).toBe('Checking.');
    expect(content).not.toContain('<');
    const call = events.find((e) => e.type === 'tool_call');
    expect(call).toMatchObject({ type: 'tool_call', index: 0, name: 'get_weather', id: expect.stringMatching(/^call_/) });
    const fragments = events.filter((e) => e.type === 'tool_arguments').map((e) => (e as { arguments: string }).arguments);
    expect(fragments.length).toBeGreaterThanOrEqual(2);
    expect(fragments.join('')).toBe('{"city": "Oslo"}');
    expect(events.at(-1)).toMatchObject({ type: 'finish', finish_reason: 'tool_calls' });
  });

  it('keeps thinking apart on thinking variants, and holds required / named calls to the grammar after thinking', async () => {
    const t = setup();
    t.engine().script = () => ({ pieces: ['<think>', '\nplan', '\n</think>', '\n\n', ...pieces(renderCall('get_weather', '{"city": "a"}'))] });
    const events = await run(t.adapter, ask('svc-model-5.2', { tools: [weather], tool_choice: 'required' }));
    expect(
      events
        .filter((e) => e.type === 'delta')
        .map((e) => (e as { reasoning?: string }).reasoning ?? '')
        .join(''),
    ).toBe('plan');
    expect(events.some((e) => e.type === 'delta' && e.content)).toBe(false);
    expect(events.at(-1)).toMatchObject({ finish_reason: 'tool_calls' });
    const sent = t.engine().requests[0]!;
    expect(sent.response_format).toMatchObject({
      type: 'structural_tag',
      structural_tag: {
        format: {
          type: 'sequence',
          elements: [{ type: 'tag', begin: '<think>' }, { type: 'const_string' }, { type: 'tags_with_separator', at_least_one: true }],
        },
      },
    });
  });

  it('tool_choice none: no tools block, no grammar, answers as text; svc-vision with tools is refused', async () => {
    const t = setup();
    await run(t.adapter, ask('svc-model-5.2-fast', { tools: [weather], tool_choice: 'none' }));
    expect(JSON.stringify(t.engine().requests[0]!.messages)).not.toContain('<tools>');
    expect(t.engine().requests[0]!.response_format).toBeUndefined();
    const err = await rejection(scheduled(t.adapter).generate(ask('svc-vision', { tools: [weather] }), new AbortController().signal));
    expect(err).toMatchObject({ code: 'unsupported_parameter', param: 'tools' });
  });

  it('json_schema: inpage’s grammar of the schema, in a structural tag after thinking on thinking variants, as web-llm’s grammar format otherwise', async () => {
    const t = setup();
    const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    const format = { type: 'json_schema' as const, json_schema: { name: 'n', schema, strict: true } };
    await run(t.adapter, ask('svc-model-5.2-fast', { response_format: format }));
    await run(t.adapter, ask('svc-model-5.2', { response_format: format }));
    // inpage's grammar of the schema (json-grammar.ts: bounded numbers), not xgrammar's conversion of it.
    const grammar = jsonSchemaGrammar(schema, 'response_format.json_schema.schema');
    expect(t.engine().requests[0]!.response_format).toEqual({ type: 'grammar', grammar });
    expect(t.engine().requests[1]!.response_format).toMatchObject({
      type: 'structural_tag',
      structural_tag: { format: { type: 'sequence', elements: [{ begin: '<think>' }, {}, { type: 'grammar', grammar }] } },
    });
  });

  it('refuses a schema keyword the grammar cannot hold output to, naming it, before web-llm is asked', async () => {
    const t = setup();
    const format = {
      type: 'json_schema' as const,
      json_schema: { name: 'n', schema: { type: 'object', properties: { n: { type: 'integer', multipleOf: 2 } } } },
    };
    const bad = await rejection(scheduled(t.adapter).generate(ask('svc-model-5.2-fast', { response_format: format }), new AbortController().signal));
    expect(bad).toMatchObject({ code: 'unsupported_parameter', param: 'response_format.json_schema.schema.properties.n.multipleOf' });
    const tool = { type: 'function' as const, function: { name: 'f', parameters: { type: 'object', properties: { s: { not: {} } } } } };
    const badTool = await rejection(scheduled(t.adapter).generate(ask('svc-model-5.2-fast', { tools: [tool] }), new AbortController().signal));
    expect(badTool).toMatchObject({ code: 'unsupported_parameter', param: 'tools[0].function.parameters.properties.s.not' });
    // Tools not offered (tool_choice none) build no grammar: nothing to refuse.
    await run(t.adapter, ask('svc-model-5.2-fast', { tools: [tool], tool_choice: 'none' }));
    expect(t.engine().requests).toHaveLength(1);
  });

  it('refuses a JSON response_format together with tools under auto', async () => {
    const t = setup();
    const err = await rejection(
      t.adapter.generate(ask('svc-model-5.2-fast', { tools: [weather], response_format: { type: 'json_object' } }), new AbortController().signal),
    );
    expect(err).toMatchObject({ code: 'unsupported_parameter', param: 'response_format' });
  });
});

describe('web-llm: KV cache across a tool round trip', () => {
  it('the turn after a tool call (its calls and the results sent back) continues the conversation web-llm holds', async () => {
    const t = setup();
    const call = renderCall('get_weather', '{"city": "Oslo"}');
    t.engine().script = (request) => ({
      pieces: pieces(
        request.messages.at(-1)!.role === 'user' && String(request.messages.at(-1)!.content).startsWith('<tool_response>') ? 'It is sunny.' : call,
      ),
    });
    const first = ask('svc-model-5.2-fast', { tools: [weather] });
    const events = await run(t.adapter, first);
    const started = events.find((e) => e.type === 'tool_call') as Extract<EngineEvent, { type: 'tool_call' }>;
    const args = events
      .filter((e) => e.type === 'tool_arguments')
      .map((e) => (e as { arguments: string }).arguments)
      .join('');
    const second = ask('svc-model-5.2-fast', {
      tools: [weather],
      messages: [
        ...first.messages,
        { role: 'assistant', content: '', tool_calls: [{ id: started.id, type: 'function', function: { name: started.name, arguments: args } }] },
        { role: 'tool', tool_call_id: started.id, content: 'sunny' },
      ],
    });
    const answer = await run(t.adapter, second);
    expect(answer.map((e) => (e.type === 'delta' ? (e.content ?? '') : '')).join('')).toBe('It is sunny.');
    expect(t.engine().reused).toEqual([false, true]);
    expect((answer.at(-1) as Extract<EngineEvent, { type: 'finish' }>).usage.prompt_tokens_details.cached_tokens).toBeGreaterThan(0);
  });
});

describe('web-llm: logprobs', () => {
  it("keeps the first answer token's logprob on thinking-off variants (its chunk carries the empty thinking block)", async () => {
    const t = setup();
    t.engine().script = () => ({ pieces: ['Yes', ' it', ' is'] });
    const events = await run(t.adapter, ask('svc-model-5.2-fast', { logprobs: true, top_logprobs: 1 }));
    const tokens = events.flatMap((e) => (e.type === 'delta' && e.logprobs ? e.logprobs.map((l) => l.token) : []));
    expect(tokens).toEqual(['Yes', ' it', ' is']);
  });

  it('logprobs: true alone: web-llm is asked for one alternative (it records none at 0), the answer carries none', async () => {
    const t = setup();
    t.engine().script = () => ({ pieces: ['A', 'B'] });
    const events = await run(t.adapter, ask('svc-model-5.2-fast', { logprobs: true }));
    expect(t.engine().requests[0]).toMatchObject({ logprobs: true, top_logprobs: 1 });
    const logprobs = events.flatMap((e) => (e.type === 'delta' && e.logprobs ? e.logprobs : []));
    expect(logprobs).toEqual([
      { token: 'A', logprob: -0.5, bytes: null, top_logprobs: [] },
      { token: 'B', logprob: -0.5, bytes: null, top_logprobs: [] },
    ]);
    const two = await run(t.adapter, ask('svc-model-5.2-fast', { logprobs: true, top_logprobs: 2 }));
    expect(two.flatMap((e) => (e.type === 'delta' && e.logprobs ? e.logprobs.map((l) => l.top_logprobs.length) : []))).toEqual([2, 2]);
  });
});

describe('web-llm: tools in the formats of other models a deployment maps an id to', () => {
  const MODELS = {
    'team/llama': { webllm: 'Llama-3.2-1B-Instruct-q4f32_1-MLC' },
    'team/mistral': { webllm: 'Mistral-7B-Instruct-v0.3-q4f32_1-MLC' },
    'team/phi': { webllm: 'Phi-4-mini-instruct-q4f32_1-MLC' },
    'team/gemma': { webllm: 'gemma-2-2b-it-q4f32_1-MLC' },
  };
  const catalog = buildCatalog(MODELS);

  function configured(): Rig & { adapter: WebLlmEngine } {
    const r = rig();
    return { ...r, adapter: new WebLlmEngine({ ...DEFAULT_CONFIG, models: MODELS }, r.deps, catalog) };
  }
  const askOf = (model: string, extra: Partial<RequestBody> = {}): PlannedRequest =>
    withPlan({ model, messages: [{ role: 'user', content: 'weather in Oslo?' }], ...extra, variant: variantIn(catalog, model)! } as ChatCompletionRequest);

  /** The calls the events carry: name and the arguments put together, parsed. */
  function callsOf(events: EngineEvent[]) {
    const calls: { name: string; arguments: string }[] = [];
    for (const e of events) {
      if (e.type === 'tool_call') calls[e.index] = { name: e.name, arguments: '' };
      if (e.type === 'tool_arguments') calls[e.index]!.arguments += e.arguments;
    }
    return calls.map((c) => ({ name: c.name, arguments: JSON.parse(c.arguments) as unknown }));
  }
  const contentOf = (events: EngineEvent[]) => events.map((e) => (e.type === 'delta' ? (e.content ?? '') : '')).join('');

  it('Llama 3.x: the tools in its JSON format, a forced call held by the grammar, and a streamed call read back', async () => {
    const t = configured();
    t.engine().script = () => ({ pieces: pieces('{"name": "get_weather", "parameters": {"city": "Oslo"}}') });
    const forced = await run(t.adapter, askOf('team/llama', { tools: [weather], tool_choice: 'required' }));
    const sent = t.engine().requests[0]!;
    expect(sent.messages[0]!.content).toMatch(/^Given the following functions[\s\S]*"name": "get_weather"/);
    expect(sent).not.toHaveProperty('extra_body');
    expect(sent.response_format).toMatchObject({
      type: 'structural_tag',
      structural_tag: { format: { type: 'tags_with_separator', at_least_one: true, tags: [{ begin: '{"name": "get_weather", "parameters": ', end: '}' }] } },
    });
    expect(callsOf(forced)).toEqual([{ name: 'get_weather', arguments: { city: 'Oslo' } }]);
    expect(contentOf(forced)).toBe('');
    expect(forced.at(-1)).toMatchObject({ type: 'finish', finish_reason: 'tool_calls' });

    t.engine().script = () => ({
      pieces: pieces(
        'Let me see.\n\n<|python_tag|>{"name": "get_weather", "parameters": {"city": "Rome"}}; {"name": "get_weather", "parameters": {"city": "Oslo"}}',
      ),
    });
    const streamed = await run(t.adapter, askOf('team/llama', { tools: [weather], stream: true }));
    expect(t.engine().requests[1]!.response_format).toMatchObject({ structural_tag: { format: { type: 'triggered_tags', triggers: ['{"name": '] } } });
    expect(contentOf(streamed)).toBe('Let me see.');
    expect(callsOf(streamed)).toEqual([
      { name: 'get_weather', arguments: { city: 'Rome' } },
      { name: 'get_weather', arguments: { city: 'Oslo' } },
    ]);
    expect(streamed.filter((e) => e.type === 'tool_arguments').length).toBeGreaterThan(2); // in fragments, as they came
    expect(streamed.at(-1)).toMatchObject({ finish_reason: 'tool_calls' });
  });

  it('Mistral: [AVAILABLE_TOOLS] in the prompt, calls and results in its history format, a forced call and a streamed one', async () => {
    const t = configured();
    t.engine().script = () => ({ pieces: pieces('[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Oslo"}}') });
    const forced = await run(
      t.adapter,
      askOf('team/mistral', {
        tools: [weather],
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
        messages: [
          { role: 'user', content: 'weather in Rome?' },
          {
            role: 'assistant',
            content: '',
            tool_calls: [{ id: 'call_000000042', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Rome"}' } }],
          },
          { role: 'tool', tool_call_id: 'call_000000042', content: 'rain' },
        ],
      }),
    );
    const sent = t.engine().requests[0]!;
    expect(sent.messages[0]!.content).toMatch(/^\[AVAILABLE_TOOLS\]\[\{"type": "function", "function": \{"name": "get_weather"[\s\S]*\[\/AVAILABLE_TOOLS\]$/);
    expect(sent.messages.slice(1)).toEqual([
      { role: 'user', content: 'weather in Rome?' },
      { role: 'assistant', content: '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Rome"}, "id": "000000042"}]' },
      { role: 'user', content: '[TOOL_RESULTS]{"content": "rain", "call_id": "000000042"}[/TOOL_RESULTS]' },
    ]);
    expect(sent.response_format).toMatchObject({
      structural_tag: { format: { type: 'sequence', elements: [{ type: 'const_string', value: '[TOOL_CALLS][' }, { type: 'tags_with_separator' }] } },
    });
    expect(callsOf(forced)).toEqual([{ name: 'get_weather', arguments: { city: 'Oslo' } }]);
    expect(forced.at(-1)).toMatchObject({ finish_reason: 'tool_calls' });

    t.engine().script = () => ({ pieces: pieces('One moment. [TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]') });
    const streamed = await run(t.adapter, askOf('team/mistral', { tools: [weather], stream: true }));
    expect(contentOf(streamed)).toBe('One moment.');
    expect(callsOf(streamed)).toEqual([{ name: 'get_weather', arguments: { city: 'Paris' } }]);
    expect(streamed.at(-1)).toMatchObject({ finish_reason: 'tool_calls' });
  });

  it('Phi-4-mini: tools in <|tool|>, a call block read back', async () => {
    const t = configured();
    t.engine().script = () => ({ pieces: pieces('<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]<|/tool_call|>') });
    const events = await run(t.adapter, askOf('team/phi', { tools: [weather] }));
    expect(t.engine().requests[0]!.messages[0]!.content).toMatch(/^You are a helpful assistant with some tools\.<\|tool\|>\[\{"name": "get_weather"/);
    expect(callsOf(events)).toEqual([{ name: 'get_weather', arguments: { city: 'Oslo' } }]);
  });

  it('a model without a tool format refuses tools with 400 (never drops them), and answers with tool_choice none', async () => {
    const t = configured();
    const err = await rejection(scheduled(t.adapter).generate(askOf('team/gemma', { tools: [weather] }), new AbortController().signal));
    expect(err).toMatchObject({ code: 'unsupported_parameter', param: 'tools' });
    expect(err.message).toContain("'toolFormat'");
    expect(t.engine()?.requests ?? []).toHaveLength(0);
    await run(t.adapter, askOf('team/gemma', { tools: [weather], tool_choice: 'none' }));
    expect(t.engine().requests[0]!.response_format).toBeUndefined();
  });
});
