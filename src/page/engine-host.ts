// The page hosts the engine worker and hands the service worker a port to it; it never carries requests.
// A worker that ends (crashed, killed) is replaced at once, as its life lock tells; a heartbeat catches one
// that hangs. The new worker's port goes to the service worker as the first one did.
import * as Comlink from 'comlink';
import { activeCatalog } from '#shared/catalog';
import type { InpageConfig } from '#shared/config';
import type { EngineControl } from '#shared/wire/engine-control';
import type { ModelStatus, ProviderNote } from '#shared/wire/engine-port';
import { whenReleased } from '#shared/life-locks';
import { PORT_REQUEST, isMessage, PORT_CHANNEL, portOffer, portRequestId } from '#shared/wire/page-messages';
import { START_TIMEOUT_MS } from '../lib/start-bound';
// The engine worker's script as built, named relative to this module's own file, so it is found at any base path.
import engineWorkerScript from '../../worker/engine/engine-worker.ts?worker&url';

/** The engine worker's script (named in every error about it). */
export const ENGINE_WORKER_URL = new URL(engineWorkerScript, import.meta.url).href;

export interface EngineHost {
  /** The engine's controls. Stable across worker restarts: calls go to the worker running now. */
  readonly control: Comlink.Remote<EngineControl>;
  /** The engine worker running now (null while a model provider serves: docs/shared-models.md). */
  readonly worker: Worker | null;
  /** How many times the worker has been replaced. */
  readonly restarts: number;
  /** Called after each restart, once the new worker is initialised and offered to the service worker. */
  onRestart(listener: () => void): void;
  /**
   * Replaces the engine worker (requests running on it fail): a new worker gets a new Content-Security-Policy, so
   * one can reach a connection's server that the running worker's policy does not name. Absent: a model provider's.
   */
  restart?(why: string): Promise<void>;
  /**
   * Ends the engine for good: its worker stops (requests running on it end with `engine_unavailable` in the service
   * worker) and it answers the service worker's asks no more. A consumer page going back to its model provider.
   */
  dispose(): void;
}

/** A restart that follows another this quickly backs off (doubling, up to MAX_BACKOFF_MS). */
const MIN_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;
/** Periods without an answer after which the worker counts as dead. */
const MISSED_BEATS = 3;

function startWorker(): { worker: Worker; remote: Comlink.Remote<EngineControl> } {
  const worker = new Worker(ENGINE_WORKER_URL, { type: 'module', name: 'inpage-engine' });
  return { worker, remote: Comlink.wrap<EngineControl>(worker) };
}

/** An engine worker that did not start; `lasting`: trying again cannot help (the server refuses its script). */
export class EngineStartError extends Error {
  override name = 'EngineStartError';
  constructor(
    message: string,
    readonly lasting: boolean,
  ) {
    super(message);
  }
}

/**
 * Why the worker's script failed (its `error` event): a script that threw says so; one that could not be loaded
 * says nothing, so the server is asked for it: a refusal (4xx, or a page that is not JavaScript: a server's
 * fallback page for a file it does not have) lasts, a network failure may pass.
 */
export async function engineStartError(event: Event, script = ENGINE_WORKER_URL): Promise<EngineStartError> {
  if (event instanceof ErrorEvent && event.message) return new EngineStartError(`The engine worker failed to start: ${event.message} (${script}).`, false);
  const check = "check that inpage's files (inpage-*.js) are all deployed beside inpage.js, and served as JavaScript";
  const why = await fetch(script, { cache: 'no-store' }).then(
    async (res) => {
      await res.body?.cancel();
      const type = res.headers.get('content-type') ?? 'no content type';
      if (!res.ok) return { text: `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`, lasting: res.status >= 400 && res.status < 500 };
      if (!/javascript/i.test(type)) return { text: `served as ${type}, not JavaScript`, lasting: true };
      return { text: 'the server has it now', lasting: false };
    },
    () => ({ text: 'the network refused it', lasting: false }),
  );
  return new EngineStartError(`The engine worker failed to start: its script ${script} could not be loaded (${why.text}); ${check}.`, why.lasting);
}

class HostedEngine implements EngineHost {
  private current: { worker: Worker; remote: Comlink.Remote<EngineControl> };
  private readonly subscribers: ((models: ModelStatus[]) => void)[] = [];
  private readonly restartListeners: (() => void)[] = [];
  private restarting: Promise<void> | null = null;
  /** When the ping that has not been answered yet was sent (null: none outstanding). */
  private unanswered: number | null = null;
  private backoffMs = 0;
  private restartCount = 0;
  private beat: ReturnType<typeof setInterval> | undefined;
  /** Aborted by dispose(): the page's listeners for the service worker's asks go with it. */
  readonly stopped = new AbortController();
  readonly control: Comlink.Remote<EngineControl>;

  constructor(
    /** The settings each worker starts with; `useQueueDepth` changes its depth, so a restarted worker keeps it. */
    private config: InpageConfig,
    /** Consumer mode: why this site's own engine serves instead of the model provider (told with each offer). */
    readonly providerNote?: ProviderNote,
    /** Consumer mode, split: each worker (a restarted one too) gets a new port to the provider's engine. */
    private readonly provider?: ProviderBeside,
  ) {
    this.current = startWorker();
    // Every control method goes to the worker running now: a facade derived from EngineControl, not a copy of
    // its list. Only `subscribe` is kept as well, so a restarted worker gets the page's listeners again, and `useQueueDepth` goes into the
    // settings a restarted worker starts with.
    const subscribe = (listener: (models: ModelStatus[]) => void) => {
      // `listener` is a Comlink proxy, which can be sent again.
      this.subscribers.push(listener);
      return this.current.remote.subscribe(listener);
    };
    const useQueueDepth = (depth: number) => {
      this.config = { ...this.config, queueDepth: depth };
      return this.current.remote.useQueueDepth(depth);
    };
    this.control = new Proxy({} as Comlink.Remote<EngineControl>, {
      get: (_, name) => {
        if (name === 'subscribe') return subscribe;
        if (name === 'useQueueDepth') return useQueueDepth;
        // Not a thenable: awaiting the facade must not call the worker.
        if (typeof name !== 'string' || name === 'then') return undefined;
        return (...args: unknown[]) => (this.current.remote as unknown as Record<string, (...a: unknown[]) => unknown>)[name]!(...args);
      },
    });
  }

  get worker(): Worker {
    return this.current.worker;
  }

  get restarts(): number {
    return this.restartCount;
  }

  onRestart(listener: () => void): void {
    this.restartListeners.push(listener);
  }

  /**
   * Initialises the worker running now; rejects if its script cannot be loaded or throws meanwhile, or if it has
   * not started by `until` (performance.now() time).
   */
  async init(until = Infinity): Promise<void> {
    const { worker, remote } = this.current;
    let onError!: (event: Event) => void;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const failed = new Promise<never>((_, reject) => {
      onError = (event) => void engineStartError(event).then(reject);
      worker.addEventListener('error', onError);
      if (until < Infinity) {
        timer = setTimeout(
          () =>
            reject(
              new EngineStartError(
                `The engine worker (${ENGINE_WORKER_URL}) loaded but did not finish starting its engine in time: its console (DevTools, the worker's context) may say why.`,
                true,
              ),
            ),
          Math.max(0, until - performance.now()),
        );
      }
    });
    try {
      if (this.provider) {
        const port = this.provider.port();
        await Promise.race([remote.useProvider(Comlink.transfer(port, [port]), this.provider.origin), failed]);
      }
      await Promise.race([remote.init(this.config), failed]);
    } finally {
      worker.removeEventListener('error', onError);
      clearTimeout(timer);
    }
    this.unanswered = null;
  }

  /**
   * Starts the first worker. One that cannot start for a reason that may pass (its script blocked or failing to
   * load, e.g. offline before the app was cached) is replaced, backing off, while the page stays usable, until
   * `until` (the start's bound): then, or at once for a lasting reason (the server refuses the script), it
   * rejects with why.
   */
  async start(until: number): Promise<void> {
    for (let delay = MIN_BACKOFF_MS; ; delay = Math.min(MAX_BACKOFF_MS, delay * 2)) {
      try {
        await this.init(until);
        return;
      } catch (err) {
        // A bad models setting (the engine checks it against its models) does not get better by retrying.
        if (err instanceof Error && err.name === 'ModelConfigError') throw err;
        if ((err instanceof EngineStartError && err.lasting) || performance.now() + delay >= until) throw err;
        console.warn(`inpage: ${err instanceof Error ? err.message : String(err)} Trying again in ${delay / 1000} s.`);
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      this.current.remote[Comlink.releaseProxy]();
      this.current.worker.terminate();
      this.current = startWorker();
    }
  }

  /**
   * Pings every period; restarts the worker once a ping has gone unanswered for MISSED_BEATS periods. Only an
   * outstanding ping counts, so a hidden tab whose timers the browser slows to once a minute is not mistaken
   * for a dead worker.
   */
  watch(): void {
    const period = this.config.engineHeartbeatMs;
    if (!(period > 0)) return;
    this.beat = setInterval(() => {
      if (this.restarting || this.disposed) return;
      if (this.unanswered !== null) {
        if (performance.now() - this.unanswered > MISSED_BEATS * period) void this.restart('it stopped answering');
        return;
      }
      const mine = this.current;
      this.unanswered = performance.now();
      mine.remote.ping().then(
        () => {
          if (this.current !== mine) return;
          this.unanswered = null;
          this.backoffMs = 0;
        },
        () => undefined,
      );
    }, period);
  }

  /**
   * The worker holds `lock` while it lives (see offerPort): granted to the page, it has ended, and is replaced
   * now rather than after missed heartbeats.
   */
  watchLifeLock(lock: string): void {
    const mine = this.current;
    if (!navigator.locks) return;
    void whenReleased(navigator.locks, lock).then(() => {
      if (this.current === mine && !this.restarting && !this.disposed) void this.restart('it ended');
    });
  }

  get disposed(): boolean {
    return this.stopped.signal.aborted;
  }

  dispose(): void {
    if (this.disposed) return;
    this.stopped.abort();
    clearInterval(this.beat);
    this.current.remote[Comlink.releaseProxy]();
    // Its life lock is released: the service worker drops its port.
    this.current.worker.terminate();
  }

  /** Replaces the worker; requests that were running on the old one fail in the service worker. */
  restart(why: string): Promise<void> {
    if (this.disposed) return Promise.resolve();
    this.restarting ??= (async () => {
      console.warn(`inpage: restarting the engine worker: ${why}.`);
      if (this.backoffMs > 0) await new Promise((resolve) => setTimeout(resolve, this.backoffMs));
      this.backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(MIN_BACKOFF_MS, this.backoffMs * 2));
      const old = this.current;
      old.remote[Comlink.releaseProxy]();
      old.worker.terminate();
      this.current = startWorker();
      this.restartCount++;
      try {
        await this.init(performance.now() + START_TIMEOUT_MS);
        for (const listener of this.subscribers) await this.current.remote.subscribe(listener);
      } catch (err) {
        console.error('inpage: the restarted engine worker failed to start:', err);
      }
      this.unanswered = null;
      const controller = navigator.serviceWorker?.controller;
      if (controller) await offerPort(this, controller);
      for (const listener of this.restartListeners) listener();
    })().finally(() => {
      this.restarting = null;
    });
    return this.restarting;
  }
}

async function offerPort(host: HostedEngine, target: ServiceWorker): Promise<void> {
  if (host.disposed) return;
  const channel = new MessageChannel();
  // The engine worker holds this lock while it lives (see port-messages.ts).
  const lock = `inpage-engine-port:${crypto.randomUUID()}`;
  const connected = host.control.connect(Comlink.transfer(channel.port1, [channel.port1]), lock);
  // The service worker gets its end at once, not after the engine's reply: a service worker that was just
  // started is waiting for it with a request. Its messages wait in the port until the engine takes its end; it
  // watches the lock once the engine holds it (`holding`). Should the engine fail to take the port, the
  // service worker's requests go unacknowledged and it drops the port (EngineLink's ack timeout).
  target.postMessage(portOffer(lock, activeCatalog(), host.providerNote), [channel.port2]);
  try {
    await connected;
  } catch (err) {
    console.error('inpage: the engine worker did not take its port:', err);
    return;
  }
  host.watchLifeLock(lock);
}

/** Consumer mode, split (docs/shared-models.md): the model provider whose engine runs beside this site's. */
export interface ProviderBeside {
  origin: string;
  /** A new port to the provider's engine (through its frame's consent check). */
  port(): MessagePort;
}

/** Hosts the engine worker; rejects with why if it has not started by `until` (default: START_TIMEOUT_MS from now). */
export async function hostEngine(
  config: InpageConfig,
  providerNote?: ProviderNote,
  provider?: ProviderBeside,
  until = performance.now() + START_TIMEOUT_MS,
): Promise<EngineHost> {
  const host = new HostedEngine(config, providerNote, provider);
  try {
    await host.start(until);
  } catch (err) {
    host.dispose();
    throw err;
  }
  host.watch();

  const sw = navigator.serviceWorker;
  // A (re)started service worker asks every page for a port; the one hosting the engine answers, once per ask
  // (an ask may come both ways: see PORT_CHANNEL).
  const answered: string[] = []; // the latest asks (a second copy comes within milliseconds)
  const answer = (data: unknown, to: ServiceWorker) => {
    const ask = portRequestId(data);
    if (ask !== undefined) {
      if (answered.includes(ask)) return;
      if (answered.push(ask) > 8) answered.shift();
    }
    void offerPort(host, to);
  };
  const { signal } = host.stopped;
  sw.addEventListener(
    'message',
    (event) => {
      if (isMessage(event.data, PORT_REQUEST) && event.source instanceof ServiceWorker) answer(event.data, event.source);
    },
    { signal },
  );
  if (typeof BroadcastChannel !== 'undefined') {
    const channel = new BroadcastChannel(PORT_CHANNEL);
    channel.addEventListener('message', (event) => {
      if (isMessage(event.data, PORT_REQUEST) && sw.controller) answer(event.data, sw.controller);
    });
    signal.addEventListener('abort', () => channel.close());
  }
  sw.addEventListener(
    'controllerchange',
    () => {
      if (sw.controller) void offerPort(host, sw.controller);
    },
    { signal },
  );
  sw.startMessages();
  if (sw.controller) await offerPort(host, sw.controller);
  return host;
}
