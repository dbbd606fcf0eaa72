// What the page can ask of the engine worker it hosts (exposed with Comlink).
import type { InpageConfig } from './config';
import type { ModelStatus } from './engine-protocol';
import type { VariantId } from './variants';

export interface AdapterReport {
  /** False when the browser offers no WebGPU adapter; `reason` says why. */
  available: boolean;
  reason?: string;
  vendor?: string;
  architecture?: string;
  description?: string;
  features: string[];
  /** Whether models run as q4f16 (true) or the q4f32 fallback. */
  shaderF16: boolean;
}

export interface EngineControl {
  /** Must be called once, first. */
  init(config: InpageConfig): Promise<void>;
  /** Answers at once while the worker is alive: the page's heartbeat. */
  ping(): Promise<true>;
  /**
   * Serves the service worker on `port` (transferred). With `lock`, resolves once the worker holds that Web
   * Lock, which it keeps for as long as it lives (the service worker waits on it to notice the engine is gone).
   */
  connect(port: MessagePort, lock?: string): Promise<void>;
  status(): Promise<ModelStatus[]>;
  /** `listener` (a Comlink proxy) hears every status change, download progress included. */
  subscribe(listener: (models: ModelStatus[]) => void): void;
  adapter(): Promise<AdapterReport>;
  load(id: VariantId): Promise<void>;
  unload(): Promise<void>;
  deleteFromCache(id: VariantId): Promise<void>;
  /** Reads again which models are cached (after an import into the cache, or an eviction by the browser). */
  rescan(): Promise<void>;
}
