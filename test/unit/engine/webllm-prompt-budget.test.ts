// web-llm's prompt budget (worker/engine/webllm/prompt-budget.ts): a legacy completion's raw prompt over the context
// is refused naming `prompt`, a chat's naming `messages`, both with OpenAI's wording and the counts.
import { describe, expect, it } from 'vitest';
import { ApiError } from '#shared/protocol/errors';
import { validateChatRequest } from '#shared/protocol/validate';
import { withPlan } from '../../../worker/engine/common/plan';
import { promptBudget, rawPromptBudget } from '../../../worker/engine/webllm/prompt-budget';
import type { LoadedModelView } from '../../../worker/engine/webllm/prompt-tokens';

/** A tokenizer of one token per character (only countTokens is read for a raw prompt). */
const view = { countTokens: (text: string) => text.length } as LoadedModelView;
const asking = (maxTokens: number) =>
  withPlan(validateChatRequest({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'x' }], max_tokens: maxTokens }));

describe('web-llm prompt budget', () => {
  it('a raw prompt that fits: its tokens; one that does not: context_length_exceeded naming prompt, with the counts', () => {
    expect(rawPromptBudget(view, 10, asking(6), 'abcd')).toBe(4);
    let error: unknown;
    try {
      rawPromptBudget(view, 10, asking(7), 'abcd');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'context_length_exceeded', param: 'prompt' });
    expect((error as ApiError).message).toBe(
      "This model's maximum context length is 10 tokens. However, you requested 11 tokens (4 in the prompt, 7 in the completion). Please reduce the length of the prompt or completion.",
    );
  });

  it('without a view of the tokenizer nothing is counted (web-llm refuses an over-long prompt itself)', () => {
    expect(rawPromptBudget(null, 1, asking(7), 'abcd')).toBeUndefined();
    expect(promptBudget(null, 1, asking(7), [{ role: 'user', content: 'abcd' }], new Map(), false)).toBeUndefined();
  });
});
