// Whether a prompt and the output asked for fit the loaded model's context, counted by the model's own tokenizer
// before web-llm is asked: a prompt over the window is refused with OpenAI's `context_length_exceeded`.
import { contextExceeded } from '#shared/protocol/errors';
import type { PlannedRequest } from '../common/plan';
import type { ResolvedImage } from '../common/images';
import { EMPTY_THINK_BLOCK } from './models';
import { countPromptTokens, type LoadedModelView } from './prompt-tokens';

/**
 * The chat prompt's tokens (`messages` as web-llm will get them, with their images); throws when they and the
 * requested output exceed `context`. Without a view of the tokenizer: undefined (web-llm still refuses a prompt
 * over its window when it prefills).
 */
export function promptBudget(
  view: LoadedModelView | null,
  context: number,
  request: PlannedRequest,
  messages: Parameters<typeof countPromptTokens>[1],
  images: ReadonlyMap<string, ResolvedImage>,
  thinkingSwitchedOff: boolean,
): number | undefined {
  if (!view) return undefined;
  const sizes = new Map([...images.values()].map((image) => [image.dataUrl, image]));
  const prompt = countPromptTokens(view, messages, sizes, thinkingSwitchedOff ? EMPTY_THINK_BLOCK : undefined);
  const completion = request.plan.maxTokens ?? 0;
  if (prompt + completion > context) throw contextExceeded(context, prompt, completion);
  return prompt;
}

/** A legacy completion's raw prompt: its tokens, or a throw as promptBudget's, naming `prompt`. */
export function rawPromptBudget(view: LoadedModelView | null, context: number, request: PlannedRequest, prompt: string): number | undefined {
  if (!view) return undefined;
  const tokens = view.countTokens(prompt);
  const completion = request.plan.maxTokens ?? 0;
  if (tokens + completion > context) throw contextExceeded(context, tokens, completion, 'prompt');
  return tokens;
}
