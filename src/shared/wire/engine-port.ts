// Messages between the service worker and the engine worker, over the MessagePort the page brokers.
import type { ApiErrorData } from '../protocol/errors';
import type { ChatCompletionRequest, ChoiceLogprobs, EngineFinishReason, ModelState, Timings, Usage } from '../protocol/types';
import type { ModelId } from '../variants';
import type { EngineKind } from '../engine-kinds/names';
import type { EmbeddingRequest } from '../protocol/embeddings';

/** What the engine is asked to run: a chat request (everything is converted onto it) or an embeddings request. */
export type EngineRequest = ChatCompletionRequest | EmbeddingRequest;

/**
 * What an engine produces for one request, in order: deltas (text, and tool calls), then exactly one finish.
 * A tool call is a `tool_call` event (index 0, 1, … in order, an id from `toolCallId()`, the function's name)
 * followed by `tool_arguments` events whose fragments concatenate to the call's JSON arguments. An answer
 * with calls finishes with `tool_calls`.
 */
export type EngineEvent =
  | { type: 'delta'; content?: string; reasoning?: string; logprobs?: ChoiceLogprobs['content'] }
  | { type: 'tool_call'; index: number; id: string; name: string }
  | { type: 'tool_arguments'; index: number; arguments: string }
  /** An embeddings request's answer: one event per input, in order, then `finish`. */
  | { type: 'embedding'; index: number; embedding: number[] }
  /** `timings`: the engine's own measure of the generation, from engines that take one (llama.cpp). */
  | { type: 'finish'; finish_reason: EngineFinishReason; usage: Usage; timings?: Timings };

export interface LoadProgress {
  /** What the engine is doing now, e.g. "download" or "load". */
  phase: string;
  bytesDone: number;
  bytesTotal: number;
  /** 0–100. */
  percent: number;
  text: string;
}

export interface ModelStatus {
  id: ModelId;
  state: ModelState;
  context_length: number;
  progress?: LoadProgress;
  /** Bytes the model's files take in the cache, when known. */
  sizeOnDisk?: number;
  /** The engine's own id of the model that serves this variant on this device (e.g. a web-llm model id). */
  modelId?: string;
  /** GPU memory the model needs at the engine's default context, in MB, when the engine knows it. */
  memoryMB?: number;
  error?: string;
  /** Which engine serves the model and where it runs (production builds). */
  runtime?: ModelRuntime;
  /**
   * Whether the model serving the variant on this device thinks, where it differs from the catalog (svc-vision's
   * llama.cpp default, a Qwen3-VL Thinking model, thinks; its web-llm model does not). /v1/models' `reasoning`.
   */
  thinks?: boolean;
  /** Hybrid (docs/hybrid.md): the id's mode, the side that would answer a request now, and why. */
  serving?: Serving;
  /** Consumer mode (docs/shared-models.md): whether the model provider serves it, and why (not). */
  provider?: ProviderNote;
}

/** Consumer mode: the model provider this site is set to use, whether it serves now, and why (not). */
export interface ProviderNote {
  origin: string;
  serving: boolean;
  why: string;
}

/** The note of a model provider that serves this site (every model, or per model once split). */
export function providerServes(origin: string): ProviderNote {
  return { origin, serving: true, why: `the model provider ${origin} serves this site from the files this browser keeps for it` };
}

/** Which side would answer an id now (hybrid), told per id by the composite's status. */
export interface Serving {
  mode: 'local' | 'prefer-local' | 'prefer-upstream' | 'upstream';
  /** The side a request would go to now. */
  engine: 'local' | 'upstream';
  why: string;
  /** The upstream this id may go to: its name, host and model name there. */
  upstream?: { name: string; host: string; model: string };
}

/** What downloading a model will fetch, told before the download starts. */
export interface DownloadSize {
  /** Bytes to download, or null when not known until the download starts. */
  bytes: number | null;
  /**
   * Where the figure comes from: `manifest`, summed from the model's own file listing (web-llm's
   * tensor-cache.json) plus the server's lengths; `server`, the length the server gives for the file (a HEAD
   * request); `table`, the published size this release knows (approximate: shown as "about"); `unknown`.
   */
  basis: 'manifest' | 'server' | 'table' | 'unknown';
  /** The host the files come from (e.g. huggingface.co). */
  host: string;
  /** What the figure covers, in a few words (e.g. "weights and model library"). */
  covers?: string;
}

/**
 * Which engine serves a model and where it runs. What an engine kind says beyond that is under the kind's own key
 * (RuntimeDetails), typed once there: a new kind with details of its own adds its key without touching the others'.
 */
export interface ModelRuntime extends Partial<RuntimeDetails> {
  engine: EngineKind;
  device: 'webgpu' | 'cpu';
}

/** The runtime details of the engine kinds that have any, under the kind's name (web-llm has none). */
export interface RuntimeDetails {
  llamacpp: LlamacppRuntime;
}

/** llama.cpp's runtime: its threads, its wasm build and variant, and where its files are kept, each with why. */
export interface LlamacppRuntime {
  /** CPU threads. */
  threads?: number;
  /** Why this many threads (worker/engine/llamacpp/wasm-build.ts). */
  threadsWhy?: string;
  /** The wllama WebAssembly build chosen for this browser, and why (wasm-build.ts). */
  build?: WasmBuild;
  buildWhy?: string;
  /** The build's wasm variant (its kernels) chosen for this browser, and why (wasm-detect.ts). */
  wasm?: WasmVariant;
  wasmWhy?: string;
  /** Where the model files are kept, and what that means (worker/engine/llamacpp/stores.ts). */
  storage?: StoreChoice;
}

/** wllama's WebAssembly builds: `main` (Memory64, JSPI where the browser has it) and `compat` (32-bit, Asyncify). */
export type WasmBuild = 'main' | 'compat';

/** Each build's wasm variants: llama.cpp's SIMD kernels with relaxed SIMD, on SIMD128, or wllama's own (generic). */
export type WasmVariant = 'relaxed' | 'simd128' | 'generic';

/** Where llama.cpp keeps model files: OPFS, else Cache Storage, else memory for the page's life. */
export type StoreKind = 'opfs' | 'cache-storage' | 'memory';

export interface StoreChoice {
  store: StoreKind;
  /** What it means here (and, for a fallback, why the stores before it could not be used). */
  why: string;
}

/** Service worker → engine worker. */
export type ToEngine =
  | { type: 'generate'; id: string; request: ChatCompletionRequest }
  /** Runs in the same queue as `generate`, with the same replies (`embedding` events, then `finish`). */
  | { type: 'embed'; id: string; request: EmbeddingRequest }
  | { type: 'abort'; id: string }
  | { type: 'status'; id: string }
  /**
   * The name of a Web Lock the service worker holds for its whole life. When the engine is granted it, that
   * service worker is gone (stopped or replaced), and what it was generating on this port is abandoned:
   * Chromium fires no MessagePort `close` to say so.
   */
  | { type: 'watch'; lock: string };

/** Engine worker → service worker. */
export type FromEngine =
  /** Taken in (queued); proves the port is alive. */
  | { type: 'accepted'; id: string }
  /** Checks passed, generation begins: the service worker may now send its 200. */
  | { type: 'start'; id: string; fingerprint: string; servedBy?: string }
  /**
   * The next events of the generation, in order: those the engine produced in one turn travel together, as
   * the JSON text of an `EngineEvent[]` (packEvents / unpackEvents).
   */
  | { type: 'events'; id: string; events: PackedEvents }
  | { type: 'end'; id: string }
  /** `spent`: what a generation that had started cost before it failed (prompt + completion tokens so far). */
  | { type: 'error'; id: string; error: ApiErrorData; spent?: Usage }
  /**
   * After an `abort` of a generation that had started: what it cost until it stopped (prompt + completion tokens
   * generated so far), or null when the engine cannot tell. Nothing follows it.
   */
  | { type: 'aborted'; id: string; spent: Usage | null }
  | { type: 'status'; id: string; models: ModelStatus[] }
  /**
   * The engine worker holds the Web Lock named in the port's offer (`PortOffer.lock`), sent once it does: the
   * page hands the port over before that (the lock is not on the request's path), so the service worker starts
   * watching the lock only now, or it would be granted it at once and take a live engine for a dead one.
   */
  | { type: 'holding'; lock: string };

/**
 * Events as they cross the engine port: JSON text, one event a line (JSON.stringify never writes a raw line
 * break). The service worker rebuilds many small objects from JSON.parse several times faster than from a
 * structured clone of the same array (measured with the DevTools profiler on a 20,000-token stream: 488 ms of
 * message handling and 195 ms of garbage collection fell to about 150 ms and 26 ms), and a string crosses the
 * port as one flat copy. A delta that carries text alone (nearly every event of a stream) travels as its bare
 * JSON string, and is not parsed on arrival: it becomes a `TextDelta`, whose JSON a stream's chunk writer copies
 * into its chunk as it is (in Chromium, splitting and copying 64,000 such lines took about a quarter of the time
 * of parsing them and writing each string again).
 */
export type PackedEvents = string & { readonly __packedEvents: true };

/**
 * A delta that carries text alone, as it crossed the engine port: `json` is its text as a JSON string (what
 * JSON.stringify wrote in the engine worker). `content` parses it on first read.
 */
export class TextDelta {
  readonly type = 'delta' as const;
  private text: string | undefined;
  constructor(readonly json: string) {}
  get content(): string {
    return (this.text ??= JSON.parse(this.json) as string);
  }
  /** Whether the text is not empty, told without parsing (`""` is the empty text). */
  get hasText(): boolean {
    return this.json.length > 2;
  }
}

/** A delta event carries text (content or reasoning); a TextDelta is told without parsing it. */
export function carriesText(event: EngineEvent): boolean {
  if (event instanceof TextDelta) return event.hasText;
  return event.type === 'delta' && !!(event.content || event.reasoning);
}

const textAlone = (e: EngineEvent): e is { type: 'delta'; content: string } =>
  e.type === 'delta' && typeof e.content === 'string' && e.reasoning === undefined && e.logprobs === undefined;

export function packEvents(events: readonly EngineEvent[]): PackedEvents {
  let out = '';
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    const json = e instanceof TextDelta ? e.json : JSON.stringify(textAlone(e) ? e.content : e);
    out += i === 0 ? json : `\n${json}`;
  }
  return out as PackedEvents;
}

export function unpackEvents(packed: PackedEvents): EngineEvent[] {
  if (packed.length === 0) return [];
  const lines = packed.split('\n');
  const events = new Array<EngineEvent>(lines.length);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    // A JSON string opens with a quote; an event object never does.
    events[i] = line.charCodeAt(0) === 34 ? new TextDelta(line) : (JSON.parse(line) as EngineEvent);
  }
  return events;
}

/** The last event of an embeddings request: every input token is a prompt token, nothing is generated. */
export function embeddingFinish(promptTokens: number): EngineEvent {
  return {
    type: 'finish',
    finish_reason: 'stop',
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: 0,
      total_tokens: promptTokens,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    },
  };
}
