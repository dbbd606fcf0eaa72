// The optional capabilities of the Engine seam (engine.ts): their defaults, applied in one place (`complete`), the
// typed refusal of one an engine lacks, and the list of those the page controls (with the compile-time check that
// it names every one).
import type { EngineCapabilities } from '#shared/wire/engine-control';
import { ApiError } from '#shared/protocol/errors';
import type { Capability, Engine, LocalSide, Side } from './engine';

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

/** The local side of `engine`: its queue, its refusals, its generations. */
export function localSide(engine: CompleteEngine): LocalSide {
  return {
    kind: 'local',
    supports: (request) => engine.supports(request),
    generate: (request, signal) => engine.generate(request, signal),
    embed: (request, signal) => engine.embed(request, signal),
  };
}

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
