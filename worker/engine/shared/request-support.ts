// Which request fields the engine can honour for a variant; the rest get 400 `unsupported_parameter`.
// These are web-llm 0.2.86's real limits (read from its source), shared by every engine implementation so
// the test build refuses exactly what production refuses.
import { ApiError } from '../../../src/protocol/errors';
import type { ChatCompletionRequest, FunctionTool } from '../../../src/protocol/types';

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
          unsupported(`messages[${i}].content[${j}].image_url.detail`, `'${part.image_url.detail}' is not supported: images are always read at the model's own resolution ('auto')`);
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

/** The tools offered to the model for one request and how it must use them; null when none are offered. */
export interface ToolPlan {
  tools: FunctionTool[];
  /** `auto`: the model may call or answer; `required`: at least one call; `named`: a call of `name`. */
  mode: 'auto' | 'required' | 'named';
  /** Set when mode is `named`. */
  name?: string;
  /** Whether several calls may come in one answer (`parallel_tool_calls`, default true). */
  parallel: boolean;
}

export function toolPlan(request: ChatCompletionRequest): ToolPlan | null {
  const tools = request.tools ?? [];
  const choice = request.tool_choice ?? 'auto';
  if (tools.length === 0 || choice === 'none') return null;
  const parallel = request.parallel_tool_calls !== false;
  if (typeof choice === 'object') return { tools, mode: 'named', name: choice.function.name, parallel };
  return { tools, mode: choice, parallel };
}

/** Whether this request should think: a thinking variant, unless `reasoning_effort` is "none". */
export function wantsThinking(request: ChatCompletionRequest): boolean {
  return request.variant.thinks && request.reasoning_effort !== 'none' && request.raw_prompt === undefined;
}

/** `max_completion_tokens` wins over the older `max_tokens`; both count thinking tokens. */
export function outputLimit(request: ChatCompletionRequest): number | undefined {
  return request.max_completion_tokens ?? request.max_tokens;
}

export function stopSequences(request: ChatCompletionRequest): string[] {
  if (request.stop === undefined || request.stop === null) return [];
  return (Array.isArray(request.stop) ? request.stop : [request.stop]).filter((s) => s.length > 0);
}
