// Legacy completions: the converter onto the chat request (raw prompt) and the text_completion writer.
import { describe, expect, it } from 'vitest';
import { ApiError } from '#shared/protocol/errors';
import { TextCompletionWriter, parseTextCompletionRequest, toChatRequest } from '../../../worker/sw/completions/request';
import { withPlan } from '../../../worker/engine/common/plan';
import { validateChatRequest } from '#shared/protocol/validate';

const thinks = (request: Parameters<typeof withPlan>[0]) => withPlan(request).plan.thinking;
const convert = (body: Record<string, unknown>) => toChatRequest(parseTextCompletionRequest(body));

function refusal(fn: () => unknown): { code: string; param: string | null } {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return { code: err.code, param: err.param };
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('legacy completion request → chat request', () => {
  it('carries the prompt raw, never thinks, and maps the fields', () => {
    const chat = convert({ model: 'svc-model-5.2', prompt: ['Once upon'], temperature: 0.2, stop: '\n', seed: 3, logprobs: 2 });
    expect(chat).toMatchObject({
      model: 'svc-model-5.2',
      raw_prompt: 'Once upon',
      max_tokens: 16,
      temperature: 0.2,
      stop: '\n',
      seed: 3,
      logprobs: true,
      top_logprobs: 2,
    });
    expect(thinks(chat)).toBe(false);
    expect(convert({ model: 'svc-model-5.2-fast', prompt: 'x', max_tokens: 40 }).max_tokens).toBe(40);
  });

  it('refuses n, best_of, suffix, echo and token prompts, naming the field', () => {
    const base = { model: 'svc-model-5.2-fast', prompt: 'x' };
    expect(refusal(() => convert({ ...base, n: 2 }))).toEqual({ code: 'unsupported_parameter', param: 'n' });
    expect(refusal(() => convert({ ...base, best_of: 3 }))).toEqual({ code: 'unsupported_parameter', param: 'best_of' });
    expect(refusal(() => convert({ ...base, suffix: 'end' }))).toEqual({ code: 'unsupported_parameter', param: 'suffix' });
    expect(refusal(() => convert({ ...base, echo: true }))).toEqual({ code: 'unsupported_parameter', param: 'echo' });
    expect(refusal(() => convert({ ...base, prompt: [1, 2, 3] }))).toEqual({ code: 'unsupported_parameter', param: 'prompt' });
    expect(refusal(() => convert({ ...base, prompt: ['a', 'b'] }))).toMatchObject({ code: 'invalid_value', param: 'prompt' });
    expect(refusal(() => convert({ model: 'svc-model-5.2-fast' }))).toEqual({ code: 'missing_required_parameter', param: 'prompt' });
    // n: 1, best_of: 1 and an empty suffix ask for nothing inpage lacks.
    expect(convert({ ...base, n: 1, best_of: 1, suffix: '' }).raw_prompt).toBe('x');
  });

  it('never takes a raw prompt from a chat client', () => {
    const chat = validateChatRequest({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'x' }], raw_prompt: 'sneaky' });
    expect(chat.raw_prompt).toBeUndefined();
  });
});

describe('engine events → text_completion', () => {
  const usage = {
    prompt_tokens: 2,
    completion_tokens: 2,
    total_tokens: 4,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
  const lp = (token: string) => ({ token, logprob: -0.5, bytes: null, top_logprobs: [{ token, logprob: -0.5, bytes: null }] });

  it('streams text chunks then a finish chunk (and usage), and builds the whole object', () => {
    const writer = new TextCompletionWriter('svc-model-5.2-fast', 'fp', { logprobs: true, includeUsage: true });
    const chunks = [
      ...writer.next({ type: 'delta', content: 'Echo:', logprobs: [lp('Echo:')] }),
      ...writer.next({ type: 'delta', content: ' hi', logprobs: [lp(' hi')] }),
      ...writer.next({ type: 'finish', finish_reason: 'stop', usage }),
    ];
    expect(chunks.map((c) => c.choices[0]?.text ?? null)).toEqual(['Echo:', ' hi', '', null]);
    expect(chunks[1]!.choices[0]!.logprobs).toEqual({ tokens: [' hi'], token_logprobs: [-0.5], top_logprobs: [{ ' hi': -0.5 }], text_offset: [5] });
    expect(chunks.at(-1)).toMatchObject({ object: 'text_completion', choices: [], usage });
    const whole = writer.build();
    expect(whole).toMatchObject({
      object: 'text_completion',
      choices: [{ index: 0, text: 'Echo: hi', finish_reason: 'stop', logprobs: { text_offset: [0, 5] } }],
      usage,
    });
    expect(whole.id).toMatch(/^cmpl-/);
  });

  it("carries the engine's timings on the finish chunk and in the whole object", () => {
    const timings = { prompt_n: 2, prompt_ms: 10, predicted_n: 2, predicted_ms: 30 };
    const writer = new TextCompletionWriter('m', 'fp', { logprobs: false, includeUsage: true });
    const chunks = [...writer.next({ type: 'delta', content: 'a' }), ...writer.next({ type: 'finish', finish_reason: 'stop', usage, timings })];
    expect(chunks.map((c) => c.timings)).toEqual([undefined, timings, undefined]);
    expect(writer.build().timings).toEqual(timings);
  });
});
