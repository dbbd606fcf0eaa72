// The contract every engine implementation meets: web-llm in production, the deterministic one in tests.
import type { AdapterReport } from '../../src/engine-control';
import type { InpageConfig } from '../../src/config';
import type { EngineEvent, ModelStatus } from '../../src/engine-protocol';
import type { ChatCompletionRequest } from '../../src/protocol/types';
import type { VariantId } from '../../src/variants';

export interface Generation {
  /** Names the weights that answer, for `system_fingerprint`. */
  fingerprint: string;
  events: AsyncIterable<EngineEvent>;
}

export interface Engine {
  /**
   * Optional: settles once the engine knows its device and what is cached, so status() is truthful. The
   * engine worker awaits it in init(); engines without it are truthful from the start.
   */
  ready?(): Promise<void>;
  /**
   * Loads the variant if needed and checks the request against it (context length, supported fields).
   * Throws an ApiError before anything is generated; afterwards failures are thrown from `events`.
   * Aborting `signal` ends `events` promptly.
   */
  generate(request: ChatCompletionRequest, signal: AbortSignal): Promise<Generation>;
  status(): ModelStatus[];
  /** Called on every status change, including download progress. */
  onStatus(listener: () => void): void;
  adapter(): Promise<AdapterReport>;
  load(id: VariantId): Promise<void>;
  unload(): Promise<void>;
  deleteFromCache(id: VariantId): Promise<void>;
  /**
   * Optional: reads again which models are cached, for models neither loading nor loaded: after files were
   * imported into the cache, or when the browser may have evicted them. Engines without it never change.
   */
  rescan?(): Promise<void>;
}

export type EngineFactory = (config: InpageConfig) => Engine;
