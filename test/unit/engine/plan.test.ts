// The engine-neutral plan: what each engine translates instead of re-reading the client's request.
import { describe, expect, it, vi } from 'vitest';
import { validateChatRequest } from '#shared/protocol/validate';
import { resolved } from '../fakes/requests';
import { servedAs, withPlan } from '../../../worker/engine/common/plan';
import { Scheduler } from '../../../worker/engine/scheduler';
import { fakeWllama, llamaEngineWith } from '../fakes/wllama-fake';

// withPlan as it is, counted: how many plans one request gets.
vi.mock('../../../worker/engine/common/plan', async (original) => {
  const plan = await original<typeof import('../../../worker/engine/common/plan')>();
  return { ...plan, withPlan: vi.fn(plan.withPlan) };
});

const tools = [
  { type: 'function' as const, function: { name: 'f', parameters: { type: 'object' } } },
  { type: 'function' as const, function: { name: 'g' } },
];
const user = [{ role: 'user' as const, content: 'hi' }];

describe('request plan', () => {
  it('takes the output limit from max_completion_tokens before max_tokens, and none when neither is set', () => {
    expect(resolved({ model: 'svc-model-5.2', messages: user, max_completion_tokens: 7, max_tokens: 99 }).plan.maxTokens).toBe(7);
    expect(resolved({ model: 'svc-model-5.2', messages: user, max_tokens: 99 }).plan.maxTokens).toBe(99);
    expect(resolved({ model: 'svc-model-5.2', messages: user }).plan.maxTokens).toBeUndefined();
  });

  it('lists stop sequences, a single string as one, empty ones left out', () => {
    expect(resolved({ model: 'svc-model-5.2', messages: user, stop: 'END' }).plan.stops).toEqual(['END']);
    expect(resolved({ model: 'svc-model-5.2', messages: user, stop: ['', 'a', 'b'] }).plan.stops).toEqual(['a', 'b']);
    expect(resolved({ model: 'svc-model-5.2', messages: user }).plan.stops).toEqual([]);
  });

  it('plans tools: none when switched off, auto by default, required, named, parallel unless refused', () => {
    expect(resolved({ model: 'svc-model-5.2', messages: user, tools, tool_choice: 'none' }).plan.tools).toBeNull();
    expect(resolved({ model: 'svc-model-5.2', messages: user }).plan.tools).toBeNull();
    expect(resolved({ model: 'svc-model-5.2', messages: user, tools }).plan.tools).toEqual({ tools, mode: 'auto', parallel: true });
    expect(resolved({ model: 'svc-model-5.2', messages: user, tools, tool_choice: 'required', parallel_tool_calls: false }).plan.tools).toEqual({
      tools,
      mode: 'required',
      parallel: false,
    });
    expect(resolved({ model: 'svc-model-5.2', messages: user, tools, tool_choice: { type: 'function', function: { name: 'g' } } }).plan.tools).toEqual({
      tools,
      mode: 'named',
      name: 'g',
      parallel: true,
    });
  });

  it('thinks on a thinking variant unless reasoning_effort is "none" or the prompt is raw', () => {
    expect(resolved({ model: 'svc-model-5.2', messages: user }).plan.thinking).toBe(true);
    expect(resolved({ model: 'svc-model-5.2', messages: user, reasoning_effort: 'low' }).plan.thinking).toBe(true);
    expect(resolved({ model: 'svc-model-5.2', messages: user, reasoning_effort: 'none' }).plan.thinking).toBe(false);
    expect(resolved({ model: 'svc-model-5.2-fast', messages: user }).plan.thinking).toBe(false);
    const raw = resolved({ model: 'svc-model-5.2', messages: user, raw_prompt: 'Once' }).plan;
    expect(raw).toMatchObject({ thinking: false, rawPrompt: 'Once' });
  });

  it('keeps only the sampling fields the client set, and logprobs as a count of alternatives', () => {
    const plan = resolved({ model: 'svc-model-5.2', messages: user, temperature: 0, seed: 3, logit_bias: { '5': -100 }, logprobs: true }).plan;
    expect(plan.sampling).toEqual({ temperature: 0, seed: 3, logit_bias: { '5': -100 } });
    expect(plan.logprobs).toBe(0);
    expect(resolved({ model: 'svc-model-5.2', messages: user, logprobs: true, top_logprobs: 3 }).plan.logprobs).toBe(3);
    expect(resolved({ model: 'svc-model-5.2', messages: user, logprobs: false }).plan.logprobs).toBeNull();
  });

  it('is made again from the fields, never carried over from an earlier plan', () => {
    const thinking = resolved({ model: 'svc-model-5.2', messages: user });
    expect(withPlan({ ...thinking, reasoning_effort: 'none' }).plan.thinking).toBe(false);
  });

  it('servedAs: the same plan for the variant an engine serves, only its thinking for that variant', () => {
    const request = resolved({ model: 'svc-vision', messages: user, max_tokens: 9, stop: 'END' });
    expect(request.plan.thinking).toBe(false);
    const served = servedAs(request, { ...request.variant, thinks: true });
    expect(served.plan).toEqual({ ...request.plan, thinking: true });
    expect(served.variant.thinks).toBe(true);
    expect(servedAs(request, request.variant).plan).toBe(request.plan);
    const raw = resolved({ model: 'svc-vision', messages: user, raw_prompt: 'x' });
    expect(servedAs(raw, { ...raw.variant, thinks: true }).plan.thinking).toBe(false);
  });

  it('one plan per request: llama.cpp serving svc-vision on a GGUF that always thinks does not make it again', async () => {
    const calls: Record<string, unknown>[] = [];
    const scheduler = new Scheduler(llamaEngineWith({}, fakeWllama({ calls })), 4);
    vi.mocked(withPlan).mockClear();
    await new Promise<void>((resolve, reject) =>
      scheduler.submit('a', validateChatRequest({ model: 'svc-vision', messages: user }), {
        accepted: () => undefined,
        start: () => undefined,
        event: () => undefined,
        end: resolve,
        error: reject,
      }),
    );
    expect(withPlan).toHaveBeenCalledTimes(1);
    // The model served thinks: the template's switch says so.
    expect(calls.map((c) => c.chat_template_kwargs)).toEqual([{ enable_thinking: true }]);
  });
});
