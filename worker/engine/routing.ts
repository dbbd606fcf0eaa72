// The base of the composites that route (hybrid.ts, consumer.ts): they decide which sides answer a request and
// take everything else from the device's engine, delegated here once, by a list the compiler holds complete.
import { ApiError } from '#shared/protocol/errors';
import type { EmbeddingRequest } from '#shared/protocol/embeddings';
import type { EngineRequest, ModelStatus } from '#shared/wire/engine-port';
import type { PlannedRequest } from './common/plan';
import { complete, type CompleteEngine } from './capabilities';
import type { Capability, Engine, Generation, Side } from './engine';

/** The capabilities a routing composite takes from the device's engine as they are: all but its own sides. */
type Delegated = Exclude<Capability, 'route' | 'embed'>;

// Every one of them, and nothing else: a capability added to Engine and not here (or left out of the composite's
// own methods) fails to compile.
const DELEGATED = Object.keys({
  supports: true,
  ready: true,
  runtime: true,
  adapter: true,
  load: true,
  unload: true,
  deleteFromCache: true,
  downloadSize: true,
  rescan: true,
  importFiles: true,
  cachedModels: true,
} satisfies Record<Delegated, true>) as Delegated[];

/**
 * The delegates: each of DELEGATED is the device engine's own method (bound by `complete`), typed as the device
 * engine's methods of those names (a composite cannot declare one of them as a method of its own: TypeScript refuses).
 */
const Delegating = function (this: Record<string, unknown>, local: CompleteEngine) {
  for (const name of DELEGATED) this[name] = local[name];
} as unknown as abstract new (local: CompleteEngine) => Pick<CompleteEngine, Delegated>;

/**
 * An engine that routes: a composite around this device's engine (hybrid.ts, consumer.ts) whose `route` gives the
 * sides that may answer each request; everything else (the device, downloads, the cache, imports) is the device's
 * engine's, delegated once (DELEGATED). Called directly, `generate` and `embed` run on the first side the route
 * names (the scheduler tries the others where that one cannot answer).
 */
export abstract class RoutingEngine extends Delegating implements Engine {
  protected readonly local: CompleteEngine;

  constructor(local: Engine) {
    const whole = complete(local);
    super(whole);
    this.local = whole;
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
}

function firstSide(sides: readonly Side[]): Side {
  const side = sides[0];
  if (!side) throw new ApiError('engine_unavailable', 'No side may answer this request.');
  return side;
}
