// Wire types of the /v1 interface (docs/contract.md "Answers" and "Model object").
import type { Timings } from './timings';
export type { Timings } from './timings';
import type { ModelId } from '../variants';
import type { EngineKind } from '../engine-kinds/names';

// The request's types are declared once, by the zod schema in validate.ts; re-exported here for convenience.
export type { ChatCompletionRequest, ChatMessage, ContentPart, ReasoningEffort, ResponseFormat, ToolCall, FunctionTool } from './validate';
import type { ToolCall } from './validate';

/** How an engine ends a generation. */
export type EngineFinishReason = 'stop' | 'length' | 'tool_calls';
/** What the wire says: `function_call` is `tool_calls` for a request that used the legacy `functions`. */
export type FinishReason = EngineFinishReason | 'function_call';

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
  /** null when the answer is only tool calls. */
  content: string | null;
  refusal: null;
  reasoning_content?: string;
  reasoning?: string;
  tool_calls?: ToolCall[];
  /** The legacy answer (the request used `functions`): the one call, without id. */
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
  /** The engine's own timings (llama.cpp's), when it measures them. */
  timings?: Timings;
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
  /** Legacy stream (the request used `functions`): name first, then argument fragments. */
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
  /** On the chunk that carries the finish reason: the engine's own timings, when it measures them. */
  timings?: Timings;
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
  /** Only on embedding models (POST /v1/embeddings), with the length of their vectors. */
  embeddings?: true;
  dimensions?: number;
  state: ModelState;
  /** Only when `state` is `unavailable`: why the model cannot run here now (src/shared/unavailable-why.ts). */
  why?: string;
  /** Which engine serves the model here and where it runs, once the engine has chosen (src/shared/wire/engine-port.ts ModelRuntime). */
  engine?: EngineObject;
  /** Hybrid (docs/hybrid.md): the id's mode, when upstreams are configured. */
  mode?: 'local' | 'prefer-local' | 'prefer-upstream' | 'upstream';
  /** Hybrid: the side that would answer a request now, and why. */
  serving?: { engine: 'local' | 'upstream'; why: string; upstream?: { name: string; host: string; model: string } };
  /** Consumer mode (docs/shared-models.md): the model provider this site uses, whether it serves now, and why (not). */
  provider?: { origin: string; serving: boolean; why: string };
}

/** /v1/models' `engine`: the status's runtime, as the API names it. */
export interface EngineObject {
  name: EngineKind;
  device: 'webgpu' | 'cpu';
  threads?: number;
  /** llama.cpp: why this many threads (one where the page is not cross-origin isolated). */
  threads_why?: string;
  /** llama.cpp: the wllama WebAssembly build running here (`main` or `compat`), and why (feature detection). */
  build?: 'main' | 'compat';
  build_why?: string;
  /** llama.cpp: that build's wasm variant running here (`relaxed`, `simd128` or `generic`: its kernels), and why. */
  wasm?: 'relaxed' | 'simd128' | 'generic';
  wasm_why?: string;
  /** llama.cpp: where the model files are kept on this device, and what that means. */
  storage?: { store: 'opfs' | 'cache-storage' | 'memory'; why: string };
}

export interface ModelList {
  object: 'list';
  data: ModelObject[];
}
