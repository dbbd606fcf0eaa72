/// <reference lib="webworker" />
// The engine Web Worker: owns the model, serves the service worker's ports, answers the hosting page (its entry,
// engine-worker.ts, only imports this).
import * as Comlink from 'comlink';
import type { InpageConfig } from '#shared/config';
import { catalogOf } from '#shared/catalog';
import type { ModelCatalog } from '#shared/model-config';
import type { EngineCapabilities, EngineControl } from '#shared/wire/engine-control';
import { packEvents, type FromEngine, type ToEngine } from '#shared/wire/engine-port';
import { holdForLife, whenReleased } from '#shared/life-locks';
import type { Engine } from './engine';
import { CONTROL_CAPABILITIES, complete, type CompleteEngine } from './capabilities';
import { EventBatch, nextTurn } from './common/event-batch';
import { Scheduler } from './scheduler';
import { setStorageRoot } from './common/storage-root';
import { ApiError } from '#shared/protocol/errors';
import type { ModelStatus } from '#shared/wire/engine-port';

/** Whether a person added an upstream connection in the workspace (hybrid); answered without loading the composite. */
async function hasConnections(): Promise<boolean> {
  try {
    return (await import('#shared/upstream-connections')).hasConnections();
  } catch {
    return false;
  }
}

let engine: CompleteEngine | null = null;
/** Consumer mode, split: the port to the model provider's engine, and its origin (useProvider). */
let provider: { port: MessagePort; origin: string } | null = null;
let scheduler: Scheduler | null = null;
/** A queue depth the page gave after init (useQueueDepth) before the scheduler existed. */
let laterDepth: number | null = null;
/** A model provider's engine (useStorage): the provider's local models only, never an upstream (docs/shared-models.md). */
let localOnly = false;
const later = nextTurn();

/** Why the last start of the engine failed (its models' requests and status say so until a start succeeds). */
let startFailure: string | null = null;

function need(): { engine: CompleteEngine; scheduler: Scheduler } {
  if (!engine || !scheduler) {
    throw new ApiError(
      'engine_unavailable',
      startFailure ? `The inference engine could not start in this browser: ${startFailure}` : 'The inference engine has not started yet; retry.',
    );
  }
  return { engine, scheduler };
}

/** Serves one service-worker port; a restarted service worker brings a new one. */
function serve(port: MessagePort): void {
  const mine = new Map<string, EventBatch>();
  const post = (message: FromEngine) => port.postMessage(message);
  port.onmessage = (e: MessageEvent<ToEngine>) => {
    const message = e.data;
    let running: ReturnType<typeof need>;
    try {
      running = need();
    } catch (err) {
      // No engine (its start failed, or has not finished): what asks for an answer gets one saying why.
      if (message.type === 'generate' || message.type === 'embed' || message.type === 'status')
        post({ type: 'error', id: message.id, error: ApiError.from(err).toData() });
      return;
    }
    const { engine, scheduler } = running;
    switch (message.type) {
      case 'generate':
      case 'embed': {
        const { id } = message;
        const batch = new EventBatch((events) => post({ type: 'events', id, events: packEvents(events) }), later);
        mine.set(id, batch);
        const done = () => (batch.flush(), mine.delete(id));
        scheduler.submit(id, message.request, {
          accepted: () => post({ type: 'accepted', id }),
          start: (fingerprint, servedBy) => post({ type: 'start', id, fingerprint, ...(servedBy ? { servedBy } : {}) }),
          event: (event) => batch.push(event),
          end: () => (done(), post({ type: 'end', id })),
          error: (error, spent) => (done(), post({ type: 'error', id, error: error.toData(), ...(spent ? { spent } : {}) })),
          // After the service worker's abort: what the generation cost until it stopped, for the key's booking.
          aborted: (spent) => post({ type: 'aborted', id, spent }),
        });
        return;
      }
      case 'abort':
        mine.get(message.id)?.drop();
        mine.delete(message.id);
        scheduler.abort(message.id);
        return;
      case 'status':
        post({ type: 'status', id: message.id, models: engine.status() });
        return;
      case 'watch':
        // Granted once the service worker that holds it is gone.
        if (self.navigator.locks) void whenReleased(self.navigator.locks, message.lock).then(abandon);
        return;
    }
  };
  // The service worker was stopped: nobody is left to read these generations.
  const abandon = () => {
    for (const [id, batch] of mine) {
      batch.drop();
      scheduler?.abort(id);
    }
    mine.clear();
  };
  port.addEventListener('close', abandon);
  port.start();
}

/** Creates the engine once. Its implementation (web-llm: megabytes of script and wasm) is loaded only now. */
let creating: Promise<void> | null = null;
/** The page's status listeners (subscribe), kept to be told of an engine that takes over (withUpstreamsLater). */
const statusListeners: ((models: ModelStatus[]) => void)[] = [];
function listen(on: CompleteEngine, listener: (models: ModelStatus[]) => void): void {
  on.onStatus(() => listener(need().engine.status()));
}

/**
 * An engine started without upstreams (none configured, no connection saved) takes the composite with upstreams once
 * the person saves a first connection (src/shared/upstream-connections.ts tells the worker): the next request follows it,
 * without a reload. Not for a model provider's engine (never an upstream) nor a consumer's (its composite is built once).
 */
async function withUpstreamsLater(local: Engine, config: InpageConfig, catalog: ModelCatalog): Promise<void> {
  if (typeof BroadcastChannel === 'undefined') return;
  const { UPSTREAM_CHOICES_CHANNEL } = await import('#shared/upstream-connections');
  const channel = new BroadcastChannel(UPSTREAM_CHOICES_CHANNEL);
  channel.onmessage = async () => {
    if (!(await hasConnections()) || !scheduler) return;
    channel.close();
    engine = complete(await (await import('./hybrid')).withUpstreams(local, config, self.location.origin, catalog));
    scheduler.use(engine);
    for (const listener of statusListeners) {
      listen(engine, listener);
      listener(engine.status());
    }
  };
}
function create(config: InpageConfig): Promise<void> {
  creating ??= import('#engine-impl').then(async ({ createEngine }) => {
    // Hybrid (docs/hybrid.md): with upstreams configured, the composite that routes each request around the local
    // engine; its chunk is loaded only then.
    // The deployment's catalog, built once here and passed to every engine (a bad `models` entry stops the start,
    // naming it). Nothing in this worker reads a catalog from module state (eslint.config.js keeps it so).
    const catalog = catalogOf(config.models, "the deployment's models setting");
    const local = createEngine(config, catalog);
    const hybrid = !localOnly && (Object.keys(config.upstreams ?? {}).length > 0 || (await hasConnections()));
    const own = hybrid ? await (await import('./hybrid')).withUpstreams(local, config, self.location.origin, catalog) : local;
    // Consumer mode, split (docs/shared-models.md): the provider's engine beside this site's; its chunk only then.
    engine = complete(provider ? await (await import('./consumer')).withProvider(own, provider.port, provider.origin) : own);
    scheduler = new Scheduler(engine, laterDepth ?? config.queueDepth);
    startFailure = null;
    if (!hybrid && !localOnly && !provider) await withUpstreamsLater(local, config, catalog);
  });
  creating.catch((err: unknown) => {
    creating = null;
    startFailure = err instanceof Error ? err.message : String(err);
  });
  return creating;
}

const control: EngineControl = {
  async useStorage(root) {
    if (creating) throw new Error('useStorage() must come before init().');
    setStorageRoot(root);
    localOnly = true;
  },
  async useProvider(port, origin) {
    if (creating) throw new Error('useProvider() must come before init().');
    provider = { port, origin };
  },
  async init(config) {
    await create(config);
    // A probe that fails (no WebGPU) is reported through status() and adapter(), not by init().
    await need()
      .engine.ready()
      .catch(() => undefined);
  },
  async useQueueDepth(depth) {
    if (!Number.isSafeInteger(depth) || depth < 0) throw new Error(`useQueueDepth(): expected a whole number of at least 0, got ${depth}.`);
    laterDepth = depth;
    scheduler?.resize(depth);
  },
  async ping() {
    return true;
  },
  async connect(port, lock) {
    serve(port);
    if (!lock || !self.navigator.locks) return;
    // Held until this worker ends: the lock's release tells the service worker that this engine is gone.
    await holdForLife(self.navigator.locks, lock);
    port.postMessage({ type: 'holding', lock } satisfies FromEngine);
  },
  async status() {
    return need().engine.status();
  },
  subscribe(listener) {
    statusListeners.push(listener);
    listen(need().engine, listener);
  },
  async testConnection(name) {
    // Loaded only when a person tests a connection: the upstream engine's own request code and bounds.
    const [{ UpstreamEngine }, { connectionSpec, listConnections }] = await Promise.all([import('./upstream'), import('#shared/upstream-connections')]);
    const saved = (await listConnections()).find((c) => c.name === name);
    if (!saved) return { ok: false, status: null, code: 'invalid_value', message: `There is no connection named '${name}' in this browser.` };
    return new UpstreamEngine({}).check(connectionSpec(saved), new AbortController().signal);
  },
  // Every engine capability, as the engine has it or by its default (capabilities.ts `complete`).
  ...(Object.fromEntries(
    CONTROL_CAPABILITIES.map((name) => [name, (...args: unknown[]) => (need().engine[name] as (...a: unknown[]) => unknown)(...args)]),
  ) as unknown as EngineCapabilities),
};

Comlink.expose(control);
