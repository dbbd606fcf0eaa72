// What the page can ask of the engine worker it hosts (exposed with Comlink).
import type { InpageConfig } from '../config';
import type { DownloadSize, ModelStatus } from './engine-port';
import type { ModelId } from '../variants';

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
  /**
   * Set when llama.cpp runs the models on this device's CPU because web-llm has no usable WebGPU here: the page
   * then says the models run on the CPU (slower), not that nothing can run. `threads`: what llama.cpp uses.
   */
  cpu?: { threads: number };
}

/** A file picked from a folder for import into the model cache, with its path inside the folder. */
export interface ImportFile {
  path: string;
  file: Blob;
}

export interface ImportProgress {
  modelId: string;
  path: string;
  bytesDone: number;
  bytesTotal: number;
}

export interface ImportedModel {
  /** web-llm's model id, e.g. Qwen3-1.7B-q4f16_1-MLC. */
  modelId: string;
  variants: ModelId[];
  /** Where in the selection its files were. */
  folder: string;
  files: number;
  bytes: number;
  warnings: string[];
}

export interface ImportReport {
  imported: ImportedModel[];
  /** Folders that were not imported, and why. */
  problems: string[];
}

/**
 * What an engine can do for the page besides answering requests, declared once: the engine worker's `Engine`
 * implements each as an optional capability (worker/engine/capabilities.ts applies the defaults), and the page's
 * control surface below is these plus the worker's own lifecycle.
 */
export interface EngineCapabilities {
  adapter(): Promise<AdapterReport>;
  load(id: ModelId): Promise<void>;
  unload(): Promise<void>;
  deleteFromCache(id: ModelId): Promise<void>;
  /** How much a download of the model's files would fetch, and from where (asked before downloading). */
  downloadSize(id: ModelId): Promise<DownloadSize>;
  /** Reads again which models are cached (after an import into the cache, or an eviction by the browser). */
  rescan(): Promise<void>;
  /**
   * Writes the models found among `files` (a model's folder, or `npm run models:pull` output) into the engine's
   * cache under its model source, then rescans. `onProgress` is a Comlink proxy.
   */
  importFiles(files: ImportFile[], onProgress?: (progress: ImportProgress) => void): Promise<ImportReport>;
  /** The engine's own ids of the models whose files are all in its cache. */
  cachedModels(): Promise<string[]>;
}

/**
 * What the test of an upstream connection found (the workspace's *Test* button, docs/hybrid.md): the server answered
 * `GET {url}/models`, with the model names it lists; or why not: the HTTP status it answered (null: it was not
 * reached: down, blocked by CORS, offline, or silent past its timeout), inpage's error code and message.
 */
export type ConnectionTest = { ok: true; models: string[] } | { ok: false; status: number | null; code: string; message: string };

/** The page → engine worker surface (Comlink): the worker's lifecycle, then every engine capability. */
export interface EngineControl extends EngineCapabilities {
  /**
   * Before init, where the worker is a model provider's (docs/shared-models.md): keep model files in `root`, the
   * OPFS folder of the provider's StorageAccessHandle, rather than the worker's own (partitioned) folder. It also
   * makes the worker a provider's engine: it runs the provider's local models only, never an upstream (the config's
   * `upstreams` and any saved connections are ignored), so no consumer site can send a prompt off the device.
   */
  useStorage(root: FileSystemDirectoryHandle): Promise<void>;
  /**
   * Before init, on a consumer site whose model provider refused it a model (docs/shared-models.md): `port` (transferred)
   * reaches the provider's engine through its frame; the provider keeps serving the models it allows, this engine the
   * others.
   */
  useProvider(port: MessagePort, origin: string): Promise<void>;
  /** Must be called once, first (after useStorage and useProvider, where those are called). */
  init(config: InpageConfig): Promise<void>;
  /**
   * After init: requests that may wait from now on (the `queueDepth` setting as a page that started later read it,
   * page-messages.ts SETTINGS_CHANNEL). Those waiting already keep their place.
   */
  useQueueDepth(depth: number): Promise<void>;
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
  /**
   * Asks the server of the person's saved connection `name` for its models, as the upstream engine sends its
   * requests (worker/engine/upstream/), from the engine worker: the page's CSP lets the page reach no upstream.
   */
  testConnection(name: string): Promise<ConnectionTest>;
}
