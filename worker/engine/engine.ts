// The contract every engine implementation meets: web-llm in production, the deterministic one in tests.
import type { AdapterReport, EngineCapabilities, ImportFile, ImportProgress, ImportReport } from '#shared/wire/engine-control';
import type { InpageConfig } from '#shared/config';
import type { ModelCatalog } from '#shared/model-config';
import type { DownloadSize, EngineEvent, EngineRequest, ModelRuntime, ModelStatus } from '#shared/wire/engine-port';
import type { ModelId } from '#shared/variants';
import type { Usage } from '#shared/protocol/types';
import type { PlannedRequest } from './common/plan';
import type { GpuProbe } from './common/gpu';
import type { EngineKind } from '#shared/engine-kinds/names';
import { ApiError } from '#shared/protocol/errors';
import type { EmbeddingRequest } from '#shared/protocol/embeddings';

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
  /**
   * Where it runs, for the answer's `x-inpage-served-by` header: `local`, or `upstream; host=…` (hybrid,
   * docs/hybrid.md). Absent: `local`.
   */
  servedBy?: string;
}

/** What runs a request on one side: its generation, its embeddings. */
export interface SideRun {
  generate(request: PlannedRequest, signal: AbortSignal): Promise<Generation>;
  embed(request: EmbeddingRequest, signal: AbortSignal): Promise<Generation>;
}

/**
 * One side of a request: who may answer it, and what runs it there (the scheduler calls the side's own `generate`
 * or `embed`; nobody looks the side up again). The local engine, in its one-at-a-time queue, whose `supports` the
 * scheduler asks before it queues; an upstream server (hybrid, docs/hybrid.md) or the model provider's engine
 * (consumer mode, docs/shared-models.md), each running its requests at once beside that queue, under the side's
 * `name`: an upstream's at most `limit` at once (its `concurrency`); the provider's as many as this site's queue would
 * (one running and `queueDepth` waiting), since the provider's own scheduler queues them. `fallsOver`: the failure
 * codes before the first token that hand the request to the next side (default: the scheduler's list of "this side
 * cannot answer now").
 */
export type Side =
  | LocalSide
  | (SideRun &
      (
        { kind: 'upstream'; name: string; limit: number; fallsOver?: ReadonlySet<string> } | { kind: 'provider'; name: string; fallsOver?: ReadonlySet<string> }
      ));

/** This device's side: the local queue, and the refusal the scheduler asks for before it queues a request. */
export type LocalSide = SideRun & { kind: 'local'; supports(request: PlannedRequest): void };

/** The local side of `engine`: its queue, its refusals, its generations. */
export function localSide(engine: CompleteEngine): LocalSide {
  return {
    kind: 'local',
    supports: (request) => engine.supports(request),
    generate: (request, signal) => engine.generate(request, signal),
    embed: (request, signal) => engine.embed(request, signal),
  };
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

/**
 * The seam every engine implements. Required: answer requests (`generate`) and say what it serves (`status`,
 * `onStatus`). Everything else is an optional capability; `complete()` below gives the rest of the worker one
 * engine with every method, applying the defaults in one place.
 */
export interface Engine extends Partial<EngineCapabilities> {
  /**
   * Loads the variant if needed and checks what only the loaded model can tell (context length). The request comes
   * with its plan (common/plan.ts), computed once before any engine: engines translate the plan; and it has passed
   * `supports`, asked once by the scheduler, so `generate` does not ask it again.
   * Throws an ApiError before anything is generated; afterwards failures are thrown from `events`.
   * Aborting `signal` ends `events` promptly.
   */
  generate(request: PlannedRequest, signal: AbortSignal): Promise<Generation>;
  status(): ModelStatus[];
  /** Called on every status change, including download progress. */
  onStatus(listener: () => void): void;
  /**
   * Optional: settles once the engine knows its device and what is cached, so status() is truthful. Default:
   * truthful from the start.
   */
  ready?(): Promise<void>;
  /**
   * Optional: throws the ApiError (400 `unsupported_parameter`) for the first field of `request` this engine
   * cannot honour for its variant. The scheduler asks once, before it queues a request (the local side's
   * `supports`), so a refusal never waits; `generate` does not check again. Default: refusals come from `generate`.
   */
  supports?(request: PlannedRequest): void;
  /**
   * Optional: embeds `request.input` with its embedding variant (loaded beside the chat model, never in its
   * place): `embedding` events, one per input in order, then a `finish` whose usage counts the prompt tokens.
   * Throws an ApiError before anything is produced, as `generate` does. Default: refused (`Unsupported`).
   */
  embed?(request: EmbeddingRequest, signal: AbortSignal): Promise<Generation>;
  /** Optional: where it runs its models (for statuses, /v1/models and the Models area). Default: not said. */
  runtime?(): ModelRuntime | undefined;
  /**
   * Optional (hybrid, consumer mode, the device's engine): the sides that may answer `request`, in the order to try
   * them, decided before anything is sent, each with what runs it; a failure of one before its first token moves on
   * to the next. Throws an ApiError when none may (mode `upstream` while offline). Default: the local side alone.
   */
  route?(request: EngineRequest): readonly Side[];
}

/** The capabilities the page controls (EngineControl forwards each to the engine), listed for the engine worker. */
export const CONTROL_CAPABILITIES = [
  'adapter',
  'load',
  'unload',
  'deleteFromCache',
  'downloadSize',
  'rescan',
  'importFiles',
  'cachedModels',
] as const satisfies readonly (keyof EngineCapabilities)[];
// Every one of EngineCapabilities, and nothing else: a capability added there and not here fails to compile.
const everyControl: Record<keyof EngineCapabilities, true> = Object.fromEntries(CONTROL_CAPABILITIES.map((name) => [name, true])) as Record<
  (typeof CONTROL_CAPABILITIES)[number],
  true
>;
void everyControl;

/** The optional capabilities, by name. */
export type Capability = Exclude<keyof Engine, 'generate' | 'status' | 'onStatus'>;

/** An engine asked for a capability it does not have: 400 `invalid_value`, naming what it cannot do. */
export class Unsupported extends ApiError {
  constructor(
    readonly capability: Capability,
    what: string,
    param?: string,
  ) {
    super('invalid_value', what, param ? { param } : {});
  }
}

/** The refusal of an embeddings request by an engine without `embed` (the scheduler gives it before queueing). */
export const cannotEmbed = (model: string) => new Unsupported('embed', `This engine cannot create embeddings ('${model}').`, 'model');

/** An engine with every method: its own, or the default of each capability it lacks. */
export type CompleteEngine = Required<Engine> & {
  /** Which optional capabilities the engine itself has (the rest are defaults). */
  readonly has: ReadonlySet<Capability>;
};

/** The engine that `engine` is, with the default of every capability it lacks: the one place defaults live. */
export function complete(engine: Engine): CompleteEngine {
  if ('has' in engine && engine.has instanceof Set) return engine as CompleteEngine;
  // The default route: this engine's local side alone (made once the complete engine exists, below).
  let alone: readonly Side[] = [];
  const defaults: Required<Pick<Engine, Capability>> = {
    ready: async () => undefined,
    supports: () => undefined,
    embed: async (request) => {
      throw cannotEmbed(request.model);
    },
    runtime: () => undefined,
    route: () => alone,
    adapter: async () => ({ available: false, reason: 'This engine reports no GPU.', features: [], shaderF16: false }),
    load: async () => undefined,
    unload: async () => undefined,
    deleteFromCache: async () => undefined,
    downloadSize: async () => ({ bytes: null, basis: 'unknown', host: '' }),
    rescan: async () => undefined,
    importFiles: async () => {
      throw new Unsupported('importFiles', 'This engine cannot import model files.');
    },
    cachedModels: async () => [],
  };
  const has = new Set((Object.keys(defaults) as Capability[]).filter((name) => typeof engine[name] === 'function'));
  const own = (name: Capability) => (has.has(name) ? (engine[name] as (...args: never[]) => unknown).bind(engine) : defaults[name]);
  const whole: CompleteEngine = {
    has,
    generate: engine.generate.bind(engine),
    status: engine.status.bind(engine),
    onStatus: engine.onStatus.bind(engine),
    ...(Object.fromEntries((Object.keys(defaults) as Capability[]).map((name) => [name, own(name)])) as Required<Pick<Engine, Capability>>),
  };
  alone = [localSide(whole)];
  return whole;
}

/** Creates an engine from the deployment's config and the catalog the engine worker built from it once (engine-worker-main.ts). */
export type EngineFactory = (config: InpageConfig, catalog: ModelCatalog) => Engine;

/**
 * An engine that routes: a composite around this device's engine (hybrid.ts, consumer.ts) whose `route` gives the
 * sides that may answer each request; everything else (the device, downloads, the cache, imports) is the device's
 * engine's, delegated here once. Called directly, `generate` and `embed` run on the first side the route names
 * (the scheduler tries the others where that one cannot answer).
 */
export abstract class RoutingEngine implements Engine {
  protected readonly local: CompleteEngine;

  constructor(local: Engine) {
    this.local = complete(local);
  }

  abstract route(request: EngineRequest): readonly Side[];
  abstract status(): ModelStatus[];
  abstract onStatus(listener: () => void): void;

  generate(request: PlannedRequest, signal: AbortSignal): Promise<Generation> {
    return firstSide(this.route(request)).generate(request, signal);
  }
  embed(request: EmbeddingRequest, signal: AbortSignal): Promise<Generation> {
    return firstSide(this.route(request)).embed(request, signal);
  }
  supports(request: PlannedRequest): void {
    this.local.supports(request);
  }
  ready(): Promise<void> {
    return this.local.ready();
  }
  runtime(): ModelRuntime | undefined {
    return this.local.runtime();
  }
  adapter(): Promise<AdapterReport> {
    return this.local.adapter();
  }
  load(id: ModelId): Promise<void> {
    return this.local.load(id);
  }
  unload(): Promise<void> {
    return this.local.unload();
  }
  deleteFromCache(id: ModelId): Promise<void> {
    return this.local.deleteFromCache(id);
  }
  downloadSize(id: ModelId): Promise<DownloadSize> {
    return this.local.downloadSize(id);
  }
  rescan(): Promise<void> {
    return this.local.rescan();
  }
  importFiles(files: ImportFile[], onProgress?: (progress: ImportProgress) => void): Promise<ImportReport> {
    return this.local.importFiles(files, onProgress);
  }
  cachedModels(): Promise<string[]> {
    return this.local.cachedModels();
  }
}

function firstSide(sides: readonly Side[]): Side {
  const side = sides[0];
  if (!side) throw new ApiError('engine_unavailable', 'No side may answer this request.');
  return side;
}

/**
 * One engine kind as the engine worker knows it (worker/engine/<kind>/descriptor.ts, listed once in
 * worker/engine/registry.ts): whether it can run on this device, how it is created, what it imports. What every
 * realm needs of a kind lives in shared code: its `models` entry (src/shared/engine-kinds/<kind>.ts) and its own
 * files, which the build names after it and the service worker caches apart (src/shared/engine-files.ts).
 */
export interface EngineDescriptor<Kind extends EngineKind = EngineKind> {
  kind: Kind;
  /** Why it runs when the deployment forces it (`engineChoice: "<kind>"`). */
  forcedWhy: string;
  /** Why it runs beside the device's engine when the `models` setting ties some models to it. */
  tiedWhy: string;
  /** `engineChoice: "auto"`: whether it can run on this device (the first in the registry's order that can runs), and why (not). */
  canRun(probe: Pick<GpuProbe, 'report'>): { ok: boolean; why: string };
  /** Creates it, loading its chunk. `why`: why it runs here (the engine may say it in its statuses). */
  create(config: InpageConfig, catalog: ModelCatalog, why: string, probe: GpuProbe): Promise<Engine>;
  /** Where it runs its models when it does not say (its status's runtime). */
  device: ModelRuntime['device'];
  /** The files of an import it takes, by path; `rest`: those no other engine's pattern takes. */
  imports: RegExp | 'rest';
  /** Why files it would take were not imported, where it does not run on this device (default: they go elsewhere). */
  notImported?(names: string): string;
  /** The page's adapter report when it is the device's engine (default: its own `adapter()`). */
  adapter?(probe: GpuProbe, engine: CompleteEngine | undefined): AdapterReport;
}
