// The upstream engine's reading of real servers' wire, replayed: captures written from each server's source
// (docs/hybrid.md "Dialects" names the files) — vLLM's `reasoning` (current) and `reasoning_content` (older), Ollama's
// /v1 streams (every delta carries the role, no role-only chunk, whole tool calls in one delta, usage only when asked
// and without details), llama-server's `reasoning_content` and `timings` — its error shapes, and what each dialect
// sends.
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '#shared/wire/engine-port';
import { ApiError } from '#shared/protocol/errors';
import { validateChatRequest } from '#shared/protocol/validate';
import { ChunkReader, httpError } from '../../../worker/engine/upstream/wire';
import { readSseData } from '#shared/protocol/sse-reader';
import { DEFAULT_BOUNDS } from '#shared/upstreams';
import { chatBody } from '../../../worker/engine/upstream/dialects';
import { withPlan } from '../../../worker/engine/common/plan';

const WHO = "'gpu' (llm.example.com)";

/** Feeds SSE text through the parser and the reader, as the engine does. */
async function replay(text: string, promptEstimate = 3): Promise<EngineEvent[]> {
  const bytes = new TextEncoder().encode(text);
  // Split at odd places, as the network does.
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < bytes.length; i += 7) c.enqueue(bytes.slice(i, i + 7));
      c.close();
    },
  });
  const reader = new ChunkReader(WHO, promptEstimate, { ...DEFAULT_BOUNDS, expectDone: true });
  const events: EngineEvent[] = [];
  for await (const payload of readSseData(body, { signal: new AbortController().signal, bounds: DEFAULT_BOUNDS, who: WHO }))
    events.push(...reader.chunk(payload));
  events.push(reader.finish());
  return events;
}
const sse = (...chunks: unknown[]) => chunks.map((c) => `data: ${typeof c === 'string' ? c : JSON.stringify(c)}\n\n`).join('');
const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  ...extra,
});
const text = (events: EngineEvent[], field: 'content' | 'reasoning') => events.map((e) => (e.type === 'delta' ? (e[field] ?? '') : '')).join('');
const finishOf = (events: EngineEvent[]) => events.at(-1) as Extract<EngineEvent, { type: 'finish' }>;

describe('replayed streams', () => {
  it('vLLM (current): a role chunk, `reasoning`, content, finish, then a usage chunk without a reasoning split', async () => {
    const events = await replay(
      sse(
        chunk({ role: 'assistant', content: '' }),
        chunk({ reasoning: 'Let me' }),
        chunk({ reasoning: ' think.' }),
        chunk({ content: 'Hi' }),
        chunk({ content: ' there' }),
        chunk({}, 'stop'),
        {
          id: 'chatcmpl-1',
          object: 'chat.completion.chunk',
          created: 1,
          model: 'm',
          choices: [],
          usage: { prompt_tokens: 10, total_tokens: 14, completion_tokens: 4, prompt_tokens_details: null },
        },
        '[DONE]',
      ),
    );
    expect(text(events, 'reasoning')).toBe('Let me think.');
    expect(text(events, 'content')).toBe('Hi there');
    expect(finishOf(events)).toEqual({
      type: 'finish',
      finish_reason: 'stop',
      usage: {
        prompt_tokens: 10,
        completion_tokens: 4,
        total_tokens: 14,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 2 },
      },
    });
  });

  it("vLLM (older) and llama-server: `reasoning_content`; llama-server's timings on the finish", async () => {
    const events = await replay(
      sse(
        chunk({ role: 'assistant', content: null }),
        chunk({ reasoning_content: 'Hmm.' }),
        chunk({ content: 'Yes' }),
        chunk({}, 'length', {
          timings: { prompt_n: 5, prompt_ms: 12.5, predicted_n: 2, predicted_ms: 20, predicted_per_second: 100, bogus: 1, prompt_per_token_ms: 'x' },
        }),
        { choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } },
        '[DONE]',
      ),
    );
    expect(text(events, 'reasoning')).toBe('Hmm.');
    expect(text(events, 'content')).toBe('Yes');
    const finish = finishOf(events);
    expect(finish.finish_reason).toBe('length');
    expect(finish.timings).toEqual({ prompt_n: 5, prompt_ms: 12.5, predicted_n: 2, predicted_ms: 20, predicted_per_second: 100 });
    expect(finish.usage.total_tokens).toBe(7);
  });

  it('Ollama without include_usage: no role-only chunk, role on every delta, whole tool calls in one delta, no usage (counted here)', async () => {
    const events = await replay(
      sse(
        chunk({ role: 'assistant', content: '', reasoning: 'Weather?' }),
        chunk({
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'call_a1', index: 0, type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_b2', index: 0, type: 'function', function: { name: 'time', arguments: '{}' } },
          ],
        }),
        chunk({ role: 'assistant', content: '' }, 'tool_calls'),
        '[DONE]',
      ),
      9,
    );
    const calls = events.filter((e) => e.type === 'tool_call');
    expect(calls).toEqual([
      { type: 'tool_call', index: 0, id: 'call_a1', name: 'weather' },
      { type: 'tool_call', index: 1, id: 'call_b2', name: 'time' },
    ]);
    expect(events.filter((e) => e.type === 'tool_arguments')).toEqual([
      { type: 'tool_arguments', index: 0, arguments: '{"city":"Paris"}' },
      { type: 'tool_arguments', index: 1, arguments: '{}' },
    ]);
    const finish = finishOf(events);
    expect(finish.finish_reason).toBe('tool_calls');
    // No usage from the server: the prompt's estimate and one token per piece, booked as for a local answer.
    expect(finish.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 1, total_tokens: 10, completion_tokens_details: { reasoning_tokens: 1 } });
  });

  it('tool calls streamed in pieces (vLLM, llama-server): name first, then argument fragments that concatenate', async () => {
    const events = await replay(
      sse(
        chunk({ role: 'assistant', content: '' }),
        chunk({ tool_calls: [{ index: 0, id: 'chatcmpl-tool-9f', type: 'function', function: { name: 'weather', arguments: '' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city": ' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }),
        chunk({}, 'tool_calls'),
        '[DONE]',
      ),
    );
    expect(events.filter((e) => e.type === 'tool_call')).toEqual([{ type: 'tool_call', index: 0, id: 'chatcmpl-tool-9f', name: 'weather' }]);
    expect(events.flatMap((e) => (e.type === 'tool_arguments' ? [e.arguments] : [])).join('')).toBe('{"city": "Oslo"}');
  });

  it("logprobs in OpenAI's shape pass on with their piece", async () => {
    const lp = { content: [{ token: 'Hi', logprob: -0.25, bytes: [72, 105], top_logprobs: [{ token: 'Hi', logprob: -0.25, bytes: [72, 105] }] }] };
    const events = await replay(sse({ choices: [{ index: 0, delta: { content: 'Hi' }, logprobs: lp, finish_reason: 'stop' }] }, '[DONE]'));
    expect(events[0]).toEqual({ type: 'delta', content: 'Hi', logprobs: lp.content });
  });

  it('what cannot be read is an upstream_error, never a crash: not JSON, not an object, choices not a list, an error event, nothing at all', async () => {
    for (const [body, words] of [
      [sse('this is not json'), 'not JSON'],
      [sse('[1,2]'), 'not an object'],
      [sse({ choices: 'x' }), 'not a list'],
      [sse({ error: { message: 'engine died' } }), 'engine died'],
      [sse('[DONE]'), 'ended before any answer'],
      ['', 'ended before any answer'],
      [sse({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{}' } }] } }] }), 'before the call named'],
    ] as const) {
      const err = await replay(body).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, body).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe('upstream_error');
      expect((err as ApiError).status).toBe(502);
      expect((err as ApiError).message).toContain(words);
      expect((err as ApiError).message).toContain(WHO);
    }
  });

  it('SSE as servers write it: CRLF line ends, comments, several data lines, no blank line before the end', async () => {
    const events = await replay(
      `: keep-alive\r\n\r\ndata: {"choices":[{"index":0,"delta":\r\ndata: {"content":"A"}}]}\r\n\r\ndata: {"choices":[{"index":0,"delta":{"content":"B"},"finish_reason":"stop"}]}\r\n\r\ndata: [DONE]`,
    );
    expect(text(events, 'content')).toBe('AB');
  });
});

describe('upstream HTTP errors', () => {
  const res = (status: number, body: string, headers: Record<string, string> = {}) => new Response(body, { status, headers });
  it("401/403 (vLLM's bare string, Ollama's refusal of an unknown origin) are 503 upstream_unavailable naming the upstream, not the client's key", async () => {
    for (const [status, body] of [
      [401, '{"error":"Unauthorized"}'],
      [403, ''],
    ] as const) {
      const err = await httpError(res(status, body), WHO, DEFAULT_BOUNDS);
      expect(err.toBody().error).toMatchObject({ code: 'upstream_unavailable', type: 'server_error' });
      expect(err.status).toBe(503);
      expect(err.message).toContain(WHO);
      expect(err.message).toContain(`HTTP ${status}`);
      expect(err.message).toContain('not of your API key');
    }
  });
  it("a 4xx about the request keeps its status and words, prefixed with where it came from; inpage's own codes pass", async () => {
    const vllm = await httpError(
      res(
        400,
        JSON.stringify({ object: 'error', message: "This model's maximum context length is 4096 tokens.", type: 'BadRequestError', param: null, code: 400 }),
      ),
      WHO,
      DEFAULT_BOUNDS,
    );
    expect(vllm).toMatchObject({ status: 400, code: 'upstream_rejected' });
    expect(vllm.message).toBe(`The upstream ${WHO} refused the request (HTTP 400): This model's maximum context length is 4096 tokens.`);
    const known = await httpError(
      res(400, JSON.stringify({ error: { message: 'too long', type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } })),
      WHO,
      DEFAULT_BOUNDS,
    );
    expect(known).toMatchObject({ status: 400, code: 'context_length_exceeded', param: 'messages' });
    const missing = await httpError(
      res(404, JSON.stringify({ error: { message: "model 'qwen3:99b' not found", type: 'not_found_error' } })),
      WHO,
      DEFAULT_BOUNDS,
    );
    expect(missing).toMatchObject({ status: 404, code: 'upstream_rejected' });
    expect(missing.message).toContain("model 'qwen3:99b' not found");
    const fastapi = await httpError(res(422, JSON.stringify({ detail: [{ loc: ['body', 'messages'], msg: 'field required' }] })), WHO, DEFAULT_BOUNDS);
    expect(fastapi.status).toBe(422);
    expect(fastapi.message).toContain('field required');
  });
  it("429 is queue_full with the upstream's retry-after; 5xx is 502 upstream_error", async () => {
    const busy = await httpError(res(429, '{"error":{"message":"slow down"}}', { 'retry-after': '7' }), WHO, DEFAULT_BOUNDS);
    expect(busy).toMatchObject({ status: 429, code: 'queue_full', retryAfter: 7 });
    const down = await httpError(res(500, 'CUDA out of memory'), WHO, DEFAULT_BOUNDS);
    expect(down).toMatchObject({ status: 502, code: 'upstream_error' });
    expect(down.message).toBe(`The upstream ${WHO} failed (HTTP 500): CUDA out of memory`);
  });
  it('crosses the engine port and back with its status', () => {
    const err = new ApiError('upstream_rejected', 'x', { status: 413 });
    expect(ApiError.fromData(err.toData())).toMatchObject({ status: 413, code: 'upstream_rejected', type: 'invalid_request_error' });
    expect(new ApiError('upstream_rejected', 'x', { status: 200 }).status).toBe(400);
  });
});

describe('what each dialect sends', () => {
  const ask = (body: Record<string, unknown>) => withPlan(validateChatRequest({ messages: [{ role: 'user', content: 'hi' }], ...body }));
  it('thinking off for a -fast variant: vLLM and llama-server through chat_template_kwargs, Ollama and OpenAI through reasoning_effort', () => {
    // -fast on a server running Qwen3-8B (the same model as svc-model-5.2): the switch goes with every request.
    const fast = ask({ model: 'svc-model-5.2-fast' });
    expect(chatBody(fast, 'vllm', 'Qwen/Qwen3-8B-FP8')).toMatchObject({ chat_template_kwargs: { enable_thinking: false } });
    expect(chatBody(fast, 'llama-server', 'qwen3')).toMatchObject({ chat_template_kwargs: { enable_thinking: false } });
    expect(chatBody(fast, 'ollama', 'qwen3:8b')).toMatchObject({ reasoning_effort: 'none' });
    // OpenAI refuses reasoning_effort on a model without reasoning: a -fast id there names a model that does not think.
    expect(chatBody(fast, 'openai', 'gpt-4.1-mini').reasoning_effort).toBeUndefined();
    expect(chatBody(ask({ model: 'svc-model-5.2' }), 'vllm', 'Qwen/Qwen3-8B-FP8').chat_template_kwargs).toBeUndefined();
    const none = ask({ model: 'svc-model-5.2', reasoning_effort: 'none' });
    expect(chatBody(none, 'vllm', 'Qwen/Qwen3-8B-FP8')).toMatchObject({ model: 'Qwen/Qwen3-8B-FP8', chat_template_kwargs: { enable_thinking: false } });
    expect(chatBody(none, 'llama-server', 'qwen3')).toMatchObject({ chat_template_kwargs: { enable_thinking: false } });
    expect(chatBody(none, 'ollama', 'qwen3:8b')).toMatchObject({ reasoning_effort: 'none' });
    expect(chatBody(none, 'ollama', 'qwen3:8b').chat_template_kwargs).toBeUndefined();
    expect(chatBody(none, 'openai', 'gpt')).toMatchObject({ reasoning_effort: 'none' });
  });
  it('always streams with usage asked for; max_completion_tokens goes as max_tokens; Ollama takes "minimal" as "low"', () => {
    const body = chatBody(
      ask({ model: 'svc-model-5.2', max_completion_tokens: 50, reasoning_effort: 'minimal', temperature: 0.2, stop: ['END'] }),
      'ollama',
      'qwen3:8b',
    );
    expect(body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 50,
      reasoning_effort: 'low',
      temperature: 0.2,
      stop: ['END'],
    });
    expect(body.max_completion_tokens).toBeUndefined();
  });
  it('Ollama drops logprobs, logit_bias and tool_choice without a word: refused with 400 naming the field', () => {
    for (const [field, value] of [
      ['logprobs', true],
      ['logit_bias', { '5': 1 }],
      ['tool_choice', 'required'],
    ] as const) {
      const request = ask({
        model: 'svc-model-5.2-fast',
        [field]: value,
        ...(field === 'tool_choice' ? { tools: [{ type: 'function', function: { name: 'f' } }] } : {}),
      });
      expect(() => chatBody(request, 'ollama', 'q')).toThrow(expect.objectContaining({ code: 'unsupported_parameter', param: field }));
      expect(() => chatBody(request, 'vllm', 'q')).not.toThrow();
    }
  });
});
