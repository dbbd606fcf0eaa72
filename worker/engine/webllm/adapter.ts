// The web-llm engine: one MLCEngine behind the five chat variants. Variants sharing weights share the loaded
// model (thinking is switched per request); everything that touches the MLCEngine runs one at a time.
// svc-embed runs on a second MLCEngine (embedder.ts), created on first use, so loading it never unloads the chat
// model; its GPU memory is set aside from the budget the chat models' contexts are sized against.
import type { AppConfig, ChatCompletionChunk, ChatCompletionMessageParam, MLCEngineConfig, MLCEngineInterface } from '@mlc-ai/web-llm';
import type { InpageConfig } from '#shared/config';
import type { AdapterReport, ImportFile, ImportProgress, ImportReport } from '#shared/wire/engine-control';
import type { DownloadSize, ModelRuntime, ModelStatus } from '#shared/wire/engine-port';
import type { Fetch } from '../common/download-size';
import { webllmDownloadSize } from './download-size';
import { ApiError, clientAborted } from '#shared/protocol/errors';
import type { PlannedRequest } from '../common/plan';
import { catalogOf } from '#shared/catalog';
import { variantIn, type ModelCatalog } from '#shared/model-config';
import { modelNotFound } from '#shared/protocol/errors';
import type { ModelId, Variant } from '#shared/variants';
import type { EmbeddingRequest } from '#shared/protocol/embeddings';
import type { Engine, Generation } from '../engine';
import { assertSupported } from '../common/request-support';
import { ModelCache, type CacheFunctions } from './cache';
import { budgetOf, contextLength, memoryBudgetMB, smallerContext } from './context-size';
import { generationError, isOutOfMemory } from './errors';
import type { DeviceLostListener, GpuProbe } from '../common/gpu';
import { resolveImages, type ImageReader, type ResolvedImage } from '../common/images';
import { imageUrlAllowed } from '#shared/csp';
import { KvMemory } from './kv-reuse';
import { ModelStates } from '../common/model-states';
import {
  EMPTY_THINK_BLOCK,
  WEBLLM_DEFAULT_CONTEXT,
  appConfigFor,
  baseRecord,
  hasThinkingSwitch,
  toolFormatOf,
  kvShape,
  modelIdOf,
  webllmModels,
  weightGroups,
  type Precision,
} from './models';
import { Mutex } from '../common/mutex';
import type { LoadedModelView } from './prompt-tokens';
import { promptBudget, rawPromptBudget } from './prompt-budget';
import { WebLlmRun, type RunOptions } from './stream';
import { WebLlmEmbedder } from './embedder';
import { loadFailed, startLoad, type Loading } from './loading';
import { assertSchemasSupported, assertToolsSupported } from './schema-support';
import { translateRequest } from './translate';
import { completionChunks, translateCompletion } from './raw-completion';

/** Everything the adapter needs from web-llm and the browser; index.ts wires the real ones. */
export interface WebLlmDeps {
  /** A new MLCEngine (web-llm's `new MLCEngine(config)`); called once. */
  createEngine(config: MLCEngineConfig): MLCEngineInterface;
  cache: CacheFunctions;
  probeGpu(): Promise<GpuProbe>;
  /** The loaded model's tokenizer and chat template, or null when web-llm does not let us see them. */
  inspect(engine: MLCEngineInterface, modelId: string): LoadedModelView | null;
  images: ImageReader;
  watchDeviceLoss(listener: DeviceLostListener): void;
  /** The page's origin, against which relative model URLs resolve. */
  origin: string;
  /** For the download size asked before a download (the manifest, a HEAD); default: the global fetch. */
  fetch?: Fetch;
}

/** Tokens of Qwen3's empty thinking block when the tokenizer cannot be asked: <think>, \n\n, </think>, \n\n. */
const EMPTY_THINK_TOKENS_QWEN3 = 4;

interface Loaded {
  group: string;
  modelId: string;
  view: LoadedModelView | null;
}

interface RunningState {
  failure: ApiError | null;
}

const aborted = clientAborted;

export class WebLlmEngine implements Engine {
  private readonly states: ModelStates;
  private readonly mutex = new Mutex();
  private readonly appConfig: AppConfig;
  private readonly cache: ModelCache;
  private readonly mlc: MLCEngineInterface;
  private probe: GpuProbe | null = null;
  private readying: Promise<void> | null = null;
  private loaded: Loaded | null = null;
  /** The embedding model, on a second MLCEngine (embedder.ts). */
  private readonly embedder: WebLlmEmbedder;
  private running: RunningState | null = null;
  /** What web-llm holds of the last turn on the loaded model, so the next turn can keep its KV cache. */
  private readonly kv = new KvMemory();

  /** The deployment's catalog, as the engine worker built it (engine-worker-main.ts). */
  private readonly catalog: ModelCatalog;

  /** `catalog`: the engine worker's; without it (an engine on its own, in tests), built here from the config. */
  constructor(
    private readonly config: InpageConfig,
    private readonly deps: WebLlmDeps,
    catalog?: ModelCatalog,
  ) {
    this.catalog = catalog ?? catalogOf(config.models, "the deployment's models setting");
    // The deployment's models: checked here against this web-llm release (throws naming a bad entry).
    webllmModels(this.catalog);
    this.states = new ModelStates(WEBLLM_DEFAULT_CONTEXT, this.catalog);
    this.appConfig = appConfigFor(this.catalog, config, deps.origin);
    this.cache = new ModelCache(deps.cache, this.appConfig);
    this.mlc = deps.createEngine({ appConfig: this.appConfig, logLevel: 'WARN' });
    this.embedder = new WebLlmEmbedder({
      loading: this.loading(),
      mutex: this.mutex,
      createEngine: () => deps.createEngine({ appConfig: this.appConfig, logLevel: 'WARN' }),
      modelId: (variant) => modelIdOf(this.catalog, variant, this.precision()),
    });
    deps.watchDeviceLoss((message) => this.deviceLost(message));
  }

  /** Probes the GPU, sizes every model's context and reads the cache; status() is truthful afterwards. */
  ready(): Promise<void> {
    this.readying ??= this.init();
    return this.readying;
  }

  private async init(): Promise<void> {
    const probe = await this.deps.probeGpu();
    this.probe = probe;
    const precision = this.precision();
    // The embedding model may be loaded beside any chat model: its memory is not the chat model's to use.
    const embedderMB = weightGroups(this.catalog)
      .filter((v) => v.embeddings)
      .reduce((sum, v) => sum + (baseRecord(this.catalog, modelIdOf(this.catalog, v, precision)).vram_required_MB ?? 0), 0);
    const budget = budgetOf(probe, Math.max(0, memoryBudgetMB(this.config.gpuMemoryMB, probe.deviceMemoryGiB) - embedderMB));
    await Promise.all(
      weightGroups(this.catalog).map(async (variant) => {
        if (!probe.report.available) {
          this.states.set(variant.weightGroup, 'unavailable', { error: probe.report.reason ?? 'WebGPU is not available.' });
          return;
        }
        const modelId = modelIdOf(this.catalog, variant, precision);
        this.states.setModel(variant.weightGroup, modelId, baseRecord(this.catalog, modelId).vram_required_MB);
        if (variant.embeddings) {
          // An encoder's window is fixed by its build (512 tokens); it keeps no KV cache.
          this.states.setContext(variant.weightGroup, variant.trainedContext);
          this.states.settle(variant.weightGroup, await this.cache.has(modelId));
          return;
        }
        const shape = kvShape(this.catalog, variant);
        this.states.setContext(
          variant.weightGroup,
          // A configured model whose KV shape is not given keeps web-llm's default context.
          shape
            ? contextLength({
                shape,
                precision,
                vramRequiredMB: baseRecord(this.catalog, modelId).vram_required_MB ?? 0,
                trainedContext: variant.trainedContext,
                budget,
              })
            : Math.min(WEBLLM_DEFAULT_CONTEXT, variant.trainedContext),
        );
        this.states.settle(variant.weightGroup, await this.cache.has(modelId));
      }),
    );
  }

  private precision(): Precision {
    return this.probe?.report.shaderF16 ? 'f16' : 'f32';
  }

  status(): ModelStatus[] {
    return this.states.status();
  }

  onStatus(listener: () => void): void {
    this.states.onChange(listener);
  }

  runtime(): ModelRuntime {
    return { engine: 'webllm', device: 'webgpu' };
  }

  async adapter(): Promise<AdapterReport> {
    await this.ready();
    return { ...this.probe!.report, features: [...this.probe!.report.features] };
  }

  private async usable(): Promise<void> {
    await this.ready();
    const report = this.probe!.report;
    if (!report.available) {
      throw new ApiError('webgpu_unavailable', `WebGPU is not available in this browser, so no model can run: ${report.reason ?? 'no adapter'}`);
    }
  }

  private variant(id: ModelId): Variant {
    const variant = variantIn(this.catalog, id);
    if (!variant) throw modelNotFound(id);
    return variant;
  }

  async load(id: ModelId): Promise<void> {
    await this.usable();
    const variant = this.variant(id);
    await this.mutex.run(async () => {
      if (variant.embeddings) await this.embedder.ensureLoaded(variant);
      else await this.ensureLoaded(variant);
    });
  }

  async unload(): Promise<void> {
    await this.ready();
    await this.mutex.run(async () => {
      await this.embedder.unload();
      const loaded = this.loaded;
      if (!loaded) return;
      this.loaded = null;
      this.kv.forget();
      await this.mlc.unload();
      this.states.settle(loaded.group, true);
    });
  }

  /**
   * Reads the cache again for the models that are neither loading nor loaded: files imported from a folder show
   * as cached, and weights the browser evicted show as not downloaded (the next use downloads them again).
   */
  async rescan(): Promise<void> {
    await this.ready();
    if (!this.probe?.report.available) return;
    const precision = this.precision();
    await Promise.all(
      weightGroups(this.catalog).map(async (variant) => {
        const group = variant.weightGroup;
        const before = this.states.state(group);
        if (before !== 'cached' && before !== 'not_downloaded') return;
        const cached = await this.cache.has(modelIdOf(this.catalog, variant, precision));
        // A load may have begun meanwhile; it owns the state then.
        if (this.states.state(group) === before && cached !== (before === 'cached')) this.states.settle(group, cached);
      }),
    );
  }

  async deleteFromCache(id: ModelId): Promise<void> {
    await this.ready();
    const variant = this.variant(id);
    const modelId = modelIdOf(this.catalog, variant, this.precision());
    await this.mutex.run(async () => {
      if (this.embedder.holds(variant.weightGroup)) await this.embedder.unload();
      if (this.loaded?.group === variant.weightGroup) {
        this.loaded = null;
        this.kv.forget();
        await this.mlc.unload();
      }
      try {
        await this.cache.remove(modelId);
      } finally {
        if (this.probe?.report.available) this.states.settle(variant.weightGroup, await this.cache.has(modelId));
      }
    });
  }

  /** Download sizes found so far, by web-llm model id (an unknown one is asked again next time). */
  private readonly sizes = new Map<string, Promise<DownloadSize>>();

  async downloadSize(id: ModelId): Promise<DownloadSize> {
    await this.ready();
    const modelId = modelIdOf(this.catalog, this.variant(id), this.precision());
    const record = this.appConfig.model_list.find((r) => r.model_id === modelId);
    if (!record) return { bytes: null, basis: 'unknown', host: '' };
    let size = this.sizes.get(modelId);
    if (!size) {
      const fetchFn = this.deps.fetch ?? ((input, init) => fetch(input, init));
      size = webllmDownloadSize(record, fetchFn);
      this.sizes.set(modelId, size);
      void size.then((s) => s.bytes === null && this.sizes.delete(modelId));
    }
    return size;
  }

  /** Loads the variant's weights unless they are the ones loaded. Call with the mutex held. */
  private async ensureLoaded(variant: Variant): Promise<Loaded> {
    const modelId = modelIdOf(this.catalog, variant, this.precision());
    if (this.loaded?.modelId === modelId) return this.loaded;
    const group = variant.weightGroup;
    // web-llm unloads whatever is loaded before it loads the next model.
    const previous = this.loaded;
    this.loaded = null;
    this.kv.forget();
    if (previous) this.states.settle(previous.group, true);
    const tracker = await startLoad(this.loading(), this.mlc, group, modelId);
    let context = this.states.context(group);
    for (;;) {
      try {
        await this.mlc.reload(modelId, { context_window_size: context });
        // reload() returns quietly when something aborted it; make sure the model is really there.
        await this.mlc.getMessage(modelId);
        break;
      } catch (err) {
        const smaller = isOutOfMemory(err) ? smallerContext(context, variant.trainedContext) : null;
        if (smaller === null) throw await loadFailed(this.loading(), err, variant, modelId);
        // Out of GPU memory: this device holds less context than estimated. Try the next size down.
        context = smaller;
        this.states.setContext(group, context);
      }
    }
    this.states.setSize(group, tracker.weightBytes);
    this.states.set(group, 'ready');
    this.loaded = { group, modelId, view: this.deps.inspect(this.mlc, modelId) };
    return this.loaded;
  }

  async embed(request: EmbeddingRequest, signal: AbortSignal): Promise<Generation> {
    await this.usable();
    return this.embedder.embed(request, signal);
  }

  /** What loading a model on either MLCEngine needs of this engine (loading.ts). */
  private loading(): Loading {
    return { appConfig: this.appConfig, cache: this.cache, states: this.states };
  }

  supports(request: PlannedRequest): void {
    assertSupported(request);
    assertToolsSupported(this.catalog, request);
    assertSchemasSupported(request, toolFormatOf(this.catalog, request.variant) !== 'none');
  }

  /** web-llm's cache code, loaded when first needed (production shares the engine's copy of web-llm). */
  async importFiles(files: ImportFile[], onProgress?: (progress: ImportProgress) => void): Promise<ImportReport> {
    const { importIntoCache } = await import('./import-files');
    const report = await importIntoCache(this.catalog, files, this.config, this.deps.origin, onProgress);
    await this.rescan();
    return report;
  }

  async cachedModels(): Promise<string[]> {
    const { cachedModelIds } = await import('./import-files');
    return cachedModelIds(this.catalog, this.config, this.deps.origin);
  }

  /** `request` has passed `supports` (the scheduler asked it once, before queueing): not checked again here. */
  async generate(request: PlannedRequest, signal: AbortSignal): Promise<Generation> {
    await this.usable();
    const { variant } = request;
    const allowed = (url: string) => imageUrlAllowed(url, this.config, this.deps.origin);
    const images: Map<string, ResolvedImage> = variant.vision ? await resolveImages(request.messages, this.deps.images, signal, allowed) : new Map();
    const release = await this.mutex.acquire();
    let handedOver = false;
    try {
      if (signal.aborted) throw aborted();
      const loaded = await this.ensureLoaded(variant);
      const prompt = request.plan.rawPrompt;
      if (prompt !== undefined) {
        // Legacy completions: web-llm's own completions API (`completion()`, behind `completions.create`), the prompt as it is (no template, no thinking).
        // web-llm resets its conversation for a raw prompt: whatever chat turn it held is gone.
        this.kv.forget();
        const promptTokens = rawPromptBudget(loaded.view, this.states.context(loaded.group), request, prompt);
        if (signal.aborted) throw aborted();
        const running = this.begin();
        const stream = await this.mlc.completion(translateCompletion(request.plan, loaded.modelId, prompt));
        const run = this.newRun(running, completionChunks(stream), signal, release, {
          thinking: false,
          splitThinking: false,
          stops: [],
          ...(promptTokens !== undefined ? { promptTokens } : {}),
        });
        handedOver = true;
        await run.start();
        return { fingerprint: `fp_${loaded.modelId}`, events: run.events(), spent: () => run.spent() };
      }
      const thinkingSwitch = hasThinkingSwitch(this.catalog, variant);
      const emptyThinkTokens = thinkingSwitch ? (loaded.view?.countTokens(EMPTY_THINK_BLOCK) ?? EMPTY_THINK_TOKENS_QWEN3) : 0;
      const toolFormat = toolFormatOf(this.catalog, variant);
      const translation = translateRequest(request, { modelId: loaded.modelId, images, emptyThinkTokens, thinkingSwitch, toolFormat });
      const seen = translation.request.messages;
      const { sent, promptTokens } = this.planPrompt(request, loaded, seen, images, translation.thinkingSwitchedOff);
      if (signal.aborted) throw aborted();
      const running = this.begin();
      // web-llm's conversation is this request's from here on; it is remembered again when the turn ends well.
      this.kv.forget();
      const stream = await this.mlc.chatCompletion({ ...translation.request, messages: sent });
      const modelId = loaded.modelId;
      const run = this.newRun(running, stream[Symbol.asyncIterator](), signal, release, {
        thinking: translation.thinking,
        splitThinking: thinkingSwitch,
        stops: translation.answerStops,
        toolFormat: translation.toolFormat,
        topLogprobs: translation.topLogprobs,
        nativeStops: translation.request.stop !== undefined,
        ...(promptTokens !== undefined ? { promptTokens } : {}),
        heldReply: () => this.mlc.getMessage(modelId),
        turnEnded: (turn) => {
          if (turn && this.loaded?.modelId === modelId && !running.failure) this.kv.remember(modelId, { sent, seen, ...turn });
        },
      });
      handedOver = true;
      await run.start();
      return { fingerprint: `fp_${loaded.modelId}`, events: run.events(), spent: () => run.spent() };
    } catch (err) {
      throw err instanceof ApiError ? err : generationError(err);
    } finally {
      if (!handedOver) {
        this.running = null;
        release();
      }
    }
  }

  /** The generation about to start on the chat MLCEngine: what a lost GPU device fails (deviceLost). */
  private begin(): RunningState {
    const running: RunningState = { failure: null };
    this.running = running;
    return running;
  }

  /**
   * A run of web-llm's stream on the chat MLCEngine, for chat and legacy completions alike: the client's abort
   * interrupts it, a lost device fails it, and when it settles it frees the engine (`release`).
   */
  private newRun(
    running: RunningState,
    chunks: AsyncIterator<ChatCompletionChunk>,
    signal: AbortSignal,
    release: () => void,
    options: Omit<RunOptions, 'signal' | 'interrupt' | 'failure' | 'settled'>,
  ): WebLlmRun {
    return new WebLlmRun(chunks, {
      ...options,
      signal,
      interrupt: () => void this.mlc.interruptGenerate(),
      failure: () => running.failure,
      settled: () => {
        if (this.running === running) this.running = null;
        release();
      },
    });
  }

  /**
   * The messages to send: the conversation as web-llm holds it when the request continues it (kv-reuse.ts),
   * unless that (with its earlier thinking) no longer fits the context while the client's own messages do.
   */
  private planPrompt(
    request: PlannedRequest,
    loaded: Loaded,
    seen: ChatCompletionMessageParam[],
    images: ReadonlyMap<string, ResolvedImage>,
    thinkingSwitchedOff: boolean,
  ): { sent: ChatCompletionMessageParam[]; promptTokens: number | undefined } {
    const plan = this.kv.plan(loaded.modelId, seen);
    if (plan.continues) {
      try {
        return {
          sent: plan.messages,
          promptTokens: promptBudget(loaded.view, this.states.context(loaded.group), request, plan.messages, images, thinkingSwitchedOff),
        };
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 'context_length_exceeded')) throw err;
      }
    }
    return { sent: seen, promptTokens: promptBudget(loaded.view, this.states.context(loaded.group), request, seen, images, thinkingSwitchedOff) };
  }

  /** A GPU device was lost: fail the running generation, and load the model again on a new device. */
  private deviceLost(message: string): void {
    const loaded = this.loaded;
    if (!loaded) return; // lost during a load: that load fails (or retries) by itself
    this.loaded = null;
    this.kv.forget();
    const failure = new ApiError(
      'engine_unavailable',
      `The GPU device was lost during generation (${message}); the engine is loading the model again. Retry the request.`,
    );
    if (this.running) {
      this.running.failure = failure;
      void this.mlc.interruptGenerate();
    }
    this.states.set(loaded.group, 'loading', { error: `GPU device lost: ${message}` });
    const variant = weightGroups(this.catalog).find((v) => v.weightGroup === loaded.group)!;
    void this.mutex.run(() => this.ensureLoaded(variant)).catch(() => undefined);
  }
}
