// Issue 10's protocol layer: the request schema for tools (and the legacy `functions`), the answer builders'
// tool-call shapes checked against OpenAI's schemas, and the deterministic engine's fixed rules.
import { describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import schemas from '../../fixtures/openai-schemas.json' with { type: 'json' };
import { ApiError } from '#shared/protocol/errors';
import { ChunkWriter, CompletionCollector, toolCallId } from '#shared/protocol/completion';
import { validateChatRequest } from '#shared/protocol/validate';
import type { EngineEvent } from '#shared/wire/engine-port';
import type { ChatCompletionChunk } from '#shared/protocol/types';
import { DEFAULT_CONFIG } from '#shared/config';
import { DeterministicEngine, argumentFragments } from '../../engine/deterministic-engine';
import { smallestInstance } from '../../engine/smallest-instance';
import { withPlan } from '../../../worker/engine/common/plan';
import { scheduled } from '../fakes/requests';

const ajv = new Ajv({ strict: false });
ajv.addSchema(schemas);
const schemaOk = (name: string, value: unknown) => {
  const validate = ajv.getSchema(`openai#/definitions/${name}`)!;
  expect(validate(value), ajv.errorsText(validate.errors)).toBe(true);
};

const user = (content: string) => ({ role: 'user', content });
const weather = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] },
  },
};
const base = { model: 'svc-model-5.2-fast', messages: [user('hi')] };

function rejection(body: unknown): ApiError {
  try {
    validateChatRequest(body);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error(`accepted: ${JSON.stringify(body)}`);
}

describe('request schema: tools, tool messages, legacy functions', () => {
  it('accepts tools, tool_choice, parallel_tool_calls and a whole tool round trip', () => {
    const req = validateChatRequest({
      ...base,
      tools: [weather],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      parallel_tool_calls: false,
      messages: [
        user('weather?'),
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: 'sunny' }] },
      ],
    });
    expect(req.tools).toEqual([weather]);
    expect(req.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
    expect(req.parallel_tool_calls).toBe(false);
    expect(req.messages[1]).toEqual({
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
    });
    expect(req.messages[2]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: 'sunny' }] });
    expect(req.legacy_functions).toBeUndefined();
  });

  it('translates the legacy functions / function_call / function role onto tools, and marks the answer shape', () => {
    const req = validateChatRequest({
      ...base,
      functions: [weather.function],
      function_call: { name: 'get_weather' },
      messages: [
        user('weather?'),
        { role: 'assistant', content: null, function_call: { name: 'get_weather', arguments: '{}' } },
        { role: 'function', name: 'get_weather', content: 'sunny' },
      ],
    });
    expect(req.tools).toEqual([weather]);
    expect(req.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
    expect(req.parallel_tool_calls).toBe(false);
    expect(req.legacy_functions).toBe(true);
    const assistant = req.messages[1]!;
    if (assistant.role !== 'assistant') throw new Error('not an assistant turn');
    const callId = assistant.tool_calls![0]!.id;
    expect(assistant.tool_calls).toEqual([{ id: callId, type: 'function', function: { name: 'get_weather', arguments: '{}' } }]);
    expect(req.messages[2]).toEqual({ role: 'tool', tool_call_id: callId, content: 'sunny' });
    expect(validateChatRequest({ ...base, functions: [weather.function], function_call: 'none' }).tool_choice).toBe('none');
  });

  it('never takes the legacy marker from the body, and treats tools: [] as none', () => {
    const req = validateChatRequest({ ...base, legacy_functions: true, tools: [], tool_choice: 'auto' });
    expect(req.legacy_functions).toBeUndefined();
    expect(req.tools).toBeUndefined();
  });

  it('accepts messages[i].name, logit_bias, and the accepted-and-ignored fields', () => {
    const req = validateChatRequest({
      ...base,
      messages: [{ role: 'user', content: 'hi', name: 'ann' }],
      logit_bias: { '50256': -100, '7': 3.5 },
      store: false,
      metadata: { run: '1' },
      service_tier: 'auto',
      prediction: { type: 'content', content: 'x' },
      verbosity: 'low',
      safety_identifier: 'h',
      prompt_cache_key: 'k',
      user: 'u',
      modalities: ['text'],
    });
    expect(req.messages[0]).toMatchObject({ name: 'ann' });
    expect(req.logit_bias).toEqual({ '50256': -100, '7': 3.5 });
  });

  const cases: [string, unknown, { code: string; param: string }][] = [
    ['tool of another type', { ...base, tools: [{ type: 'custom', custom: {} }] }, { code: 'invalid_value', param: 'tools[0].type' }],
    ['tool without a name', { ...base, tools: [{ type: 'function', function: {} }] }, { code: 'missing_required_parameter', param: 'tools[0].function.name' }],
    [
      'tool name with a space',
      { ...base, tools: [{ type: 'function', function: { name: 'get weather' } }] },
      { code: 'invalid_value', param: 'tools[0].function.name' },
    ],
    ['the same name twice', { ...base, tools: [weather, weather] }, { code: 'invalid_value', param: 'tools[1].function.name' }],
    [
      'parameters not an object',
      { ...base, tools: [{ type: 'function', function: { name: 'f', parameters: 'x' } }] },
      { code: 'invalid_type', param: 'tools[0].function.parameters' },
    ],
    ['tool_choice unknown', { ...base, tools: [weather], tool_choice: 'sometimes' }, { code: 'invalid_value', param: 'tool_choice' }],
    [
      'tool_choice names no tool',
      { ...base, tools: [weather], tool_choice: { type: 'function', function: { name: 'nope' } } },
      { code: 'invalid_value', param: 'tool_choice' },
    ],
    ['tool_choice required without tools', { ...base, tool_choice: 'required' }, { code: 'invalid_value', param: 'tool_choice' }],
    ['parallel_tool_calls not boolean', { ...base, tools: [weather], parallel_tool_calls: 'yes' }, { code: 'invalid_type', param: 'parallel_tool_calls' }],
    [
      'tool message without tool_call_id',
      { ...base, messages: [user('a'), { role: 'tool', content: 'x' }] },
      { code: 'missing_required_parameter', param: 'messages[1].tool_call_id' },
    ],
    [
      'tool message answering nothing',
      { ...base, messages: [user('a'), { role: 'tool', tool_call_id: 'call_9', content: 'x' }] },
      { code: 'invalid_value', param: 'messages[1].role' },
    ],
    [
      'tool message with an image',
      { ...base, messages: [user('a'), { role: 'tool', tool_call_id: 'c', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }] },
      { code: 'invalid_value', param: 'messages[1].content[0].type' },
    ],
    [
      'assistant tool call without id',
      { ...base, messages: [user('a'), { role: 'assistant', tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{}' } }] }] },
      { code: 'missing_required_parameter', param: 'messages[1].tool_calls[0].id' },
    ],
    [
      'arguments as an object',
      { ...base, messages: [user('a'), { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: {} } }] }] },
      { code: 'invalid_type', param: 'messages[1].tool_calls[0].function.arguments' },
    ],
    ['functions and tools together', { ...base, tools: [weather], functions: [weather.function] }, { code: 'invalid_value', param: 'functions' }],
    ['function_call without functions', { ...base, function_call: 'auto' }, { code: 'invalid_value', param: 'function_call' }],
    [
      'function message without a call',
      { ...base, messages: [user('a'), { role: 'function', name: 'f', content: 'x' }] },
      { code: 'invalid_value', param: 'messages[1].role' },
    ],
    ['logit_bias over 100', { ...base, logit_bias: { '1': 101 } }, { code: 'invalid_value', param: 'logit_bias.1' }],
    ['logit_bias key not a token id', { ...base, logit_bias: { hello: 1 } }, { code: 'invalid_value', param: 'logit_bias.hello' }],
    ['audio output', { ...base, modalities: ['text', 'audio'] }, { code: 'unsupported_parameter', param: 'modalities' }],
    ['audio options', { ...base, audio: { voice: 'alloy', format: 'wav' } }, { code: 'unsupported_parameter', param: 'audio' }],
    ['web search', { ...base, web_search_options: {} }, { code: 'unsupported_parameter', param: 'web_search_options' }],
    ['metadata of numbers', { ...base, metadata: { a: 1 } }, { code: 'invalid_type', param: 'metadata.a' }],
  ];
  it.each(cases)('%s', (_name, body, expected) => {
    const err = rejection(body);
    expect({ code: err.code, param: err.param, status: err.status }).toEqual({ ...expected, status: 400 });
    expect(err.message.length).toBeGreaterThan(10);
  });
});

const usage = {
  prompt_tokens: 5,
  completion_tokens: 4,
  total_tokens: 9,
  prompt_tokens_details: { cached_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0 },
};
const callEvents: EngineEvent[] = [
  { type: 'tool_call', index: 0, id: 'call_a', name: 'get_weather' },
  { type: 'tool_arguments', index: 0, arguments: '{"city"' },
  { type: 'tool_arguments', index: 0, arguments: ':"a"}' },
  { type: 'tool_call', index: 1, id: 'call_b', name: 'get_time' },
  { type: 'tool_arguments', index: 1, arguments: '{}' },
  { type: 'finish', finish_reason: 'tool_calls', usage },
];

describe('answer builders: tool calls', () => {
  it('makes OpenAI-style call ids', () => {
    expect(toolCallId()).toMatch(/^call_[A-Za-z0-9]{24}$/);
    expect(toolCallId()).not.toBe(toolCallId());
  });

  it('JSON: message.tool_calls, content null, finish_reason tool_calls', () => {
    const collector = new CompletionCollector();
    for (const e of callEvents) collector.add(e);
    const completion = collector.build('svc-model-5.2', 'fp');
    schemaOk('CreateChatCompletionResponse', completion);
    expect(completion.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"a"}' } },
          { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{}' } },
        ],
      },
    });
  });

  it('JSON: text around calls stays content', () => {
    const collector = new CompletionCollector();
    collector.add({ type: 'delta', content: 'Let me look.' });
    for (const e of callEvents) collector.add(e);
    expect(collector.build('m', 'fp').choices[0]!.message.content).toBe('Let me look.');
  });

  it('stream: first delta of a call has index, id, type, name and arguments "", later ones index and fragments', () => {
    const writer = new ChunkWriter('m', 'fp', false);
    const chunks: ChatCompletionChunk[] = [writer.first(), ...callEvents.flatMap((e) => writer.next(e))];
    for (const chunk of chunks) schemaOk('CreateChatCompletionStreamResponse', chunk);
    expect(chunks.map((c) => c.choices[0]!.delta)).toEqual([
      { role: 'assistant', content: '' },
      { tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"city"' } }] },
      { tool_calls: [{ index: 0, function: { arguments: ':"a"}' } }] },
      { tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '' } }] },
      { tool_calls: [{ index: 1, function: { arguments: '{}' } }] },
      {},
    ]);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('legacy functions: message.function_call and finish_reason function_call, streamed as delta.function_call', () => {
    const one = callEvents.filter((e) => !('index' in e) || e.index === 0);
    const collector = new CompletionCollector(true);
    for (const e of one) collector.add(e);
    const completion = collector.build('m', 'fp');
    schemaOk('CreateChatCompletionResponse', completion);
    expect(completion.choices[0]).toMatchObject({
      finish_reason: 'function_call',
      message: { content: null, function_call: { name: 'get_weather', arguments: '{"city":"a"}' } },
    });
    expect(completion.choices[0]!.message).not.toHaveProperty('tool_calls');
    const writer = new ChunkWriter('m', 'fp', false, true);
    const chunks = one.flatMap((e) => writer.next(e));
    for (const chunk of chunks) schemaOk('CreateChatCompletionStreamResponse', chunk);
    expect(chunks.map((c) => [c.choices[0]!.delta, c.choices[0]!.finish_reason])).toEqual([
      [{ function_call: { name: 'get_weather', arguments: '' } }, null],
      [{ function_call: { arguments: '{"city"' } }, null],
      [{ function_call: { arguments: ':"a"}' } }, null],
      [{}, 'function_call'],
    ]);
  });
});

describe('smallest instance of a JSON schema (the test engine rules)', () => {
  const cases: [string, unknown, unknown][] = [
    ['required properties only', { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['a'] }, { a: 'a' }],
    ['string enum: the first value', { type: 'string', enum: ['c', 'd'] }, 'c'],
    ['minLength', { type: 'string', minLength: 3 }, 'aaa'],
    ['number minimum', { type: 'number', minimum: 2.5 }, 2.5],
    ['integer exclusiveMinimum', { type: 'integer', exclusiveMinimum: 4 }, 5],
    ['number without bounds', { type: 'number' }, 0],
    ['boolean', { type: 'boolean' }, false],
    ['array of minItems', { type: 'array', items: { type: 'integer' }, minItems: 2 }, [0, 0]],
    ['array without items', { type: 'array', minItems: 2 }, []],
    ['const', { const: 'fixed' }, 'fixed'],
    ['anyOf: the first branch', { anyOf: [{ type: 'boolean' }, { type: 'string' }] }, false],
    ['oneOf: the first branch', { oneOf: [{ type: 'string' }, { type: 'null' }] }, 'a'],
    ['type array: the first non-null type', { type: ['null', 'integer'] }, 0],
    [
      '$ref into $defs, zod-style',
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { p: { $ref: '#/$defs/P' } },
        required: ['p'],
        additionalProperties: false,
        $defs: { P: { type: 'object', properties: { n: { type: 'string', minLength: 2 } }, required: ['n'] } },
      },
      { p: { n: 'aa' } },
    ],
    ['$ref into definitions', { properties: { x: { $ref: '#/definitions/X' } }, required: ['x'], definitions: { X: { enum: [3, 4] } } }, { x: 3 }],
  ];
  it.each(cases)('%s', (_name, schema, expected) => {
    expect(smallestInstance(schema)).toEqual(expected);
  });
});

describe('deterministic engine: tools, formats, logprobs', () => {
  const engine = () => new DeterministicEngine({ ...DEFAULT_CONFIG });
  async function run(body: Record<string, unknown>) {
    const request = withPlan(validateChatRequest({ model: 'svc-model-5.2-fast', ...body }));
    // As the scheduler runs it: supports() once, then generate.
    const generation = await scheduled(engine()).generate(request, new AbortController().signal);
    const events: EngineEvent[] = [];
    for await (const e of generation.events) events.push(e);
    const collector = new CompletionCollector(request.legacy_functions === true);
    for (const e of events) collector.add(e);
    return { events, completion: collector.build(request.model, generation.fingerprint) };
  }
  const time = { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } };
  const calls = (c: Awaited<ReturnType<typeof run>>) => c.completion.choices[0]!.message.tool_calls?.map((t) => [t.function.name, t.function.arguments]);

  it('auto: calls every tool named as a whole word, in the order of tools, arguments in >= 2 fragments', async () => {
    const result = await run({ messages: [user('get_time then get_weather please')], tools: [weather, time] });
    expect(calls(result)).toEqual([
      ['get_weather', '{"city":"a"}'],
      ['get_time', '{}'],
    ]);
    expect(result.completion.choices[0]!.finish_reason).toBe('tool_calls');
    expect(result.completion.choices[0]!.message.content).toBeNull();
    for (const index of [0, 1]) {
      expect(result.events.filter((e) => e.type === 'tool_arguments' && e.index === index).length).toBeGreaterThanOrEqual(2);
    }
    expect(result.completion.usage.completion_tokens).toBe(result.events.filter((e) => e.type !== 'finish').length);
  });

  it('auto: no whole-word match answers as before; case and word boundaries count', async () => {
    for (const text of ['what is Get_time', 'my_get_time', 'get_times']) {
      const result = await run({ messages: [user(text)], tools: [time] });
      expect(result.completion.choices[0]!.message).toMatchObject({ content: `Echo: ${text}` });
      expect(result.completion.choices[0]!.finish_reason).toBe('stop');
    }
  });

  it('parallel_tool_calls false: only the first; required: the first tool; named: that one; none: never', async () => {
    const both = [user('get_weather and get_time')];
    expect(calls(await run({ messages: both, tools: [weather, time], parallel_tool_calls: false }))).toEqual([['get_weather', '{"city":"a"}']]);
    expect(calls(await run({ messages: [user('hello')], tools: [time, weather], tool_choice: 'required' }))).toEqual([['get_time', '{}']]);
    expect(
      calls(await run({ messages: [user('hello')], tools: [time, weather], tool_choice: { type: 'function', function: { name: 'get_weather' } } })),
    ).toEqual([['get_weather', '{"city":"a"}']]);
    const none = await run({ messages: both, tools: [weather, time], tool_choice: 'none' });
    expect(none.completion.choices[0]!.message).toMatchObject({ content: 'Echo: get_weather and get_time' });
  });

  it('a last tool message is answered "Tool said: …" under auto, while required still calls', async () => {
    const messages = [
      user('get_time'),
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_time', arguments: '{}' } }] },
      {
        role: 'tool',
        tool_call_id: 'call_1',
        content: [
          { type: 'text', text: 'noon' },
          { type: 'text', text: 'UTC' },
        ],
      },
    ];
    const auto = await run({ messages, tools: [time] });
    expect(auto.completion.choices[0]).toMatchObject({ message: { content: 'Tool said: noon\nUTC' }, finish_reason: 'stop' });
    expect(calls(await run({ messages, tools: [time], tool_choice: 'required' }))).toEqual([['get_time', '{}']]);
  });

  it('legacy functions get the legacy answer', async () => {
    const result = await run({ messages: [user('get_weather')], functions: [weather.function] });
    expect(result.completion.choices[0]).toMatchObject({
      finish_reason: 'function_call',
      message: { content: null, function_call: { name: 'get_weather', arguments: '{"city":"a"}' } },
    });
  });

  it('json_schema answers the smallest instance, json_object {}', async () => {
    const schema = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 1 } }, required: ['name', 'age'] };
    const structured = await run({ messages: [user('x')], response_format: { type: 'json_schema', json_schema: { name: 'p', schema, strict: true } } });
    expect(JSON.parse(structured.completion.choices[0]!.message.content!)).toEqual({ name: 'a', age: 1 });
    const object = await run({ messages: [user('x')], response_format: { type: 'json_object' } });
    expect(object.completion.choices[0]!.message.content).toBe('{}');
  });

  it('logprobs: -0.5 per content token, alternatives alt1…altN at -1, -2, …; none asked: []', async () => {
    const two = await run({ messages: [user('count 2')], logprobs: true, top_logprobs: 2 });
    expect(two.completion.choices[0]!.logprobs!.content).toEqual([
      {
        token: '1',
        logprob: -0.5,
        bytes: [49],
        top_logprobs: [
          { token: 'alt1', logprob: -1, bytes: [97, 108, 116, 49] },
          { token: 'alt2', logprob: -2, bytes: [97, 108, 116, 50] },
        ],
      },
      {
        token: ' 2',
        logprob: -0.5,
        bytes: [32, 50],
        top_logprobs: [
          { token: 'alt1', logprob: -1, bytes: [97, 108, 116, 49] },
          { token: 'alt2', logprob: -2, bytes: [97, 108, 116, 50] },
        ],
      },
    ]);
    const bare = await run({ messages: [user('count 1')], logprobs: true });
    expect(bare.completion.choices[0]!.logprobs!.content).toEqual([{ token: '1', logprob: -0.5, bytes: [49], top_logprobs: [] }]);
    expect((await run({ messages: [user('count 1')] })).completion.choices[0]!.logprobs).toBeNull();
  });

  it('argument fragments: at least two, joined they are the JSON', () => {
    for (const json of ['{}', '{"a":1}', '{"city":"a","days":0}']) {
      const parts = argumentFragments(json);
      expect(parts.length).toBeGreaterThanOrEqual(2);
      expect(parts.join('')).toBe(json);
    }
  });

  it('svc-vision: tools are refused unless tool_choice is none', async () => {
    await expect(run({ model: 'svc-vision', messages: [user('get_time')], tools: [time] })).rejects.toMatchObject({
      code: 'unsupported_parameter',
      param: 'tools',
    });
    const none = await run({ model: 'svc-vision', messages: [user('get_time')], tools: [time], tool_choice: 'none' });
    expect(none.completion.choices[0]!.message.content).toBe('Echo: get_time');
  });
});

describe('Connect snippet', () => {
  it('the AI SDK snippet turns on structured outputs, so json_schema answers are held to the schema', async () => {
    const { snippets } = await import('../../../src/page/ui/areas/connect/snippets');
    const aiSdk = snippets('http://x/v1', null).find((s) => s.id === 'ai-sdk')!;
    expect(aiSdk.code).toContain('supportsStructuredOutputs: true');
  });
});
