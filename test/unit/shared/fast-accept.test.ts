import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { acceptPlainChat, CHAT_FIELDS } from '#shared/protocol/fast-accept';
import { bodyFields, chatRequestSchema, validateChatRequest } from '#shared/protocol/validate';

// What a client sends, good and bad: the values each field of a plain chat may meet.
const anyValue = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.boolean(),
  fc.integer({ min: -300, max: 300 }),
  fc.double({ min: -3, max: 3, noNaN: true }),
  fc.constantFrom(0, 1, 2, 4, 5, 6, 128, 129, -2, 2.5, 1e20, Number.MAX_SAFE_INTEGER + 2, null),
  fc.constantFrom('none', 'minimal', 'low', 'medium', 'high', 'max', 'auto'),
  fc.array(fc.oneof(fc.string({ maxLength: 3 }), fc.integer()), { maxLength: 6 }),
  fc.constantFrom({}, { include_usage: true }, { include_usage: 'yes' }, { include_usage: false, extra: 1 }, { include_usage: null }),
);
const badMessage = fc.record(
  {
    role: fc.constantFrom('system', 'developer', 'user', 'assistant', 'tool', 'function', 'robot', 3),
    content: fc.oneof(fc.string({ maxLength: 8 }), fc.constant(null), fc.integer(), fc.constant([{ type: 'text', text: 'hi' }])),
    name: fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.constant(null)),
    tool_call_id: fc.string({ maxLength: 4 }),
    extra: anyValue,
  },
  { requiredKeys: [] },
);
const goodMessage = fc.record(
  { role: fc.constantFrom('system', 'developer', 'user', 'assistant'), content: fc.string({ maxLength: 8 }), name: fc.string({ maxLength: 4 }) },
  { requiredKeys: ['role', 'content'] },
);
const message = fc.oneof({ weight: 6, arbitrary: goodMessage }, { weight: 1, arbitrary: badMessage });
const num = (min: number, max: number) => fc.double({ min, max, noNaN: true });
const int = (min: number, max: number) => fc.integer({ min, max });
// Values the schema takes, field by field (a generated field gets one of these most of the time).
const good: Record<string, fc.Arbitrary<unknown>> = {
  stream: fc.boolean(),
  stream_options: fc.constantFrom({}, { include_usage: true }, { include_usage: false }),
  temperature: num(0, 2),
  top_p: num(0, 1),
  max_tokens: int(1, 5000),
  max_completion_tokens: int(1, 5000),
  stop: fc.oneof(fc.string({ maxLength: 3 }), fc.array(fc.string({ maxLength: 3 }), { maxLength: 4 })),
  seed: fc.integer(),
  presence_penalty: num(-2, 2),
  frequency_penalty: num(-2, 2),
  n: int(1, 128),
  logprobs: fc.boolean(),
  top_logprobs: int(0, 5),
  reasoning_effort: fc.constantFrom('none', 'minimal', 'low', 'medium', 'high'),
  parallel_tool_calls: fc.boolean(),
  user: fc.string({ maxLength: 4 }),
  store: fc.boolean(),
  service_tier: fc.string({ maxLength: 4 }),
  verbosity: fc.constantFrom('low', 'medium', 'high'),
  safety_identifier: fc.string({ maxLength: 4 }),
  prompt_cache_key: fc.string({ maxLength: 4 }),
  tools: fc.constant([]),
  metadata: fc.constant({ a: 'b' }),
};
const field = fc
  .constantFrom(...CHAT_FIELDS.map(([k]) => k).filter((k) => k !== 'model' && k !== 'messages'))
  .chain((k) => fc.tuple(fc.constant(k), fc.oneof({ weight: 5, arbitrary: good[k] ?? anyValue }, { weight: 1, arbitrary: anyValue })));
// A body: the two required fields (mostly right), some other fields of the schema (mostly right; the ones the
// plain path leaves to the schemas too), and fields no schema knows.
const body = fc
  .record(
    {
      model: fc.oneof({ weight: 8, arbitrary: fc.constant('svc-model-5.2-fast') }, { weight: 1, arbitrary: anyValue }),
      messages: fc.oneof(
        { weight: 8, arbitrary: fc.array(message, { minLength: 1, maxLength: 4 }) },
        { weight: 1, arbitrary: fc.constant([]) },
        { weight: 1, arbitrary: anyValue },
      ),
      fields: fc.array(field, { maxLength: 5 }).map((pairs) => Object.fromEntries(pairs)),
      unknown: fc.dictionary(fc.constantFrom('frobnicate', 'raw', 'extra_body', 'x'), anyValue, { maxKeys: 2 }),
    },
    { requiredKeys: ['fields', 'unknown'] },
  )
  .map(({ fields, unknown, ...required }) => ({ ...unknown, ...required, ...fields }));

describe('the plain-chat path (fast-accept.ts) against the chat request schema', () => {
  it('knows every field of the schema, in the schema’s order', () => {
    expect(CHAT_FIELDS.map(([k]) => k)).toEqual(Object.keys(chatRequestSchema().shape));
  });

  it('accepts only what the schema accepts, and returns exactly what the schema returns', () => {
    let accepted = 0;
    fc.assert(
      fc.property(body, (raw) => {
        const cleaned = bodyFields(raw, ['model', 'messages']);
        const fast = acceptPlainChat(cleaned);
        if (fast === undefined) return;
        accepted++;
        const parsed = chatRequestSchema().safeParse(cleaned);
        expect(parsed.success).toBe(true);
        // Key order included: what goes on (to the engine, into stored responses) is serialized.
        expect(JSON.stringify(fast)).toBe(JSON.stringify(parsed.data));
      }),
      { numRuns: 5000 },
    );
    // The property above holds trivially for a path that accepts nothing: it must accept a fair share.
    expect(accepted).toBeGreaterThan(100);
  });

  it('takes the bodies the SDKs send for a plain chat', () => {
    const history = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi', name: 'ann' },
      { role: 'assistant', content: 'Hello.' },
      { role: 'developer', content: 'Answer in French.' },
      { role: 'user', content: 'count 3' },
    ];
    const bodies = [
      { model: 'svc-model-5.2-fast', messages: history },
      { model: 'svc-model-5.2', messages: history, stream: true, stream_options: { include_usage: true }, temperature: 0.7, top_p: 1, max_tokens: 64 },
      {
        model: 'svc-model-5.2',
        messages: history,
        stream: false,
        n: 1,
        stop: ['\n\n', 'END'],
        seed: 3,
        presence_penalty: 0,
        frequency_penalty: 0.5,
        user: 'u1',
      },
      {
        model: 'svc-model-5.2',
        messages: history,
        max_completion_tokens: 9,
        reasoning_effort: 'low',
        parallel_tool_calls: true,
        store: false,
        logprobs: true,
        top_logprobs: 2,
      },
      { model: 'svc-model-5.2', messages: history, tools: null, response_format: null, unknown_extension: { a: 1 } },
    ];
    for (const b of bodies) {
      const cleaned = bodyFields(b, ['model', 'messages']);
      expect(acceptPlainChat(cleaned), JSON.stringify(b)).toEqual(chatRequestSchema().parse(cleaned));
    }
  });

  it('leaves tools, images, response formats and every wrong value to the schema', () => {
    const ok = { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'hi' }] };
    const others = [
      { ...ok, tools: [] },
      { ...ok, response_format: { type: 'json_object' } },
      { ...ok, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] },
      { ...ok, messages: [{ role: 'assistant', content: null, tool_calls: [] }] },
      { ...ok, messages: [{ role: 'tool', content: 'x', tool_call_id: 'c' }] },
      { ...ok, messages: [{ role: 'user', content: 'hi', extra: 1 }] },
      { ...ok, temperature: 2.01 },
      { ...ok, n: 0 },
      { ...ok, stop: ['a', 'b', 'c', 'd', 'e'] },
      { ...ok, seed: 1.5 },
      { ...ok, stream_options: { include_usage: true, extra: 1 } },
      { ...ok, metadata: {} },
      { model: ok.model },
    ];
    for (const b of others) expect(acceptPlainChat(b), JSON.stringify(b)).toBeUndefined();
  });
});

describe('a plain chat', () => {
  it('is validated without building the chat schemas; a request with tools builds them', async () => {
    vi.resetModules(); // a fresh instance of the modules: as a service worker just started
    const fresh = await import('#shared/protocol/validate');
    expect(fresh.chatSchemasBuilt()).toBe(false);
    const req = fresh.validateChatRequest({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'count 3' }], stream: true });
    expect(req.variant.id).toBe('svc-model-5.2-fast');
    expect(req.messages).toEqual([{ role: 'user', content: 'count 3' }]);
    expect(fresh.chatSchemasBuilt()).toBe(false);
    // Errors come from the schemas, as before.
    expect(() => fresh.validateChatRequest({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 3 }] })).toThrow(
      "Invalid type for 'messages[0].content'",
    );
    expect(fresh.chatSchemasBuilt()).toBe(true);
  });

  it('reaches the same request through either path', () => {
    const plain = { model: 'svc-model-5.2', messages: [{ role: 'user', content: 'hi' }], stop: 'x', temperature: 0 };
    // An unknown tool_choice-free `tools: []` sends the same body through the schemas.
    expect(validateChatRequest({ ...plain, tools: [] })).toEqual(validateChatRequest(plain));
  });
});
