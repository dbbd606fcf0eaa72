// The contract every engine implementation meets: web-llm in production, the deterministic one in tests.
import type { AdapterReport, ImportFile, ImportProgress, ImportReport } from '../../src/engine-control';
import type { InpageConfig } from '../../src/config';
import type { DownloadSize, EngineEvent, ModelStatus } from '../../src/engine-protocol';
import type { ChatCompletionRequest, Usage } from '../../src/protocol/types';
import type { ModelId } from '../../src/variants';
import type { EmbeddingRequest } from '../../src/protocol/embeddings';

export interface Generation {
  /** Names the weights that answer, for `system_fingerprint`. */
  fingerprint: string;
  events: AsyncIterable<EngineEvent>;
  /**
   * Optional: what the generation cost when it ended without its `finish` (aborted, or failed part-way): the
   * prompt's tokens and the completion tokens generated so far, so they are booked to the key as a hosted
   * service bills them. Settles once the engine has stopped generating. Engines without it: the service worker
   * books the pieces it delivered.
   */
  spent?(): Promise<Usage | null>;
}

/** Usage of a generation that ended early: `prompt` tokens and `completion` tokens generated so far. */
export function spentUsage(prompt: number, completion: number, cached = 0, reasoning = 0): Usage {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: Math.min(cached, prompt) },
    completion_tokens_details: { reasoning_tokens: Math.min(reasoning, completion) },
  };
}

export interface Engine {
  /**
   * Optional: settles once the engine knows its device and what is cached, so status() is truthful. The
   * engine worker awaits it in init(); engines without it are truthful from the start.
   */
  ready?(): Promise<void>;
  /**
   * Optional: throws the ApiError (400 `unsupported_parameter`) for the first field of `request` this engine
   * cannot honour for its variant. The scheduler asks before it queues a request, so a refusal never waits;
   * `generate` checks again. Engines without it refuse in `generate`.
   */
  supports?(request: ChatCompletionRequest): void;
  /**
   * Loads the variant if needed and checks the request against it (context length, supported fields).
   * Throws an ApiError before anything is generated; afterwards failures are thrown from `events`.
   * Aborting `signal` ends `events` promptly.
   */
  generate(request: ChatCompletionRequest, signal: AbortSignal): Promise<Generation>;
  /**
   * Optional: embeds `request.input` with its embedding variant (loaded beside the chat model, never in its
   * place): `embedding` events, one per input in order, then a `finish` whose usage counts the prompt tokens.
   * Throws an ApiError before anything is produced, as `generate` does. Engines without it answer embeddings
   * requests with 400 `invalid_value` (the scheduler says so).
   */
  embed?(request: EmbeddingRequest, signal: AbortSignal): Promise<Generation>;
  status(): ModelStatus[];
  /** Called on every status change, including download progress. */
  onStatus(listener: () => void): void;
  adapter(): Promise<AdapterReport>;
  load(id: ModelId): Promise<void>;
  unload(): Promise<void>;
  deleteFromCache(id: ModelId): Promise<void>;
  /**
   * Optional: reads again which models are cached, for models neither loading nor loaded: after files were
   * imported into the cache, or when the browser may have evicted them. Engines without it never change.
   */
  rescan?(): Promise<void>;
  /**
   * Optional: writes the models found among `files` (a model's folder, or `npm run models:pull` output) into
   * this engine's cache, then rescans. Engines without it cannot import (the page says so).
   */
  importFiles?(files: ImportFile[], onProgress?: (progress: ImportProgress) => void): Promise<ImportReport>;
  /**
   * Optional: how much downloading the model's files would fetch and from where, measured small (a manifest,
   * a HEAD request) or from a published table; never made up (`bytes: null` when not known). Engines without
   * it: unknown.
   */
  downloadSize?(id: ModelId): Promise<DownloadSize>;
  /** Optional: the engine's own ids of the models whose files are all in its cache. */
  cachedModels?(): Promise<string[]>;
}

export type EngineFactory = (config: InpageConfig) => Engine;
