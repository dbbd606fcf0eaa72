// The device's engine (class DeviceEngine): the one Engine the engine worker runs in `npm run build` (vite's
// `#engine-impl` alias points here), made of the engine kinds the registry lists (registry.ts), chosen once per worker:
//  - `engineChoice: "<kind>"` in the deployment's config forces one;
//  - `auto` (the default): the first kind in the registry's order that can run here (web-llm where its WebGPU needs
//    are met, an adapter with web-llm's limits; llama.cpp, on the CPU or WebGPU, otherwise).
// Each engine is a chunk of its own, loaded only when chosen.
import type { InpageConfig } from '#shared/config';
import type { AdapterReport, ImportFile, ImportProgress, ImportReport } from '#shared/wire/engine-control';
import type { DownloadSize, EngineRequest, ModelRuntime, ModelStatus } from '#shared/wire/engine-port';
import type { PlannedRequest } from './common/plan';
import { isEmbeddingRequest, type EmbeddingRequest } from '#shared/protocol/embeddings';
import { ApiError } from '#shared/protocol/errors';
import type { ModelId, Variant } from '#shared/variants';
import { catalogOf } from '#shared/catalog';
import { variantIn, type ModelCatalog } from '#shared/model-config';
import { ENGINE_KIND_SPECS, isEngineKind, type EngineKind } from '#shared/engine-kinds/specs';
import type { Engine, EngineFactory, Generation, LocalSide, Side } from './engine';
import { complete, type CompleteEngine } from './capabilities';
import { probeGpu, type GpuProbe } from './common/gpu';
import { ENGINES, ENGINE_ORDER } from './registry';

/** The policy, on its own for unit tests. */
export function chooseEngine(setting: string, probe: Pick<GpuProbe, 'report'>): { kind: EngineKind; reason: string } {
  if (isEngineKind(setting)) return { kind: setting, reason: ENGINES[setting].forcedWhy };
  let last: { kind: EngineKind; reason: string } | undefined;
  for (const engine of ENGINE_ORDER) {
    const { ok, why } = engine.canRun(probe);
    last = { kind: engine.kind, reason: why };
    if (ok) return last;
  }
  // None says it can: the last one tries, and says why it may not.
  return last!;
}

/**
 * Which engine takes which files of an import, by each engine's `imports` (registry.ts): `.gguf` files are
 * llama.cpp's, the rest (web-llm's folders: mlc-chat-config.json, shards, tokenizer) web-llm's. `running`: the
 * engines this device runs. Files for an engine that does not run here are not imported, and the report says why;
 * where the engine of the rest does not run and nothing else was routed, the files go to an engine that runs
 * (which names the files it expected).
 */
export function importRoutes(files: ImportFile[], running: EngineKind[]): { routes: [EngineKind, ImportFile[]][]; problems: string[] } {
  const routes: [EngineKind, ImportFile[]][] = [];
  const problems: string[] = [];
  const claimed = new Set<ImportFile>();
  let restKind: EngineKind | undefined;
  for (const engine of ENGINE_ORDER) {
    if (engine.imports === 'rest') {
      restKind ??= engine.kind;
      continue;
    }
    const pattern = engine.imports;
    const mine = files.filter((f) => !claimed.has(f) && pattern.test(f.path));
    if (mine.length === 0) continue;
    for (const f of mine) claimed.add(f);
    if (running.includes(engine.kind)) routes.push([engine.kind, mine]);
    else if (engine.notImported) problems.push(engine.notImported(mine.map((f) => f.path.split('/').pop()).join(', ')));
  }
  const rest = files.filter((f) => !claimed.has(f));
  if (rest.length > 0 || (routes.length === 0 && problems.length === 0)) {
    if (restKind && running.includes(restKind)) routes.push([restKind, rest]);
    else if (routes.length === 0 && running[0]) routes.push([running[0], files]);
  }
  return { routes, problems };
}

/** Where an engine runs its models, for the status (and so /v1/models and the Models area). */
function runtimeOf(kind: EngineKind, engine: CompleteEngine): ModelRuntime {
  return engine.runtime() ?? { engine: kind, device: ENGINES[kind].device };
}

/** What the composite is made of: the device probe and each engine's factory (the real ones load as chunks). */
export interface DeviceEngineParts {
  probe(): Promise<GpuProbe>;
  create(kind: EngineKind, config: InpageConfig, catalog: ModelCatalog, why: string, probe: GpuProbe): Promise<Engine>;
}

const realParts: DeviceEngineParts = {
  probe: () => probeGpu(),
  create: (kind, config, catalog, why, probe) => ENGINES[kind].create(config, catalog, why, probe),
};

/**
 * The device's engine, plus the other one where the deployment's `models` setting ties a variant to it
 * (`engine` in an entry, or a model that exists for one engine only). Each request, load and deletion goes to the
 * engine of its variant; one chat model is loaded at a time across both.
 */
export class DeviceEngine implements Engine {
  private readonly engines: Partial<Record<EngineKind, CompleteEngine>> = {};
  /** Why an engine this device needs could not be created (its models are unavailable, saying this). */
  private readonly failed: Partial<Record<EngineKind, string>> = {};
  private choosing: Promise<void> | null = null;
  private probe: GpuProbe | null = null;
  private readonly listeners: (() => void)[] = [];
  /** The engine the device's policy picks (variants the `models` setting does not tie to one). */
  kind: EngineKind | null = null;

  /** The deployment's catalog, as the engine worker built it (engine-worker-main.ts): which variants are tied to which engine. */
  private readonly catalog: ModelCatalog;

  /** `catalog`: the engine worker's; without it (the device's engine on its own, in tests), built here from the config. */
  constructor(
    private readonly config: InpageConfig,
    private readonly parts: DeviceEngineParts = realParts,
    catalog?: ModelCatalog,
  ) {
    // A bad `models` entry stops the start, naming it.
    this.catalog = catalog ?? catalogOf(config.models, "the deployment's models setting");
  }

  private setup(): Promise<void> {
    this.choosing ??= (async () => {
      const probe = await this.parts.probe();
      this.probe = probe;
      const { kind, reason } = chooseEngine(this.config.engineChoice, probe);
      this.kind = kind;
      const needed = new Set<EngineKind>([kind, ...this.catalog.variants.flatMap((v) => (v.engine && v.engine !== 'upstream' ? [v.engine] : []))]);
      for (const each of [kind, ...[...needed].filter((k) => k !== kind)]) {
        const why = each === kind ? reason : ENGINES[each].tiedWhy;
        // An engine that cannot start here leaves its models unavailable, saying why; the other engine still runs.
        let engine: CompleteEngine;
        try {
          engine = complete(await this.parts.create(each, this.config, this.catalog, why, probe));
        } catch (err) {
          if (err instanceof Error && err.name === 'ModelConfigError') throw err;
          this.failed[each] = `${ENGINE_KIND_SPECS[each].label} could not start in this browser: ${err instanceof Error ? err.message : String(err)}`;
          continue;
        }
        for (const listener of this.listeners) engine.onStatus(listener);
        this.engines[each] = engine;
      }
    })();
    return this.choosing;
  }

  /** The engine kind of `id`'s variant: the one a request brought (resolved once, in the service worker), else the catalog's. */
  private kindOf(id: string, variant: Pick<Variant, 'engine'> | undefined = variantIn(this.catalog, id)): EngineKind {
    const engine = variant?.engine;
    // An id only an upstream answers never reaches this device's engines (the hybrid composite routes it).
    if (engine === 'upstream') throw new ApiError('upstream_unavailable', `'${id}' is answered by an upstream server only; this device has no model for it.`);
    return engine ?? this.kind!;
  }

  /** The engine of `id` (of the kind `kindNow` resolves), once the device's engine is chosen. */
  private async engineOf(id: string, kindNow: () => EngineKind = () => this.kindOf(id)): Promise<{ kind: EngineKind; engine: CompleteEngine }> {
    await this.setup();
    const kind = kindNow();
    const engine = this.engines[kind];
    if (!engine) throw new ApiError('engine_unavailable', `'${id}' cannot run here: ${this.failed[kind]}`);
    return { kind, engine };
  }

  /**
   * The one side of a request for `id`: the engine of its variant (the request's own, as the service worker resolved
   * it; an embeddings request's from the catalog), resolved once for the request (when the scheduler asks `supports`,
   * or at `generate` if the device's engine was not chosen yet), and asked `supports` once: by the scheduler, or by
   * `generate` where nobody asked before (a request before the choice, a direct call).
   */
  private sideOf(id: string, variant?: Variant): LocalSide {
    let kind: EngineKind | undefined;
    const kindNow = () => (kind ??= this.kindOf(id, variant));
    let checked = false;
    return {
      kind: 'local',
      supports: (request) => {
        // Before the choice is made (never after init), generate checks instead.
        if (!this.kind) return;
        this.engines[kindNow()]?.supports(request);
        checked = true;
      },
      generate: async (request, signal) => {
        const on = await this.engineOf(id, kindNow);
        if (!checked) on.engine.supports(request);
        await this.only(on.kind);
        return on.engine.generate(request, signal);
      },
      embed: async (request, signal) => {
        // The engine of the embedding variant, as for every other request; only web-llm has embedding models today.
        const on = await this.engineOf(id, kindNow);
        if (!on.engine.has.has('embed')) {
          throw new ApiError(
            'webgpu_unavailable',
            `'${request.model}' runs on web-llm (WebGPU) only; this device runs the ${on.kind} engine, which has no embedding model.`,
          );
        }
        return on.engine.embed(request, signal);
      },
    };
  }

  route(request: EngineRequest): readonly Side[] {
    return [isEmbeddingRequest(request) ? this.sideOf(request.model) : this.sideOf(request.variant.id, request.variant)];
  }

  /** Before a chat model loads on one engine, the other unloads its own: one model in memory at a time. */
  private async only(kind: EngineKind): Promise<void> {
    for (const [other, engine] of Object.entries(this.engines) as [EngineKind, CompleteEngine][]) if (other !== kind) await engine.unload();
  }

  async ready(): Promise<void> {
    await this.setup();
    await Promise.all(Object.values(this.engines).map((e) => e.ready()));
  }

  supports(request: PlannedRequest): void {
    this.sideOf(request.variant.id, request.variant).supports(request);
  }

  /** Called directly (not through the scheduler's side): checks the request, as nobody asked `supports`. */
  generate(request: PlannedRequest, signal: AbortSignal): Promise<Generation> {
    return this.sideOf(request.variant.id, request.variant).generate(request, signal);
  }

  embed(request: EmbeddingRequest, signal: AbortSignal): Promise<Generation> {
    return this.sideOf(request.model).embed(request, signal);
  }

  status(): ModelStatus[] {
    if (!this.kind) return [];
    const byKind = Object.entries(this.engines).map(([kind, engine]) => [kind as EngineKind, engine.status(), runtimeOf(kind as EngineKind, engine)] as const);
    return this.catalog.variants.flatMap((v): ModelStatus[] => {
      if (v.engine === 'upstream') return [];
      const kind = v.engine ?? this.kind!;
      const failure = this.failed[kind];
      if (failure) return [{ id: v.id, state: 'unavailable', context_length: v.trainedContext, error: failure }];
      const [, statuses, runtime] = byKind.find(([k]) => k === kind) ?? [];
      const status = statuses?.find((s) => s.id === v.id);
      if (!status) return [];
      // Tied by the deployment to the engine this device did not pick, and that engine cannot serve it: say both.
      if (kind !== this.kind && status.state === 'unavailable' && status.error) {
        return [
          {
            ...status,
            runtime: runtime!,
            error: `The deployment's models setting ties ${v.id} to ${ENGINE_KIND_SPECS[kind].label}, which cannot run it here: ${status.error}`,
          },
        ];
      }
      return [{ ...status, runtime: runtime! }];
    });
  }

  onStatus(listener: () => void): void {
    this.listeners.push(listener);
    for (const engine of Object.values(this.engines)) engine.onStatus(listener);
  }

  async adapter(): Promise<AdapterReport> {
    await this.setup();
    // The device's engine could not start: the page says why, not that a model might run.
    const failure = this.failed[this.kind!];
    if (failure) return { features: [], shaderF16: false, ...this.probe?.report, available: false, reason: failure };
    const own = ENGINES[this.kind!].adapter;
    if (own && this.probe) return own(this.probe, this.engines[this.kind!]);
    return this.engines[this.kind!]!.adapter();
  }

  async load(id: ModelId): Promise<void> {
    const { kind, engine } = await this.engineOf(id);
    await this.only(kind);
    return engine.load(id);
  }

  async unload(): Promise<void> {
    await this.setup();
    for (const engine of Object.values(this.engines)) await engine.unload();
  }

  async deleteFromCache(id: ModelId): Promise<void> {
    return (await this.engineOf(id)).engine.deleteFromCache(id);
  }

  async downloadSize(id: ModelId): Promise<DownloadSize> {
    return (await this.engineOf(id)).engine.downloadSize(id);
  }

  async rescan(): Promise<void> {
    await this.setup();
    await Promise.all(Object.values(this.engines).map((e) => e.rescan()));
  }

  async importFiles(files: ImportFile[], onProgress?: (progress: ImportProgress) => void): Promise<ImportReport> {
    await this.setup();
    const running = (Object.keys(this.engines) as EngineKind[]).filter((k) => this.engines[k]?.has.has('importFiles'));
    if (running.length === 0) throw new Error(`The ${this.kind} engine cannot import model files yet.`);
    const { routes, problems } = importRoutes(files, running);
    const report: ImportReport = { imported: [], problems };
    for (const [kind, some] of routes) {
      const part = await this.engines[kind]!.importFiles(some, onProgress);
      report.imported.push(...part.imported);
      report.problems.push(...part.problems);
    }
    return report;
  }

  async cachedModels(): Promise<string[]> {
    await this.setup();
    return (await Promise.all(Object.values(this.engines).map((e) => e.cachedModels()))).flat();
  }
}

export const createEngine: EngineFactory = (config, catalog) => new DeviceEngine(config, realParts, catalog);
