// The production engine: one of two implementations behind the one Engine seam, chosen once per worker.
// vite's `#engine-impl` alias points here for `npm run build`.
//  - `engineChoice: "webllm"` / `"llamacpp"` in the deployment's config forces one;
//  - `auto` (the default): web-llm where its WebGPU needs are met (an adapter with web-llm's limits),
//    llama.cpp on the CPU otherwise.
// Each engine is a chunk of its own, loaded only when chosen.
import type { InpageConfig } from '../../src/config';
import type { AdapterReport, ImportFile, ImportProgress, ImportReport } from '../../src/engine-control';
import type { DownloadSize, ModelRuntime, ModelStatus } from '../../src/engine-protocol';
import type { ChatCompletionRequest } from '../../src/protocol/types';
import type { EmbeddingRequest } from '../../src/protocol/embeddings';
import { ApiError } from '../../src/protocol/errors';
import type { VariantId } from '../../src/variants';
import type { Engine, EngineFactory, Generation } from './engine';
import { probeGpu, type GpuProbe } from './webllm/gpu';

export type EngineKind = 'webllm' | 'llamacpp';

/** The policy, on its own for unit tests. */
export function chooseEngine(setting: string, probe: Pick<GpuProbe, 'report'>): { kind: EngineKind; reason: string } {
  if (setting === 'webllm') return { kind: 'webllm', reason: 'The deployment chose web-llm (engineChoice: "webllm").' };
  if (setting === 'llamacpp') return { kind: 'llamacpp', reason: 'The deployment chose llama.cpp (engineChoice: "llamacpp"); models run on the CPU.' };
  if (probe.report.available) return { kind: 'webllm', reason: 'WebGPU meets web-llm\'s needs.' };
  return { kind: 'llamacpp', reason: `llama.cpp on the CPU: ${probe.report.reason ?? 'no usable WebGPU adapter'}` };
}

class ChosenEngine implements Engine {
  private inner: Engine | null = null;
  private choosing: Promise<Engine> | null = null;
  private probe: GpuProbe | null = null;
  private readonly listeners: (() => void)[] = [];
  kind: EngineKind | null = null;

  constructor(private readonly config: InpageConfig) {}

  private engine(): Promise<Engine> {
    this.choosing ??= (async () => {
      const probe = await probeGpu();
      this.probe = probe;
      const { kind, reason } = chooseEngine(this.config.engineChoice, probe);
      this.kind = kind;
      const engine =
        kind === 'webllm'
          ? (await import('./webllm-engine')).createEngine(this.config)
          : (await import('./llamacpp-engine')).createLlamaCppEngine(this.config, reason);
      for (const listener of this.listeners) engine.onStatus(listener);
      this.inner = engine;
      return engine;
    })();
    return this.choosing;
  }

  async ready(): Promise<void> {
    const engine = await this.engine();
    await engine.ready?.();
  }

  supports(request: ChatCompletionRequest): void {
    // Before the choice is made (never after init), generate() checks anyway.
    this.inner?.supports?.(request);
  }

  async generate(request: ChatCompletionRequest, signal: AbortSignal): Promise<Generation> {
    return (await this.engine()).generate(request, signal);
  }

  async embed(request: EmbeddingRequest, signal: AbortSignal): Promise<Generation> {
    const engine = await this.engine();
    if (!engine.embed) {
      throw new ApiError('webgpu_unavailable', `'${request.model}' runs on web-llm (WebGPU) only; this device runs the ${this.kind} engine, which has no embedding model.`);
    }
    return engine.embed(request, signal);
  }

  status(): ModelStatus[] {
    const statuses = this.inner?.status() ?? [];
    if (!this.kind) return statuses;
    const threads = (this.inner as { threads?: () => number }).threads?.();
    const runtime: ModelRuntime = this.kind === 'webllm' ? { engine: 'webllm', device: 'webgpu' } : { engine: 'llamacpp', device: 'cpu', ...(threads ? { threads } : {}) };
    return statuses.map((s) => ({ ...s, runtime }));
  }

  onStatus(listener: () => void): void {
    this.listeners.push(listener);
    this.inner?.onStatus(listener);
  }

  async adapter(): Promise<AdapterReport> {
    const engine = await this.engine();
    // llama.cpp reports the GPU as the probe saw it: the page shows what WebGPU there is either way.
    return this.kind === 'llamacpp' && this.probe ? { ...this.probe.report, features: [...this.probe.report.features] } : engine.adapter();
  }

  async load(id: VariantId): Promise<void> {
    return (await this.engine()).load(id);
  }

  async unload(): Promise<void> {
    return (await this.engine()).unload();
  }

  async deleteFromCache(id: VariantId): Promise<void> {
    return (await this.engine()).deleteFromCache(id);
  }

  async downloadSize(id: VariantId): Promise<DownloadSize> {
    const engine = await this.engine();
    return engine.downloadSize ? engine.downloadSize(id) : { bytes: null, basis: 'unknown', host: '' };
  }

  async rescan(): Promise<void> {
    await (await this.engine()).rescan?.();
  }

  async importFiles(files: ImportFile[], onProgress?: (progress: ImportProgress) => void): Promise<ImportReport> {
    const engine = await this.engine();
    if (!engine.importFiles) throw new Error(`The ${this.kind} engine cannot import model files yet.`);
    return engine.importFiles(files, onProgress);
  }

  async cachedModels(): Promise<string[]> {
    return (await (await this.engine()).cachedModels?.()) ?? [];
  }
}

export const createEngine: EngineFactory = (config) => new ChosenEngine(config);
