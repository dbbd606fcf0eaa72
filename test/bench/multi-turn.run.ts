// `npm run bench` part: a 20-turn conversation through the production web-llm adapter over the typed fake
// (test/unit/fakes/webllm-fake.ts, which keeps or resets its KV cache as web-llm 0.2.86's preparePrefillInput does),
// counting the tokens web-llm prefills on each turn. Run by scripts/bench.mjs through vitest (Node); writes
// its figures as JSON to INPAGE_BENCH_OUT. Each user message is ~100 tokens, each reply ~100 (a fast
// variant) or ~100 plus ~60 of thinking (a thinking variant), so the conversation reaches ~4,000 tokens.
import { writeFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '#shared/config';
import type { ChatCompletionRequest } from '#shared/protocol/types';
import type { VariantId } from '#shared/variants';
import { WebLlmEngine } from '../../worker/engine/webllm/adapter';
import { resolved } from '../unit/fakes/requests';
import { fakeTokens, rig } from '../unit/fakes/webllm-fake';

const TURNS = 20;
const words = (n: number, seed: string) => Array.from({ length: n }, (_, i) => `${seed}${i}`).join(' ');

async function conversation(model: VariantId) {
  const r = rig();
  const adapter = new WebLlmEngine({ ...DEFAULT_CONFIG, gpuMemoryMB: 65536 }, r.deps);
  const thinks = model === 'svc-model-5.2';
  const messages: ChatCompletionRequest['messages'] = [{ role: 'system', content: 'You are terse.' }];
  const turns: { prompt: number; prefilled: number; cached: number; fresh: number }[] = [];
  for (let turn = 0; turn < TURNS; turn++) {
    const question = words(50, `q${turn}w`);
    messages.push({ role: 'user', content: question });
    const answer = words(50, `a${turn}w`);
    r.engine().script = () => ({
      pieces: [...(thinks ? ['<think>', '\n', ...fakeTokens(words(30, `t${turn}w`)), '\n', '</think>', '\n\n'] : []), ...fakeTokens(answer)],
    });
    const generation = await adapter.generate(resolved({ model, messages: [...messages] }), new AbortController().signal);
    let content = '';
    let usage;
    for await (const event of generation.events) {
      if (event.type === 'delta') content += event.content ?? '';
      else if (event.type === 'finish') usage = event.usage;
    }
    expect(content).toBe(answer);
    const prefilled = r.engine().prefilled.at(-1)!;
    // Tokens new to this turn: the user message in its template, and the reply header.
    const fresh =
      fakeTokens(`<|im_start|>user\n${question}<|im_end|>\n`).length + fakeTokens(`<|im_start|>assistant\n${thinks ? '' : '<think>\n\n</think>\n\n'}`).length;
    turns.push({ prompt: usage!.prompt_tokens, prefilled, cached: usage!.prompt_tokens_details.cached_tokens, fresh });
    messages.push({ role: 'assistant', content });
  }
  const prefilled = turns.reduce((n, t) => n + t.prefilled, 0);
  const fresh = turns.reduce((n, t) => n + t.fresh, 0) + turns[0]!.prompt - turns[0]!.fresh;
  return { model, turns, prefilled, fresh, finalPrompt: turns.at(-1)!.prompt, reused: r.engine().reused.filter(Boolean).length };
}

it('a 20-turn conversation prefills only its new tokens', async () => {
  const results = [];
  for (const model of ['svc-model-5.2-fast', 'svc-model-5.2'] as const) results.push(await conversation(model));
  if (process.env.INPAGE_BENCH_OUT) writeFileSync(process.env.INPAGE_BENCH_OUT, JSON.stringify(results, null, 1));
  for (const r of results) expect(r.reused).toBe(TURNS - 1);
});
