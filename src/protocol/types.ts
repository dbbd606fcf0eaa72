// Wire types of the /v1 interface (CONTRACT.md "Answers" and "Model object").
import type { VariantId } from '../variants';

export type Role = 'system' | 'developer' | 'user' | 'assistant';

export interface TextPart {
  type: 'text';
  text: string;
}
export interface ImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}
export type ContentPart = TextPart | ImagePart;

export interface ChatMessage {
  role: Role;
  content: string | ContentPart[];
  name?: string;
}

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
  /**
   * Legacy completions only, set by their converter (src/protocol/text-completion.ts) and never taken from a
   * client: the text to continue as it is, without the chat template and without thinking.
   */
  raw_prompt?: string;
}

export type FinishReason = 'stop' | 'length';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Prompt tokens served from the engine's KV cache (an earlier turn of the same conversation). */
  prompt_tokens_details: { cached_tokens: number };
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
  content: string;
  refusal: null;
  reasoning_content?: string;
  reasoning?: string;
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

export interface ChunkDelta {
  role?: 'assistant';
  content?: string;
  reasoning_content?: string;
  reasoning?: string;
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
