// Legacy completions on the web-llm adapter: web-llm's completion API with the raw prompt, no template, no thinking.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '#shared/config';
import type { EngineEvent } from '#shared/wire/engine-port';
import { ApiError } from '#shared/protocol/errors';
import { parseTextCompletionRequest, toChatRequest } from '../../../worker/sw/completions/request';
import { WebLlmEngine } from '../../../worker/engine/webllm/adapter';
import { fakeTokens, rig } from '../fakes/webllm-fake';
import { withPlan } from '../../../worker/engine/common/plan';

function setup() {
  const r = rig();
  return { ...r, adapter: new WebLlmEngine({ ...DEFAULT_CONFIG }, r.deps) };
}

describe('web-llm adapter: legacy completions', () => {
  it('sends the prompt as it is to web-llm’s completion API; thinking tags stay text; prompt counted raw', async () => {
    const t = setup();
    t.engine().script = () => ({ pieces: ['<think>', ' upon', ' a time'] });
    const request = withPlan(
      toChatRequest(parseTextCompletionRequest({ model: 'svc-model-5.2', prompt: 'Once', max_tokens: 20, stop: ['\n'], temperature: 0.3, logprobs: 1 })),
    );
    const generation = await t.adapter.generate(request, new AbortController().signal);
    const events: EngineEvent[] = [];
    for await (const event of generation.events) events.push(event);
    expect(t.engine().requests).toHaveLength(0);
    expect(t.engine().completionRequests).toEqual([
      {
        model: 'Qwen3-8B-q4f32_1-MLC',
        prompt: 'Once',
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: 20,
        stop: ['\n'],
        temperature: 0.3,
        logprobs: true,
        top_logprobs: 1,
      },
    ]);
    const content = events.map((e) => (e.type === 'delta' ? (e.content ?? '') : '')).join('');
    expect(content).toBe('<think> upon a time');
    expect(events.some((e) => e.type === 'delta' && e.reasoning)).toBe(false);
    expect(events.at(-1)).toMatchObject({
      type: 'finish',
      finish_reason: 'stop',
      usage: { prompt_tokens: fakeTokens('Once').length, completion_tokens: 3, completion_tokens_details: { reasoning_tokens: 0 } },
    });
  });

  it('refuses a prompt over the context before generating', async () => {
    const t = setup();
    const request = withPlan(toChatRequest(parseTextCompletionRequest({ model: 'svc-model-5.2-fast', prompt: 'word '.repeat(5000), max_tokens: 10 })));
    const err = await t.adapter.generate(request, new AbortController().signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'context_length_exceeded', param: 'prompt' });
    expect(t.engine().completionRequests).toHaveLength(0);
  });
});
