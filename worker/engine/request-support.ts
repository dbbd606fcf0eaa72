// Which request fields the engine can honour for a variant; the rest get 400 `unsupported_parameter`.
// These are web-llm 0.2.86's real limits (read from its source), shared by every engine implementation so
// the test build refuses exactly what production refuses.
import { ApiError } from '../../src/protocol/errors';
import type { ChatCompletionRequest } from '../../src/protocol/types';

/** Throws for the first field the chosen variant cannot honour. Shared by every engine implementation. */
export function assertSupported(request: ChatCompletionRequest): void {
  const { variant } = request;
  const unsupported = (param: string, why: string): never => {
    throw new ApiError('unsupported_parameter', `Unsupported parameter: '${param}' ${why} (model '${variant.id}').`, { param });
  };
  if (request.n !== undefined && request.n > 1) unsupported('n', 'must be 1: one choice is generated per request');
  if (request.reasoning_effort !== undefined && request.reasoning_effort !== 'none' && !variant.thinks) {
    unsupported('reasoning_effort', 'applies only to thinking variants; this one never thinks');
  }

  const messages = request.messages;
  let leadingSystem = true;
  messages.forEach((message, i) => {
    if (message.name !== undefined) {
      // web-llm would put the name where the chat template's role marker goes, breaking the prompt.
      unsupported(`messages[${i}].name`, 'is not supported: the model has no slot for participant names');
    }
    const system = message.role === 'system' || message.role === 'developer';
    if (system && !leadingSystem) {
      unsupported(`messages[${i}].role`, `'${message.role}' is only supported before the first user or assistant message`);
    }
    if (!system) leadingSystem = false;
    if (Array.isArray(message.content)) {
      message.content.forEach((part, j) => {
        if (part.type === 'image_url' && part.image_url.detail !== undefined && part.image_url.detail !== 'auto') {
          unsupported(`messages[${i}].content[${j}].image_url.detail`, `'${part.image_url.detail}' is not supported: images are always read at the model's own resolution ('auto')`);
        }
      });
    }
  });
  const last = messages.length - 1;
  if (messages[last]?.role !== 'user') {
    unsupported(`messages[${last}].role`, `must be 'user' for the last message: the model only answers a user turn`);
  }
}

/** Whether this request should think: a thinking variant, unless `reasoning_effort` is "none". */
export function wantsThinking(request: ChatCompletionRequest): boolean {
  return request.variant.thinks && request.reasoning_effort !== 'none';
}

/** `max_completion_tokens` wins over the older `max_tokens`; both count thinking tokens. */
export function outputLimit(request: ChatCompletionRequest): number | undefined {
  return request.max_completion_tokens ?? request.max_tokens;
}

export function stopSequences(request: ChatCompletionRequest): string[] {
  if (request.stop === undefined || request.stop === null) return [];
  return (Array.isArray(request.stop) ? request.stop : [request.stop]).filter((s) => s.length > 0);
}
