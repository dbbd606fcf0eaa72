// One engine-neutral plan per request, computed once before any engine sees it (as vLLM's request object
// gives its sampling parameters): the output limit, stop sequences, tools and how they must be used, whether
// the model thinks, sampling, logprobs and the answer's format. Each engine translates the plan into its own
// request; none re-reads those fields of the client's request.
import type { ChatCompletionRequest, FunctionTool, ResponseFormat } from '#shared/protocol/types';
import type { Variant } from '#shared/variants';

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

/** Sampling as the client set it; an unset field is absent (each engine keeps its own default). */
export interface Sampling {
  temperature?: number;
  top_p?: number;
  seed?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  logit_bias?: Record<string, number>;
}

export interface RequestPlan {
  /** `max_completion_tokens`, else the older `max_tokens`; both count thinking tokens. Undefined: no limit. */
  maxTokens: number | undefined;
  /** The stop sequences, empty ones left out. */
  stops: string[];
  /** The tools offered and how they must be used; null when none are (none given, or `tool_choice: "none"`). */
  tools: ToolPlan | null;
  /** Whether the model thinks: a thinking variant, unless `reasoning_effort` is "none" or the prompt is raw. */
  thinking: boolean;
  sampling: Sampling;
  /** Alternatives per token when logprobs are asked for (0: the chosen token only); null when they are not. */
  logprobs: number | null;
  /** The format the answer's text is held to; undefined: free text. */
  format: ResponseFormat | undefined;
  /** A legacy completion's prompt, sent as it is (no template); undefined for chats. */
  rawPrompt: string | undefined;
}

/** A checked request with its plan: what every engine's `generate` and `supports` take. */
export type PlannedRequest = ChatCompletionRequest & { readonly plan: RequestPlan };

/** The request with its plan (the scheduler makes it once per request; an earlier plan is replaced, never trusted). */
export function withPlan(request: ChatCompletionRequest): PlannedRequest {
  const { plan: _earlier, ...fields } = request as PlannedRequest;
  return { ...fields, plan: planOf(fields) };
}

/**
 * The request as an engine serves it on `variant`, where that differs from the id's (a llama.cpp GGUF that always
 * thinks): the same plan, not made again, with the one field a variant decides (`thinking`) for the variant served.
 */
export function servedAs(request: PlannedRequest, variant: Variant): PlannedRequest {
  if (variant.thinks === request.variant.thinks) return { ...request, variant };
  return { ...request, variant, plan: { ...request.plan, thinking: thinks(request, variant) } };
}

/** Whether the model thinks: a thinking variant, unless `reasoning_effort` is "none" or the prompt is raw. */
function thinks(request: ChatCompletionRequest, variant: Variant): boolean {
  return variant.thinks && request.reasoning_effort !== 'none' && request.raw_prompt === undefined;
}

function planOf(request: ChatCompletionRequest): RequestPlan {
  const sampling: Sampling = {};
  for (const field of ['temperature', 'top_p', 'seed', 'presence_penalty', 'frequency_penalty'] as const) {
    const value = request[field];
    if (value !== undefined) sampling[field] = value;
  }
  if (request.logit_bias !== undefined) sampling.logit_bias = { ...request.logit_bias };
  const stop = request.stop ?? [];
  return {
    maxTokens: request.max_completion_tokens ?? request.max_tokens,
    stops: (Array.isArray(stop) ? stop : [stop]).filter((s) => s.length > 0),
    tools: toolPlan(request),
    thinking: thinks(request, request.variant),
    sampling,
    logprobs: request.logprobs === true ? (request.top_logprobs ?? 0) : null,
    format: request.response_format,
    rawPrompt: request.raw_prompt,
  };
}

function toolPlan(request: ChatCompletionRequest): ToolPlan | null {
  const tools = request.tools ?? [];
  const choice = request.tool_choice ?? 'auto';
  if (tools.length === 0 || choice === 'none') return null;
  const parallel = request.parallel_tool_calls !== false;
  if (typeof choice === 'object') return { tools, mode: 'named', name: choice.function.name, parallel };
  return { tools, mode: choice, parallel };
}
