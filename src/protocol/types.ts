// Wire types of the /v1 interface (CONTRACT.md "Answers" and "Model object").
import type { VariantId } from '../variants';

export type Role = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

export interface TextPart {
  type: 'text';
  text: string;
}
export interface ImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}
export type ContentPart = TextPart | ImagePart;

/** A call the assistant made, in a request's history or an answer. `arguments` is JSON text. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/**
 * One message after validation. `content` is never null (no text is ''). Legacy shapes arrive translated:
 * an assistant's `function_call` is one entry of `tool_calls`, a `function` message is a `tool` message.
 */
export interface ChatMessage {
  role: Role;
  content: string | ContentPart[];
  name?: string;
  /** assistant only: the calls it made (its `content` may be '' then). */
  tool_calls?: ToolCall[];
  /** tool only: the call this message answers. */
  tool_call_id?: string;
}

/** A function the model may call. `parameters` is a JSON Schema (absent: no arguments). */
export interface FunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean | null };
}

/** `auto` (the default with tools): the model decides; `none`: tools are not offered; `required`: at least one call. */
export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; schema?: Record<string, unknown>; strict?: boolean | null; description?: string } };

export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high';

/** A request body after validation: every field is of the right type and in range. */
export interface ChatCompletionRequest {
  model: VariantId;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  stop?: string | string[] | null;
  seed?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  n?: number;
  logprobs?: boolean;
  top_logprobs?: number;
  response_format?: ResponseFormat;
  reasoning_effort?: ReasoningEffort;
  user?: string;
  tools?: FunctionTool[];
  tool_choice?: ToolChoice;
  parallel_tool_calls?: boolean;
  /** Token id (as a string) → bias from -100 to 100. */
  logit_bias?: Record<string, number>;
  /**
   * Set by validation (never read from the body): the request used the legacy `functions` field, so the
   * answer takes the legacy shape (`message.function_call`, `finish_reason: "function_call"`).
   */
  legacy_functions?: boolean;
}

/** How an engine ends a generation. */
export type EngineFinishReason = 'stop' | 'length' | 'tool_calls';
/** What the wire says: `function_call` is `tool_calls` for a request that used the legacy `functions`. */
export type FinishReason = EngineFinishReason | 'function_call';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  completion_tokens_details: { reasoning_tokens: number };
}

export interface TokenLogprob {
  token: string;
  logprob: number;
  bytes: number[] | null;
  top_logprobs: { token: string; logprob: number; bytes: number[] | null }[];
}
export interface ChoiceLogprobs {
  content: TokenLogprob[] | null;
  refusal: TokenLogprob[] | null;
}

export interface AssistantMessage {
  role: 'assistant';
  /** null when the answer is only tool calls. */
  content: string | null;
  refusal: null;
  reasoning_content?: string;
  reasoning?: string;
  tool_calls?: ToolCall[];
  /** The legacy answer (request used `functions`): the one call, without id. */
  function_call?: { name: string; arguments: string };
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  system_fingerprint: string;
  choices: {
    index: number;
    message: AssistantMessage;
    logprobs: ChoiceLogprobs | null;
    finish_reason: FinishReason;
  }[];
  usage: Usage;
}

/** One piece of a streamed tool call: the first carries id, type and name (arguments ""), later ones arguments. */
export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments: string };
}

export interface ChunkDelta {
  role?: 'assistant';
  content?: string;
  reasoning_content?: string;
  reasoning?: string;
  tool_calls?: ToolCallDelta[];
  /** Legacy stream (request used `functions`): name first, then argument fragments. */
  function_call?: { name?: string; arguments: string };
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  system_fingerprint: string;
  choices: {
    index: number;
    delta: ChunkDelta;
    logprobs: ChoiceLogprobs | null;
    finish_reason: FinishReason | null;
  }[];
  usage?: Usage | null;
}

export type ModelState = 'not_downloaded' | 'downloading' | 'cached' | 'loading' | 'ready' | 'unavailable';

export interface ModelObject {
  id: VariantId;
  object: 'model';
  created: number;
  owned_by: string;
  context_length: number;
  reasoning: boolean;
  vision: boolean;
  state: ModelState;
}

export interface ModelList {
  object: 'list';
  data: ModelObject[];
}
