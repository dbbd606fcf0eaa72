// The seam every engine implements (web-llm and llama.cpp in production, the deterministic one in tests), and the
// sides a request may be answered on. What goes with it, each in a file of its own: the defaults of the optional
// capabilities (capabilities.ts, `complete`), the composites' delegating base (routing.ts), the engine kinds'
// descriptors (engine-descriptor.ts) and the usage of a generation that ended early (usage.ts).
import type { EngineCapabilities } from '#shared/wire/engine-control';
import type { InpageConfig } from '#shared/config';
import type { ModelCatalog } from '#shared/model-config';
import type { EngineEvent, EngineRequest, ModelRuntime, ModelStatus } from '#shared/wire/engine-port';
import type { Usage } from '#shared/protocol/types';
import type { PlannedRequest } from './common/plan';
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

/**
 * The seam every engine implements. Required: answer requests (`generate`) and say what it serves (`status`,
 * `onStatus`). Everything else is an optional capability; `complete()` (capabilities.ts) gives the rest of the worker one
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

/** The optional capabilities, by name. */
export type Capability = Exclude<keyof Engine, 'generate' | 'status' | 'onStatus'>;

/** Creates an engine from the deployment's config and the catalog the engine worker built from it once (engine-worker-main.ts). */
export type EngineFactory = (config: InpageConfig, catalog: ModelCatalog) => Engine;
