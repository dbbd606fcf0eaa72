// The llama.cpp engine: @wllama/wllama (llama.cpp in WebAssembly, llama-server's loop inside) running GGUF
// models on the CPU, in this (the engine) worker. One model is loaded at a time; variants sharing weights share
// it (thinking is Qwen3's per-request template switch). Everything touching wllama runs one at a time.
import type { InpageConfig } from '#shared/config';
import type { AdapterReport, ImportFile, ImportProgress, ImportReport } from '#shared/wire/engine-control';
import type { DownloadSize, ModelRuntime, ModelStatus, StoreChoice, WasmBuild, WasmVariant } from '#shared/wire/engine-port';
import { contentLength } from '../common/download-size';
import { imageUrlAllowed } from '#shared/csp';
import { ApiError, clientAborted, modelNotFound } from '#shared/protocol/errors';
import type { ChatCompletionRequest } from '#shared/protocol/types';
import { servedAs, type PlannedRequest } from '../common/plan';
import { catalogOf } from '#shared/catalog';
import { variantIn, type ModelCatalog } from '#shared/model-config';
import type { ModelId, Variant } from '#shared/variants';
import type { Engine, Generation } from '../engine';
import { assertSupported } from '../common/request-support';
import { ModelStates } from '../common/model-states';
import { Mutex } from '../common/mutex';
import { resolveImages } from '../common/images';
import { loadError } from './errors';
import { imageBytes, type LlamaImageReader } from './images';
import { importGguf, type GgufCacheWriter } from './import-files';
import { fileName, ggufSource, servedByLlama, splitParts, weightGroups, type GgufSource } from './models';
import { LlamaRun, type LlamaChunk } from './run';
import { assertSchemasSupported, forcesCall, translateRequest, type LlamaParams } from './translate';
import { formatBytes } from '#shared/bytes';

/** The part of wllama's `Wllama` this engine uses (a fake stands in for it in unit tests). */
export interface WllamaLike {
  loadModelFromUrl(
    source: { url: string; mmprojUrl?: string },
    params: { n_ctx: number; n_threads: number; n_gpu_layers: number; useCache: boolean; progressCallback?: (p: { loaded: number; total: number }) => void },
  ): Promise<void>;
  getLoadedContextInfo(): { n_ctx: number; n_ctx_train: number; success?: boolean } & Record<string, unknown>;
  getNumThreads(): number;
  createChatCompletion(options: LlamaParams & { stream: true; abortSignal: AbortSignal; [key: string]: unknown }): Promise<AsyncIterable<LlamaChunk>>;
  exit(): Promise<void>;
  /**
   * The last native exception llama.cpp logged since the previous call, and forgets it (wllama, since 3.8.1, turns such an
   * exception into "Invalid typed array length"; its text comes only through the native log).
   */
  takeNativeError?(): string | null;
}

export interface CachedModel {
  url: string;
  size: number;
}

export interface LlamaCppDeps {
  /** A new Wllama instance (one per loaded model). */
  create(): WllamaLike;
  /**
   * The GGUF models in wllama's cache (complete ones only), and a way to remove one; `store`: where the files are
   * kept on this device, and what that means (stores.ts).
   */
  cache: { list(): Promise<CachedModel[]>; remove(url: string): Promise<void>; store?(): Promise<StoreChoice> } & Partial<GgufCacheWriter>;
  /** Threads llama.cpp may use here (1 without cross-origin isolation). */
  threads: number;
  /** wllama's build for this browser and why, why this many threads (wasm-build.ts), its wasm variant and why (wasm-detect.ts). */
  wasm?: { build: WasmBuild; buildWhy: string; threadsWhy: string; variant: WasmVariant; variantWhy: string };
  /**
   * Whether llama.cpp offloads the model's layers to WebGPU: its WebGPU backend needs an adapter with
   * `shader-f16` (without one it stays on the CPU); absent or false: the CPU only.
   */
  gpu?: boolean;
  /** What the device offers, for the "too large" check: bytes a model may take (0: unknown, no check). */
  memoryBudgetBytes: number;
  origin: string;
  /** How image parts are read (fetched, decoded, re-encoded where llama.cpp cannot decode the format). */
  images: LlamaImageReader;
  /** Why this engine serves the models (for the adapter report). */
  reason: string;
}

/** Context llama.cpp gets per model: enough for real use, small enough for a CPU's memory. */
export const LLAMA_CONTEXT = 4096;

interface Loaded {
  group: string;
  url: string;
  wllama: WllamaLike;
  context: number;
  threads: number;
}

const webllmOnly = (variant: Variant) =>
  `${variant.id} runs on web-llm (WebGPU) only (${variant.embeddings ? 'llama.cpp has no embedding model' : "the deployment's models setting ties it to web-llm"}); this device runs llama.cpp.`;

export class LlamaCppEngine implements Engine {
  /** Built after the deployment's catalog is adopted (its weight groups are the states' keys). */
  private readonly states: ModelStates;
  private readonly mutex = new Mutex();
  private readying: Promise<void> | null = null;
  private loaded: Loaded | null = null;
  /** Where the model files are kept here, once tried (ready()). */
  private storage: StoreChoice | undefined;

  /** The deployment's catalog, as the engine worker built it (engine-worker-main.ts). */
  private readonly catalog: ModelCatalog;
  /**
   * Each variant's GGUF source and the variant as served here, resolved once per variant object: the catalog's once,
   * a request's (a copy from the service worker) once for the request, in `supports` and then in `generate`.
   */
  private readonly sources = new WeakMap<Variant, GgufSource>();
  private readonly servedVariants = new WeakMap<Variant, Variant>();

  /** `catalog`: the engine worker's; without it (an engine on its own, in tests), built here from the config. */
  constructor(
    private readonly config: InpageConfig,
    private readonly deps: LlamaCppDeps,
    catalog?: ModelCatalog,
  ) {
    // The deployment's catalog (a bad `models` entry stops the engine here, naming it).
    this.catalog = catalog ?? catalogOf(config.models, "the deployment's models setting");
    this.states = new ModelStates(LLAMA_CONTEXT, this.catalog);
    for (const variant of weightGroups(this.catalog)) {
      const source = this.source(variant);
      this.states.setContext(variant.weightGroup, Math.min(source.context ?? LLAMA_CONTEXT, variant.trainedContext));
      // The model's name on its card: the GGUF file (family, size and quantisation are in its name).
      this.states.setModel(variant.weightGroup, fileName(source.url), undefined);
    }
    // Models llama.cpp cannot serve (the embedding model, models tied to web-llm) are listed, unavailable, and say why.
    const served = new Set(weightGroups(this.catalog).map((v) => v.weightGroup));
    for (const variant of this.catalog.variants.filter((v) => !served.has(v.weightGroup))) {
      this.states.setContext(variant.weightGroup, variant.trainedContext);
      this.states.set(variant.weightGroup, 'unavailable', { error: webllmOnly(variant) });
    }
  }

  /** The variant as llama.cpp serves it: a default that always thinks (svc-vision's Qwen3-VL Thinking) thinks. */
  private effective(variant: Variant): Variant {
    return this.source(variant).alwaysThinks && !variant.thinks ? { ...variant, thinks: true } : variant;
  }

  private variant(id: ModelId): Variant {
    const variant = variantIn(this.catalog, id);
    if (!variant) throw modelNotFound(id);
    return this.served(variant);
  }

  /** The variant as served here (resolved once per variant); a variant llama.cpp cannot serve is refused. */
  private served(variant: Variant): Variant {
    let served = this.servedVariants.get(variant);
    if (!served) {
      if (!servedByLlama(variant, this.catalog)) throw new ApiError('webgpu_unavailable', webllmOnly(variant));
      served = this.effective(variant);
      this.servedVariants.set(variant, served);
      // The same weights, so the same files (ggufSource reads the weight group).
      if (served !== variant) this.sources.set(served, this.source(variant));
    }
    return served;
  }

  private source(variant: Variant): GgufSource {
    let source = this.sources.get(variant);
    if (!source) {
      source = ggufSource(variant, this.config, this.deps.origin, this.catalog);
      this.sources.set(variant, source);
    }
    return source;
  }

  private describe(variant: Variant): string {
    return `${variant.id} (GGUF ${this.source(variant).url})`;
  }

  ready(): Promise<void> {
    this.readying ??= (async () => {
      // The store is tried once, before the cache is read (a missing one falls back: stores.ts).
      await this.readStorage();
      await this.rescanAll();
    })();
    return this.readying;
  }

  /** Where the files are kept; read again after each load, which may have found the store full (stores.ts `spill`). */
  private async readStorage(): Promise<void> {
    if (this.deps.cache.store) this.storage = await this.deps.cache.store().catch(() => this.storage);
  }

  private async rescanAll(): Promise<void> {
    const cached = await this.deps.cache.list().catch(() => [] as CachedModel[]);
    for (const variant of weightGroups(this.catalog)) {
      const group = variant.weightGroup;
      const state = this.states.state(group);
      if (state !== 'cached' && state !== 'not_downloaded') continue;
      const hit = cached.find((m) => m.url === this.source(variant).url);
      if (hit) this.states.setSize(group, hit.size);
      if ((state === 'cached') !== !!hit) this.states.settle(group, !!hit);
    }
  }

  status(): ModelStatus[] {
    return this.states.status().map((s) => {
      const variant = variantIn(this.catalog, s.id);
      if (!variant) return s;
      // A variant tied to web-llm that shares its weights with one llama.cpp serves.
      if (!servedByLlama(variant, this.catalog)) return { id: s.id, state: 'unavailable', context_length: s.context_length, error: webllmOnly(variant) };
      // Too large for this device: unavailable, saying why, before anyone asks to download it.
      const tooLarge = this.tooLarge(variant);
      if (tooLarge)
        return { ...s, state: 'unavailable', error: tooLarge.message, ...(this.effective(variant).thinks !== variant.thinks ? { thinks: true } : {}) };
      // What the model serving it here does, where that differs from the catalog's promise.
      return this.effective(variant).thinks !== variant.thinks ? { ...s, thinks: true } : s;
    });
  }

  onStatus(listener: () => void): void {
    this.states.onChange(listener);
  }

  async adapter(): Promise<AdapterReport> {
    return {
      available: false,
      reason: this.deps.reason,
      features: [],
      shaderF16: false,
    };
  }

  /** Where llama.cpp runs the models here. */
  device(): 'webgpu' | 'cpu' {
    return this.deps.gpu ? 'webgpu' : 'cpu';
  }

  /** Threads the loaded model runs on (or would run on). */
  threads(): number {
    return this.loaded?.threads ?? this.deps.threads;
  }

  runtime(): ModelRuntime {
    const threads = this.threads();
    const wasm = this.deps.wasm;
    return {
      engine: 'llamacpp',
      device: this.device(),
      llamacpp: {
        ...(threads ? { threads } : {}),
        ...(wasm ? { build: wasm.build, buildWhy: wasm.buildWhy, threadsWhy: wasm.threadsWhy, wasm: wasm.variant, wasmWhy: wasm.variantWhy } : {}),
        ...(this.storage ? { storage: this.storage } : {}),
      },
    };
  }

  async load(id: ModelId): Promise<void> {
    const variant = this.variant(id);
    await this.ready();
    await this.mutex.run(() => this.ensureLoaded(variant));
  }

  async unload(): Promise<void> {
    await this.mutex.run(async () => {
      const loaded = this.loaded;
      if (!loaded) return;
      this.loaded = null;
      await loaded.wllama.exit();
      this.states.settle(loaded.group, true);
    });
  }

  async rescan(): Promise<void> {
    await this.ready();
    await this.rescanAll();
  }

  /**
   * Writes the GGUF files of this deployment's models found among `files` (by name: see import-files.ts) into
   * wllama's cache under the URLs they would be downloaded from, then reads the cache again.
   */
  async importFiles(files: ImportFile[], onProgress?: (progress: ImportProgress) => void): Promise<ImportReport> {
    const cache = this.deps.cache;
    if (!cache.put) throw new Error('This llama.cpp engine has no cache to import into.');
    await this.ready();
    const report = await this.mutex.run(() => importGguf(files, (v) => this.source(v), { put: cache.put!.bind(cache) }, this.catalog, onProgress));
    await this.rescanAll();
    return report;
  }

  async deleteFromCache(id: ModelId): Promise<void> {
    const variant = this.variant(id);
    await this.mutex.run(async () => {
      if (this.loaded?.group === variant.weightGroup) {
        const loaded = this.loaded;
        this.loaded = null;
        await loaded.wllama.exit();
      }
      try {
        await this.deps.cache.remove(this.source(variant).url);
      } finally {
        this.states.settle(variant.weightGroup, false);
      }
    });
  }

  /**
   * The GGUF download: the lengths its server gives (HEAD) for the model's files (every part of a split model)
   * and its projector, else the size this release knows (published, approximate) or the deployment gave.
   */
  async downloadSize(id: ModelId): Promise<DownloadSize> {
    const source = this.source(this.variant(id));
    const host = new URL(source.url).host;
    // A split model's parts are all known here (the configured list, or derived from the first part's name).
    const files = source.files.length > 1 ? source.files : splitParts(source.url);
    const urls = [...files, ...(source.mmprojUrl ? [source.mmprojUrl] : [])];
    const covers = source.mmprojUrl ? 'model and vision projector files' : files.length > 1 ? `model's ${files.length} split files` : 'model file';
    const fetchFn = (input: string, init?: RequestInit) => fetch(input, init);
    const signal = AbortSignal.timeout(15_000);
    const lengths = await Promise.all(urls.map((url) => contentLength(url, fetchFn, signal)));
    if (lengths.every((n) => n !== null)) return { bytes: lengths.reduce((a, b) => a! + b!, 0), basis: 'server', host, covers };
    return source.bytes > 0 ? { bytes: source.bytes, basis: 'table', host, covers } : { bytes: null, basis: 'unknown', host };
  }

  /** The refusal of a model whose files alone exceed what this device can give it; null when it fits. */
  private tooLarge(variant: Variant): ApiError | null {
    const source = this.source(variant);
    const budget = this.deps.memoryBudgetBytes;
    if (budget <= 0 || source.bytes <= budget) return null;
    return new ApiError(
      'model_too_large_for_device',
      `${variant.id} runs here on llama.cpp on ${this.device() === 'webgpu' ? 'WebGPU' : 'the CPU'}, and its GGUF weights (${source.quantization ? `${source.quantization}, ` : ''}${formatBytes(source.bytes)}) do not fit the memory this device can give a model (${formatBytes(budget)}). Use a smaller variant, or a device with WebGPU.`,
    );
  }

  /** Refuses a model whose files alone exceed what this device can give it. */
  private checkFits(variant: Variant): void {
    const refusal = this.tooLarge(variant);
    if (refusal) throw refusal;
  }

  /** Loads the variant's weights unless they are the ones loaded. Call with the mutex held. */
  private async ensureLoaded(variant: Variant): Promise<Loaded> {
    const source = this.source(variant);
    if (this.loaded?.url === source.url) return this.loaded;
    this.checkFits(variant);
    const group = variant.weightGroup;
    const what = this.describe(variant);
    const previous = this.loaded;
    this.loaded = null;
    if (previous) {
      await previous.wllama.exit().catch(() => undefined);
      this.states.settle(previous.group, true);
    }
    const cached = (await this.deps.cache.list().catch(() => [] as CachedModel[])).some((m) => m.url === source.url);
    this.states.set(group, cached ? 'loading' : 'downloading');
    const started = performance.now();
    const wllama = this.deps.create();
    const context = this.states.context(group);
    try {
      await wllama.loadModelFromUrl(source.mmprojUrl ? { url: source.url, mmprojUrl: source.mmprojUrl } : { url: source.url }, {
        n_ctx: context,
        n_threads: this.deps.threads,
        // Every layer on WebGPU where the adapter has shader-f16 (wllama's default count), else the CPU only
        // (0 also keeps wllama from starting its WebGPU backend at all).
        n_gpu_layers: this.deps.gpu ? 99999 : 0,
        useCache: true,
        progressCallback: ({ loaded, total }) => {
          if (cached) return;
          const seconds = (performance.now() - started) / 1000;
          const rate = seconds > 0 ? loaded / seconds : 0;
          const percent = total > 0 ? Math.min(100, (loaded / total) * 100) : 0;
          const left = rate > 0 && total > loaded ? Math.round((total - loaded) / rate) : 0;
          this.states.set(group, loaded >= total && total > 0 ? 'loading' : 'downloading', {
            progress: {
              phase: loaded >= total && total > 0 ? 'load' : 'download',
              bytesDone: loaded,
              bytesTotal: total,
              percent,
              text: `${(loaded / 1e6).toFixed(1)} of ${(total / 1e6).toFixed(1)} MB, ${(rate / 1e6).toFixed(1)} MB/s${left ? `, ${left} s left` : ''}`,
            },
          });
        },
      });
      // wllama (since 3.8.1) resolves even when llama.cpp could not load the file: its context info says so.
      const info = wllama.getLoadedContextInfo();
      if (info.success === false || !(info.n_ctx > 0)) {
        throw new Error(
          source.mmprojUrl
            ? `llama.cpp could not load the model with its vision projector (mmproj ${source.mmprojUrl}): one of them is not a GGUF file llama.cpp supports or is a truncated download, or the mmproj was made for another model`
            : 'llama.cpp could not load the file (not a GGUF model llama.cpp supports, or a truncated download)',
        );
      }
      if (source.mmprojUrl && info.has_image_input !== true) {
        throw new Error(
          `llama.cpp loaded the model but not its vision projector (${source.mmprojUrl}): not an mmproj GGUF llama.cpp supports, or one made for another model`,
        );
      }
      const loaded: Loaded = { group, url: source.url, wllama, context: info.n_ctx, threads: wllama.getNumThreads() };
      const size = (await this.deps.cache.list().catch(() => [] as CachedModel[])).find((m) => m.url === source.url)?.size;
      if (size) this.states.setSize(group, size);
      await this.readStorage();
      this.states.setContext(group, info.n_ctx);
      this.states.set(group, 'ready');
      this.loaded = loaded;
      return loaded;
    } catch (err) {
      await wllama.exit().catch(() => undefined);
      const error = loadError(err, what);
      const stillCached = (await this.deps.cache.list().catch(() => [] as CachedModel[])).some((m) => m.url === source.url);
      this.states.settle(group, stillCached, error.message);
      throw error;
    }
  }

  supports(request: PlannedRequest): void {
    const variant = this.served(request.variant);
    assertSupported({ ...request, variant });
    assertSchemasSupported(request);
    if (request.reasoning_effort === 'none' && this.source(variant).alwaysThinks) {
      throw new ApiError(
        'unsupported_parameter',
        `Unsupported parameter: 'reasoning_effort' "none" cannot be honoured: on llama.cpp '${request.model}' runs ${fileName(this.source(variant).url)}, a model that always thinks.`,
        { param: 'reasoning_effort' },
      );
    }
    // A vision variant reads images only with its vision projector; without one it refuses them as a text model
    // does (the same 400 as the service worker gives a text variant).
    const image = firstImagePart(request);
    if (image && !this.source(variant).mmprojUrl) {
      throw new ApiError(
        'unsupported_parameter',
        `The model '${request.model}' does not take image input ('${image}'): its llama.cpp model (GGUF ${this.source(variant).url}) has no vision projector (mmproj) configured.`,
        { param: image },
      );
    }
  }

  /** `request` has passed `supports` (the scheduler asked it once, before queueing): not checked again here. */
  async generate(request: PlannedRequest, signal: AbortSignal): Promise<Generation> {
    await this.ready();
    const variant = this.served(request.variant);
    // The GGUF this engine serves may think where the id's own model does not (svc-vision's default does): the
    // request's one plan, with its thinking for the variant as served (not made again).
    request = servedAs(request, variant);
    // Images are read before the model is touched, so an unreadable one is a clear 400 naming its part.
    const images = new Map<string, ArrayBuffer>();
    if (firstImagePart(request)) {
      const allowed = (url: string) => imageUrlAllowed(url, this.config, this.deps.origin);
      for (const [url, image] of await resolveImages(request.messages, this.deps.images, signal, allowed)) {
        images.set(url, await imageBytes(image, this.deps.images));
      }
    }
    const release = await this.mutex.acquire();
    let handedOver = false;
    try {
      if (signal.aborted) throw clientAborted();
      const loaded = await this.ensureLoaded(variant);
      if (signal.aborted) throw clientAborted();
      const params = translateRequest(request, images);
      const inner = new AbortController();
      // What an earlier request left in the native log is not this one's.
      loaded.wllama.takeNativeError?.();
      const stream = await loaded.wllama.createChatCompletion({
        ...params,
        stream: true,
        stream_options: { include_usage: true },
        // Tokens so far with every chunk (for reasoning tokens), and the prompt's size before generation.
        timings_per_token: true,
        return_progress: true,
        abortSignal: inner.signal,
      });
      const run = new LlamaRun(stream[Symbol.asyncIterator](), {
        stops: request.plan.stops,
        maxTokens: request.plan.maxTokens,
        context: loaded.context,
        signal,
        interrupt: () => inner.abort(),
        settled: release,
        topLogprobs: request.plan.logprobs,
        forcedCall: forcesCall(request.plan.tools),
        nativeError: () => loaded.wllama.takeNativeError?.() ?? null,
      });
      handedOver = true;
      await run.start();
      return { fingerprint: `fp_llamacpp_${variant.weightGroup}`, events: run.events(), spent: () => run.spent() };
    } finally {
      if (!handedOver) release();
    }
  }
}

/** Where the request's first image part is (`messages[i].content[j]`), or null. */
function firstImagePart(request: ChatCompletionRequest): string | null {
  for (const [i, message] of request.messages.entries()) {
    if (!Array.isArray(message.content)) continue;
    const j = message.content.findIndex((part) => part.type === 'image_url');
    if (j >= 0) return `messages[${i}].content[${j}]`;
  }
  return null;
}
