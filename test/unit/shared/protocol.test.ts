import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ApiError, type ErrorCode } from '#shared/protocol/errors';
import { ChunkWriter, CompletionCollector } from '#shared/protocol/completion';
import { SSE_DONE_EVENT, encodeSse, sseEvent } from '../../../worker/sw/sse';
import { packEvents, TextDelta, unpackEvents, type EngineEvent } from '#shared/wire/engine-port';
import type { TokenLogprob } from '#shared/protocol/types';

const usage = {
  prompt_tokens: 5,
  completion_tokens: 3,
  total_tokens: 8,
  prompt_tokens_details: { cached_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 1 },
};
const events: EngineEvent[] = [
  { type: 'delta', reasoning: 'hmm' },
  { type: 'delta', content: 'Hello' },
  { type: 'delta', content: ' world' },
  { type: 'finish', finish_reason: 'stop', usage },
];
const timings = {
  prompt_n: 5,
  prompt_ms: 100,
  prompt_per_token_ms: 20,
  prompt_per_second: 50,
  predicted_n: 3,
  predicted_ms: 60,
  predicted_per_token_ms: 20,
  predicted_per_second: 50,
};
const timed: EngineEvent[] = [...events.slice(0, -1), { type: 'finish', finish_reason: 'stop', usage, timings }];

describe('ApiError', () => {
  const table: [ErrorCode, number, string][] = [
    ['invalid_json', 400, 'invalid_request_error'],
    ['invalid_content_type', 400, 'invalid_request_error'],
    ['missing_required_parameter', 400, 'invalid_request_error'],
    ['invalid_type', 400, 'invalid_request_error'],
    ['invalid_value', 400, 'invalid_request_error'],
    ['unsupported_parameter', 400, 'invalid_request_error'],
    ['context_length_exceeded', 400, 'invalid_request_error'],
    ['missing_api_key', 401, 'invalid_request_error'],
    ['invalid_api_key', 401, 'invalid_request_error'],
    ['model_not_found', 404, 'invalid_request_error'],
    ['unknown_url', 404, 'invalid_request_error'],
    ['method_not_allowed', 405, 'invalid_request_error'],
    ['request_too_large', 413, 'invalid_request_error'],
    ['queue_full', 429, 'rate_limit_exceeded'],
    ['internal_error', 500, 'server_error'],
    ['engine_unavailable', 503, 'server_error'],
    ['webgpu_unavailable', 503, 'server_error'],
    ['model_load_failed', 503, 'server_error'],
  ];

  it.each(table)('%s is %i %s in the OpenAI shape', (code, status, type) => {
    const err = new ApiError(code, 'Something specific.', { param: code === 'invalid_value' ? 'temperature' : null });
    expect(err.status).toBe(status);
    expect(err.toBody()).toEqual({ error: { message: 'Something specific.', type, param: err.param, code } });
  });

  it('crosses a MessagePort as data and comes back equal', () => {
    const err = new ApiError('queue_full', 'Full.', { retryAfter: 3 });
    const back = ApiError.fromData(structuredClone(err.toData()));
    expect(back.toBody()).toEqual(err.toBody());
    expect(back.retryAfter).toBe(3);
  });

  it('sends the codes OpenAI leaves null as null, and keeps their status across a MessagePort', () => {
    const err = new ApiError('item_not_found', 'Item gone.', { param: 'input' });
    expect(err.toBody()).toEqual({ error: { message: 'Item gone.', type: 'invalid_request_error', param: 'input', code: null } });
    const back = ApiError.fromData(structuredClone(err.toData()));
    expect(back.status).toBe(404);
    expect(back.toBody()).toEqual(err.toBody());
    expect(new ApiError('duplicate_item', 'Twice.').toBody().error).toMatchObject({ code: null, type: 'invalid_request_error' });
  });

  it('turns anything thrown into an internal_error that says what failed', () => {
    expect(ApiError.from(new TypeError('x is undefined')).toBody().error).toEqual({
      message: 'x is undefined',
      type: 'server_error',
      param: null,
      code: 'internal_error',
    });
    expect(ApiError.from('boom', 'model_load_failed').status).toBe(503);
  });
});

describe('SSE framing', () => {
  it('writes one data line and a blank line per event', () => {
    const text = sseEvent({ a: 'line one\nline two' });
    expect(text).toBe('data: {"a":"line one\\nline two"}\n\n');
    expect(text.split('\n').filter(Boolean)).toHaveLength(1);
    expect(SSE_DONE_EVENT).toBe('data: [DONE]\n\n');
    expect(new TextDecoder().decode(encodeSse('data: é\n\n'))).toBe('data: é\n\n');
  });
});

describe('ChunkWriter', () => {
  it('streams role first, then fragments, then an empty delta with finish_reason', () => {
    const writer = new ChunkWriter('svc-model-5.2', 'fp_x', false);
    const chunks = [writer.first(), ...events.flatMap((e) => writer.next(e))];
    expect(chunks.map((c) => c.choices[0]?.delta)).toEqual([
      { role: 'assistant', content: '' },
      { reasoning_content: 'hmm', reasoning: 'hmm' },
      { content: 'Hello' },
      { content: ' world' },
      {},
    ]);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[0]!.id).toMatch(/^chatcmpl-/);
    for (const c of chunks) {
      expect(c).toMatchObject({ object: 'chat.completion.chunk', model: 'svc-model-5.2', system_fingerprint: 'fp_x' });
      expect(c.created).toBe(chunks[0]!.created);
      expect(c.created).toBeLessThan(1e11); // seconds, not milliseconds
      expect(c).not.toHaveProperty('usage');
    }
  });

  it('with include_usage: usage null on every chunk, then one usage chunk with no choices', () => {
    const writer = new ChunkWriter('svc-model-5.2', 'fp_x', true);
    const chunks = [writer.first(), ...events.flatMap((e) => writer.next(e))];
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual(usage);
    for (const c of chunks.slice(0, -1)) expect(c.usage).toBeNull();
  });

  it("puts the engine's timings on the finish chunk only (where llama.cpp's server puts them), with or without include_usage", () => {
    for (const includeUsage of [false, true]) {
      const writer = new ChunkWriter('m', 'fp', includeUsage);
      const chunks = timed.flatMap((e) => writer.next(e));
      const finish = chunks.filter((c) => c.choices[0]?.finish_reason);
      expect(finish).toHaveLength(1);
      expect(finish[0]!.timings).toEqual(timings);
      expect(chunks.filter((c) => 'timings' in c)).toHaveLength(1);
      // Parsed from the stream's text as a client reads it.
      const sse = timed.map((e) => writer.nextSse(e)).join('');
      const parsed = sse
        .split('\n\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line.slice(6)) as { timings?: unknown });
      expect(parsed.filter((c) => c.timings).map((c) => c.timings)).toEqual([timings]);
    }
    // An engine that measures nothing sends no timings.
    const writer = new ChunkWriter('m', 'fp', true);
    expect(events.flatMap((e) => writer.next(e)).some((c) => 'timings' in c)).toBe(false);
  });

  it('drops empty deltas', () => {
    const writer = new ChunkWriter('m', 'fp', false);
    expect(writer.next({ type: 'delta', content: '' })).toEqual([]);
  });

  it('writes the same SSE text through nextSse as sseEvent of each chunk of next, for any event', () => {
    const text = fc.string({ unit: 'binary' });
    const delta = fc
      .record(
        { content: text, reasoning: text, logprobs: fc.constant<TokenLogprob[]>([{ token: 'a', logprob: -0.5, bytes: [97], top_logprobs: [] }]) },
        { requiredKeys: [] },
      )
      .map((d) => ({ type: 'delta' as const, ...d }));
    const event: fc.Arbitrary<EngineEvent> = fc.oneof(
      delta,
      fc.record({ type: fc.constant('tool_call' as const), index: fc.nat(3), id: fc.constant('call_1'), name: text }),
      fc.record({ type: fc.constant('tool_arguments' as const), index: fc.nat(3), arguments: text }),
      fc.constantFrom<EngineEvent>(...[...events, ...timed].filter((e) => e.type === 'finish')),
    );
    fc.assert(
      fc.property(fc.constantFrom('svc-model-5.2', 'm"\\x'), fc.boolean(), fc.boolean(), fc.array(event), (model, usage, legacy, list) => {
        const writer = new ChunkWriter(model, 'fp_x', usage, legacy);
        for (const e of list)
          expect(writer.nextSse(e)).toBe(
            writer
              .next(e)
              .map((c) => sseEvent(c))
              .join(''),
          );
        // The same events as they arrive from the engine port (a text delta unparsed, as a TextDelta).
        const arrived = unpackEvents(packEvents(list));
        arrived.forEach((e, i) =>
          expect(writer.nextSse(e)).toBe(
            writer
              .next(list[i]!)
              .map((c) => sseEvent(c))
              .join(''),
          ),
        );
      }),
      { numRuns: 500 },
    );
    // The fast path was taken and wrote what a client parses back.
    const writer = new ChunkWriter('m', 'fp', true);
    const parsed = JSON.parse(writer.nextSse({ type: 'delta', content: 'é "q"\n' }).slice(6)) as { choices: { delta: unknown }[]; usage: unknown };
    expect(parsed.choices[0]!.delta).toEqual({ content: 'é "q"\n' });
    expect(parsed.usage).toBeNull();
    const arrived = unpackEvents(packEvents([{ type: 'delta', content: 'é "q"\n' }]))[0]!;
    expect(arrived).toBeInstanceOf(TextDelta);
    expect(writer.nextSse(arrived)).toBe(writer.nextSse({ type: 'delta', content: 'é "q"\n' }));
  });
});

describe('CompletionCollector', () => {
  it('gathers content and reasoning apart, with usage and finish_reason', () => {
    const collector = new CompletionCollector();
    for (const e of events) collector.add(e);
    const completion = collector.build('svc-model-5.2', 'fp_x');
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'svc-model-5.2',
      system_fingerprint: 'fp_x',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello world', refusal: null, reasoning_content: 'hmm', reasoning: 'hmm' },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage,
    });
    expect(completion.id).toMatch(/^chatcmpl-[0-9a-f]{32}$/);
    expect(completion.created).toBe(Math.floor(completion.created));
  });

  it("carries the engine's timings when it sent them, and none otherwise", () => {
    const collector = new CompletionCollector();
    for (const e of timed) collector.add(e);
    expect(collector.build('m', 'fp').timings).toEqual(timings);
    const plain = new CompletionCollector();
    for (const e of events) plain.add(e);
    expect(plain.build('m', 'fp')).not.toHaveProperty('timings');
  });

  it('leaves reasoning fields out when nothing was thought', () => {
    const collector = new CompletionCollector();
    collector.add({ type: 'delta', content: 'x' });
    collector.add({ type: 'finish', finish_reason: 'length', usage });
    const message = collector.build('m', 'fp').choices[0]!.message;
    expect(message).not.toHaveProperty('reasoning_content');
    expect(message).not.toHaveProperty('reasoning');
  });

  it('refuses to build without a finish event', () => {
    const collector = new CompletionCollector();
    collector.add({ type: 'delta', content: 'x' });
    expect(() => collector.build('m', 'fp')).toThrow(/finish/);
  });
});
