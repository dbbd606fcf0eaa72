// Which request fields the engine can honour for a variant; the rest get 400 `unsupported_parameter`.
// These are web-llm 0.2.86's real limits (read from its source), shared by every engine implementation so
// the test build refuses exactly what production refuses.
import { ApiError } from '#shared/protocol/errors';
import type { ChatCompletionRequest } from '#shared/protocol/types';

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

  // Phi-3.5-vision has no tool format: tools may only be sent switched off.
  if (variant.vision && request.tools !== undefined && request.tool_choice !== 'none') {
    unsupported('tools', "is not supported: this model has no tool-calling format (send tool_choice: 'none', or use a svc-model-5.2 variant)");
  }

  const messages = request.messages;
  let leadingSystem = true;
  messages.forEach((message, i) => {
    // `name` is accepted and left out of the prompt: the chat templates have no place for it (README).
    if (variant.vision && (message.role === 'tool' || (message.role === 'assistant' && message.tool_calls !== undefined))) {
      unsupported(`messages[${i}]`, 'is a tool call or tool result, which this model has no format for');
    }
    const system = message.role === 'system' || message.role === 'developer';
    if (system && !leadingSystem) {
      unsupported(`messages[${i}].role`, `'${message.role}' is only supported before the first user or assistant message`);
    }
    if (!system) leadingSystem = false;
    if (Array.isArray(message.content)) {
      message.content.forEach((part, j) => {
        if (part.type === 'image_url' && part.image_url.detail !== undefined && part.image_url.detail !== 'auto') {
          unsupported(
            `messages[${i}].content[${j}].image_url.detail`,
            `'${part.image_url.detail}' is not supported: images are always read at the model's own resolution ('auto')`,
          );
        }
      });
    }
  });
  const last = messages.length - 1;
  const lastRole = messages[last]?.role;
  if (lastRole !== 'user' && lastRole !== 'tool') {
    unsupported(`messages[${last}].role`, `must be 'user' or 'tool' for the last message: the model answers a user turn or a tool result`);
  }
}
