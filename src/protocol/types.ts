// Wire types of the /v1 interface (CONTRACT.md "Answers" and "Model object").
import type { ModelId } from '../variants';

// The request's types are declared once, by the zod schema in validate.ts; re-exported here for convenience.
export type {
  ChatCompletionRequest,
  ChatMessage,
  ChatRequestBody,
  ContentPart,
  ImagePart,
  ReasoningEffort,
  ResponseFormat,
  Role,
  TextPart,
} from './validate';

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
  id: ModelId;
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
