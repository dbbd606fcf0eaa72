// Which request fields the engine can honour for a variant; the rest get 400 `unsupported_parameter`.
import { ApiError } from '../../src/protocol/errors';
import type { ChatCompletionRequest } from '../../src/protocol/types';
import { VARIANTS } from '../../src/variants';

/** Throws for the first field the chosen variant cannot honour. Shared by every engine implementation. */
export function assertSupported(request: ChatCompletionRequest): void {
  const variant = VARIANTS[request.model];
  const unsupported = (param: string, why: string) => {
    throw new ApiError('unsupported_parameter', `Unsupported parameter: '${param}' ${why} (model '${variant.id}').`, { param });
  };
  if (request.n !== undefined && request.n > 1) unsupported('n', 'must be 1: one choice is generated per request');
  if (request.reasoning_effort !== undefined && request.reasoning_effort !== 'none' && !variant.thinks) {
    unsupported('reasoning_effort', 'applies only to thinking variants; this one never thinks');
  }
}

/** Whether this request should think: a thinking variant, unless `reasoning_effort` is "none". */
export function wantsThinking(request: ChatCompletionRequest): boolean {
  return VARIANTS[request.model].thinks && request.reasoning_effort !== 'none';
}

/** `max_completion_tokens` wins over the older `max_tokens`; both count thinking tokens. */
export function outputLimit(request: ChatCompletionRequest): number | undefined {
  return request.max_completion_tokens ?? request.max_tokens;
}

export function stopSequences(request: ChatCompletionRequest): string[] {
  if (request.stop === undefined || request.stop === null) return [];
  return (Array.isArray(request.stop) ? request.stop : [request.stop]).filter((s) => s.length > 0);
}
