// Hybrid inference (docs/hybrid.md): the composite around the device's engine (worker/engine/device-engine.ts in
// `npm run build`, the deterministic engine in the test build) and the upstream engine (worker/engine/upstream/).
// Per id a mode decides, per request and before anything is sent, which sides may answer and in which order
// (`route`), each side with what runs it; the scheduler runs an upstream side beside the local queue and hands a
// request whose side failed before its first token to the next side. Loaded only when upstreams are configured or a person added a connection.
import type { InpageConfig } from '#shared/config';
import type { EngineRequest, ModelStatus, Serving } from '#shared/wire/engine-port';
import { isEmbeddingRequest } from '#shared/protocol/embeddings';
import { ApiError } from '#shared/protocol/errors';
import { variantIn, type ModelCatalog } from '#shared/model-config';
import { buildUpstreamPlan, type ResolvedRoute, type UpstreamPlan, type UpstreamSpec } from '#shared/upstreams';
import {
  UPSTREAM_CHOICES_CHANNEL,
  connectionSpec,
  listConnections,
  listModeChoices,
  type ModeChoice,
  type UpstreamConnection,
} from '#shared/upstream-connections';
import type { Engine, Generation, Side } from './engine';
import { RoutingEngine } from './routing';
import { DATA_URLS_ONLY, UpstreamEngine, describeUpstream, type ImageRule, type UpstreamDeps, type UpstreamTarget } from './upstream';
import { imageUrlAllowed } from '#shared/csp';

/** How long an upstream that failed is passed over by the `prefer-*` modes (no wasted request). */
export const RECENT_FAILURE_MS = 30_000;

/** Upstream failures that say the server is out of reach (not that the request was wrong). */
const OUT_OF_REACH = new Set(['upstream_unavailable', 'upstream_timeout', 'upstream_error']);

/**
 * The plan with the people's connections laid over it (a connection's ids go to it, in the mode the person chose),
 * then the person's mode choices for ids the config routes to an upstream (an id without an upstream stays local;
 * an id only an upstream answers stays `upstream`: this device has no model for it).
 */
export function withConnections(
  plan: UpstreamPlan,
  connections: readonly UpstreamConnection[],
  modes: readonly ModeChoice[],
  catalog: ModelCatalog,
): UpstreamPlan {
  const upstreams = { ...plan.upstreams };
  const routes = { ...plan.routes };
  for (const c of connections) {
    const spec = connectionSpec(c);
    upstreams[spec.name] = spec;
    for (const [id, m] of Object.entries(c.models)) routes[id] = { mode: m.mode ?? 'prefer-local', upstream: spec.name, model: m.model };
  }
  for (const { id, mode } of modes) {
    const route = routes[id];
    if (route?.upstream && variantIn(catalog, id)?.engine !== 'upstream') routes[id] = { ...route, mode };
  }
  return { upstreams, routes };
}

/** The kinds of a request's sides, in the order to try them. */
type Order = ('local' | 'upstream')[];

export interface HybridDeps extends UpstreamDeps {
  now(): number;
}

const realDeps: HybridDeps = {
  fetch: (input, init) => fetch(input, init),
  online: () => (typeof navigator === 'undefined' ? true : navigator.onLine !== false),
  now: () => Date.now(),
};

/** The upstream engine's targets for a plan: per id routed upstream, its server and model name there. */
function targetsOf(plan: UpstreamPlan): Record<string, UpstreamTarget> {
  const targets: Record<string, UpstreamTarget> = {};
  for (const [id, route] of Object.entries(plan.routes)) {
    if (route.upstream && route.model) targets[id] = { spec: plan.upstreams[route.upstream]!, model: route.model };
  }
  return targets;
}

export class HybridEngine extends RoutingEngine {
  private upstream: UpstreamEngine;
  private readonly failedAt = new Map<string, number>();
  private readonly fetching = new Set<string>();
  private readonly listeners: (() => void)[] = [];

  constructor(
    local: Engine,
    private plan: UpstreamPlan,
    /** The engine worker's catalog (withUpstreams): the one `plan` was built from. */
    private readonly catalog: ModelCatalog,
    private readonly deps: HybridDeps = realDeps,
    private readonly images: ImageRule = DATA_URLS_ONLY,
  ) {
    super(local);
    this.upstream = new UpstreamEngine(targetsOf(plan), deps, images);
  }

  /**
   * A new plan (the person added or removed a connection): the next request follows it; one already running finishes
   * where it began. Every status listener hears of it.
   */
  setPlan(plan: UpstreamPlan): void {
    this.plan = plan;
    this.upstream = new UpstreamEngine(targetsOf(plan), this.deps, this.images);
    this.emit();
  }

  private routeOf(id: string): ResolvedRoute {
    return this.plan.routes[id] ?? { mode: 'local' };
  }

  private specOf(route: ResolvedRoute): UpstreamSpec | undefined {
    return route.upstream ? this.plan.upstreams[route.upstream] : undefined;
  }

  private recentlyFailed(name: string): boolean {
    const at = this.failedAt.get(name);
    return at !== undefined && this.deps.now() - at < RECENT_FAILURE_MS;
  }

  private localState(id: string): ModelStatus | undefined {
    return this.local.status().find((s) => s.id === id);
  }

  /** The decision for one id now: the kinds of its sides in order, and why (for /v1/models and the Models area). */
  decide(id: string): { sides: Order; why: string; offline?: boolean } {
    const route = this.routeOf(id);
    const spec = this.specOf(route);
    if (route.mode === 'local' || !spec) return { sides: ['local'], why: 'Mode local: this device answers.' };
    const up = 'upstream';
    const local = 'local';
    const online = this.deps.online();
    const failed = this.recentlyFailed(spec.name);
    const who = describeUpstream(spec.name, spec.url);
    switch (route.mode) {
      case 'upstream':
        if (!online)
          return { sides: [], why: `Mode upstream and the browser is offline: ${who} cannot be reached and this device never answers.`, offline: true };
        return { sides: [up], why: `Mode upstream: ${who} answers.` };
      case 'prefer-upstream':
        if (!online) return { sides: [local], why: 'Mode prefer-upstream, but the browser is offline: this device answers.' };
        if (failed)
          return { sides: [local, up], why: `Mode prefer-upstream, but ${who} failed in the last ${RECENT_FAILURE_MS / 1000} s: this device answers.` };
        return { sides: [up, local], why: `Mode prefer-upstream: ${who} answers (this device if it cannot).` };
      case 'prefer-local': {
        const state = this.localState(id);
        if (!online) return { sides: [local], why: 'Mode prefer-local and the browser is offline: this device answers.' };
        if (state?.state === 'ready' || state?.state === 'cached')
          return {
            sides: [local, up],
            why: `Mode prefer-local: the model is ${state.state === 'ready' ? 'loaded' : 'downloaded'} here, so this device answers.`,
          };
        if (failed)
          return {
            sides: [local, up],
            why: `Mode prefer-local: the model is not ready here, but ${who} failed in the last ${RECENT_FAILURE_MS / 1000} s: this device answers.`,
          };
        if (!state || state.state === 'unavailable') {
          return { sides: [up], why: `Mode prefer-local, but this device cannot run it${state?.error ? ` (${state.error})` : ''}: ${who} answers.` };
        }
        return { sides: [up, local], why: `Mode prefer-local: the model is ${state.state.replace('_', ' ')} here, so ${who} answers meanwhile.` };
      }
    }
  }

  route(request: EngineRequest): readonly Side[] {
    const id = isEmbeddingRequest(request) ? request.model : request.variant.id;
    const decision = this.decide(id);
    if (decision.sides.length === 0) throw new ApiError('upstream_unavailable', decision.why);
    const route = this.routeOf(id);
    // prefer-local while the weights are not here: they download in the background, so a later request runs locally.
    if (route.mode === 'prefer-local' && decision.sides[0] === 'upstream' && this.localState(id)?.state === 'not_downloaded' && !this.fetching.has(id)) {
      this.fetching.add(id);
      void this.local
        .load(id)
        .catch(() => undefined)
        .finally(() => this.fetching.delete(id));
    }
    const spec = this.specOf(route);
    return decision.sides.map((kind) => (kind === 'upstream' && spec ? this.upstreamSide(spec) : this.localSide(request)));
  }

  /** This device's side: the device's engine's, its answers saying `local` where they do not say where they ran. */
  private localSide(request: EngineRequest): Side {
    const own = this.local.route(request)[0]!;
    const local = async (generation: Promise<Generation>): Promise<Generation> => {
      const done = await generation;
      return done.servedBy ? done : { ...done, servedBy: 'local' };
    };
    return { ...own, generate: (r, signal) => local(own.generate(r, signal)), embed: (r, signal) => local(own.embed(r, signal)) };
  }

  /** The upstream's side: its out-of-reach failure is remembered (the `prefer-*` modes pass it over a while). */
  private upstreamSide(spec: UpstreamSpec): Side {
    const watched = async (run: () => Promise<Generation>): Promise<Generation> => {
      try {
        const generation = await run();
        this.failedAt.delete(spec.name);
        return generation;
      } catch (err) {
        if (err instanceof ApiError && OUT_OF_REACH.has(err.code)) {
          this.failedAt.set(spec.name, this.deps.now());
          this.emit();
        }
        throw err;
      }
    };
    return {
      kind: 'upstream',
      name: spec.name,
      limit: spec.concurrency,
      generate: (request, signal) => watched(() => this.upstream.generate(request, signal)),
      embed: (request, signal) => watched(() => this.upstream.embed(request, signal)),
    };
  }

  status(): ModelStatus[] {
    const statuses = this.local.status().map((s) => ({ ...s, serving: this.serving(s.id) }));
    // Ids only an upstream answers have no local status: this device has no model for them.
    const upstreamOnly = this.catalog.variants.filter((v) => v.engine === 'upstream');
    return [
      ...statuses,
      ...upstreamOnly.map((v): ModelStatus => ({
        id: v.id,
        state: 'unavailable',
        context_length: v.trainedContext,
        error: 'Answered by an upstream server only: this device has no model for it.',
        serving: this.serving(v.id),
      })),
    ];
  }

  private serving(id: string): Serving {
    const route = this.routeOf(id);
    const spec = this.specOf(route);
    const decision = this.decide(id);
    const first = decision.sides[0];
    return {
      mode: route.mode,
      engine: first === 'upstream' || (decision.sides.length === 0 && spec) ? 'upstream' : 'local',
      why: decision.why,
      ...(spec && route.model ? { upstream: { name: spec.name, host: new URL(spec.url).host, model: route.model } } : {}),
    };
  }

  private emit(): void {
    for (const listener of this.listeners) listener();
  }

  onStatus(listener: () => void): void {
    this.listeners.push(listener);
    this.local.onStatus(listener);
  }
}

/**
 * The engine worker's engine with upstreams: the deployment's plan (a literal key, or a route to an upstream that is
 * not there, is a ModelConfigError naming the field: the start stops, as for a bad `models` entry) and the people's
 * connections from IndexedDB.
 */
export async function withUpstreams(local: Engine, config: InpageConfig, origin: string, catalog: ModelCatalog, deps: HybridDeps = realDeps): Promise<Engine> {
  const base = buildUpstreamPlan(config.upstreams, catalog, origin);
  const connections = await listConnections();
  // Image URLs: the rule local vision applies (src/shared/csp.ts), before anything is sent upstream.
  const images: ImageRule = (url) => imageUrlAllowed(url, config, origin);
  const engine = new HybridEngine(local, withConnections(base, connections, await listModeChoices(), catalog), catalog, deps, images);
  // The person adds or removes a connection, or switches a mode, in the Models area: the next request follows it,
  // without a reload.
  if (typeof BroadcastChannel !== 'undefined') {
    new BroadcastChannel(UPSTREAM_CHOICES_CHANNEL).onmessage = () =>
      void Promise.all([listConnections(), listModeChoices()]).then(([now, modes]) => engine.setPlan(withConnections(base, now, modes, catalog)));
  }
  return engine;
}
