// What a generation that ended early cost (aborted, or failed part-way), in the API's usage shape: what engines
// report from `Generation.spent()`.
import type { Usage } from '#shared/protocol/types';

/** Usage of a generation that ended early: `prompt` tokens and `completion` tokens generated so far. */
export function spentUsage(prompt: number, completion: number, cached = 0, reasoning = 0): Usage {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: Math.min(cached, prompt) },
    completion_tokens_details: { reasoning_tokens: Math.min(reasoning, completion) },
  };
}
