// The service worker's end of the engine MessagePort: getting a port, sending requests, routing replies.
import { ApiError, clientAborted } from '../protocol/errors';
import { isEmbeddingRequest } from '../protocol/embeddings';
import { unpackEvents, type EngineRequest as RunRequest, type FromEngine, type ModelStatus, type ToEngine } from './engine-port';
import type { Usage } from '../protocol/types';
import { EngineRun } from './engine-run';
import type { ProviderNote } from './engine-port';

/** Asks the pages of the origin for a port; a page hosting the engine answers with `engine-port`. */
export type PortRequester = () => Promise<void>;

export interface LinkOptions {
  requestPort: PortRequester;
  /** How long a caller waits for an engine before 503 `engine_unavailable`. */
  connectTimeoutMs?: number;
  /** How long a connected engine may take to acknowledge a request before its port counts as dead. */
  ackTimeoutMs?: number;
  /**
   * How long requests that had not started when their engine went away (its tab closed) wait for the next
   * engine (another tab taking over) before they too end with 503 `engine_unavailable`.
   */
  handoverTimeoutMs?: number;
  /**
   * Resolves once nobody holds the Web Lock `name` (the service worker: `navigator.locks`). A port offered
   * with a lock counts as dead when the lock is released: the engine worker that held it has ended.
   */
  whenLockFree?: (name: string) => Promise<void>;
  /**
   * The name of a Web Lock this side holds for its whole life, once held. Each adopted port is told it
   * (`watch`), so the engine abandons that port's generations when this service worker is gone.
   */
  lifeLock?: Promise<string | undefined>;
  /** When the pages were last asked for a port before this link existed (a starting worker asks at once). */
  askedAt?: number;
  /**
   * How long an engine with requests in progress may send nothing at all before they fail with 503
   * `engine_unavailable` (default ENGINE_SILENCE_MS). While it has requests it is asked for its status every quarter of
   * this, which a live engine answers at once, so only a stuck one stays silent.
   */
  silenceTimeoutMs?: number;
}

/**
 * The default `silenceTimeoutMs`: a minute. The engine worker answers a status ask in one turn of its event loop,
 * even while it loads or generates (llama.cpp runs in wllama's own worker, web-llm on the GPU); one that stays
 * silent this long is stuck (seen in Firefox: a worker blocked in a storage call at the edge of the site's quota),
 * and its requests would otherwise wait forever.
 */
export const ENGINE_SILENCE_MS = 60_000;

/**
 * Where a request stands with the engine it was last posted to, named by what that engine last said of it. An
 * engine says these in this order (worker/engine/engine-worker-main.ts): `accepted` once the request is in its queue,
 * `start` when it begins it, `events` with each part of its answer.
 * - `sent`: posted, nothing heard of it yet (also while it waits, port null, for the next engine);
 * - `accepted`: in that engine's queue, not begun;
 * - `started`: begun, nothing of its answer sent yet;
 * - `answering`: some of its answer sent: the client may have seen it.
 */
export type Phase = 'sent' | 'accepted' | 'started' | 'answering';

/** Why a port was given up: its far end closed (tab or worker gone), or it stopped answering. */
export type LossReason = 'closed' | 'silent';

interface PhaseRules {
  /** The phase a message of each type moves it to; a type not listed leaves it where it is. */
  readonly on: Partial<Record<FromEngine['type'], Phase>>;
  /** Whether it moves to the next engine (else fails) when its port is given up, for each reason. */
  readonly movesWhenLost: Readonly<Record<LossReason, boolean>>;
  /** Whether the engine has begun it, and so reports what it cost (`aborted`) when told to abort it. */
  readonly begun: boolean;
}

/** The request's life in one place: its transitions, and what losing its engine does to it in each phase. */
const PHASES: Readonly<Record<Phase, PhaseRules>> = {
  sent: {
    on: { accepted: 'accepted', start: 'started' },
    movesWhenLost: {
      // From a closed port it may never have arrived, and nobody else will run it.
      closed: true,
      // An engine that did not even acknowledge it (ackTimeoutMs) may or may not hold it: it fails, saying why.
      silent: false,
    },
    begun: false,
  },
  accepted: {
    on: { start: 'started' },
    // Queued, so nobody has begun it; a silent engine may still hold it in its queue, and is told to drop it.
    movesWhenLost: { closed: true, silent: true },
    begun: false,
  },
  started: {
    on: { events: 'answering' },
    movesWhenLost: {
      // Its engine is gone and the client has seen nothing of it: the next engine answers it whole.
      closed: true,
      // A silent engine may be prefilling it; moving it would run it twice.
      silent: false,
    },
    begun: true,
  },
  answering: {
    on: {},
    // Part of its answer is out: it lives and dies with that engine.
    movesWhenLost: { closed: false, silent: false },
    begun: true,
  },
};

/** The phase a request in `phase` is in once its engine sent a message of `type`. */
export function advance(phase: Phase, type: FromEngine['type']): Phase {
  return PHASES[phase].on[type] ?? phase;
}

/**
 * Whether a request moves to the next engine when its port is given up for `reason` (else it fails with 503).
 * Only a `movable` one does (a generation: a status ask ends with its port, the caller asks again).
 */
export function movesWhenLost(movable: boolean, phase: Phase, reason: LossReason): boolean {
  return movable && PHASES[phase].movesWhenLost[reason];
}

/** Whether the engine has begun a request in `phase`, and so reports its cost (`aborted`) after an abort. */
export function begun(phase: Phase): boolean {
  return PHASES[phase].begun;
}

interface Pending {
  /** Where the request was sent; null while it waits to move to the next engine. */
  port: MessagePort | null;
  readonly message: EngineRequest;
  /** Where it stands with the engine on `port` (`advance`); back to `sent` when it moves. */
  phase: Phase;
  /** Whether it may be sent again to another engine (`movesWhenLost`). */
  readonly movable: boolean;
  onMessage(message: FromEngine): void;
  onLost(error: ApiError): void;
  /** Called each time the message goes out on a port: first send, and after a move. */
  onPosted?(port: MessagePort): void;
}

/** The messages that carry a request id (all but `watch`). */
type EngineRequest = Extract<ToEngine, { id: string }>;

const noEngine = (failure: string | null) =>
  new ApiError(
    'engine_unavailable',
    failure
      ? `No inference engine is connected: the page that was to host it could not start it. ${failure}`
      : 'No inference engine is connected: open the inpage page in a tab of this origin (it hosts the engine), then retry.',
  );
const engineLost = (reason: LossReason = 'closed') =>
  new ApiError(
    'engine_unavailable',
    reason === 'closed'
      ? 'The inference engine went away during the request (its tab or worker closed).'
      : 'The inference engine stopped answering during the request (its worker is stuck): reload the inpage page that hosts it, then retry.',
  );

let nextId = 0;

/** A port asked for this recently is still on its way; asking again would only open a second one. */
const ASK_AGAIN_MS = 250;
/** How long an aborted generation's cost report (`aborted`) is waited for before booking what was delivered. */
const SPENT_WAIT_MS = 2000;

export class EngineLink {
  /** Consumer mode (docs/shared-models.md): what the latest port's offer said of the model provider. */
  provider: ProviderNote | null = null;
  /** Why the engine could not start, as its page said (`engineFailed`), until an engine connects. */
  failure: string | null = null;
  private port: MessagePort | null = null;
  private readonly waiters = new Set<(port: MessagePort) => void>();
  private readonly pending = new Map<string, Pending>();
  /** Aborted generations whose cost the engine is still to report (`aborted`), by id. */
  private readonly afterAbort = new Map<string, (spent: Usage | null) => void>();
  private readonly connectTimeoutMs: number;
  private readonly ackTimeoutMs: number;
  private readonly handoverTimeoutMs: number;
  private readonly silenceTimeoutMs: number;
  private handoverTimer: ReturnType<typeof setTimeout> | undefined;
  /** When each port last sent anything; read while it has requests (`checkSilence`). */
  private readonly heard = new WeakMap<MessagePort, number>();
  private silenceTimer: ReturnType<typeof setInterval> | undefined;
  /** When pages were last asked for a port while none was held (so a burst of requests asks once). */
  private askedAt: number;

  constructor(private readonly options: LinkOptions) {
    this.connectTimeoutMs = options.connectTimeoutMs ?? 1000;
    this.ackTimeoutMs = options.ackTimeoutMs ?? 3000;
    this.handoverTimeoutMs = options.handoverTimeoutMs ?? 5000;
    this.silenceTimeoutMs = options.silenceTimeoutMs ?? ENGINE_SILENCE_MS;
    this.askedAt = options.askedAt ?? -Infinity;
  }

  get connected(): boolean {
    return this.port !== null;
  }

  /** Requests waiting for the next engine because theirs went away before starting them. */
  get waitingForHandover(): number {
    let n = 0;
    for (const p of this.pending.values()) if (p.port === null) n++;
    return n;
  }

  /**
   * Takes a port from a page. Requests already running on an older port finish there; requests that were
   * waiting for a new engine go to this one first, in the order they came.
   */
  adopt(port: MessagePort, lock?: string, lockPending = false): void {
    this.port = port;
    this.failure = null;
    const watch = () => {
      this.options.whenLockFree?.(lock!).then(
        () => this.lose(port, 'closed'),
        () => undefined,
      );
    };
    // A pending lock: the engine may not hold it yet (it says `holding` when it does).
    if (lock && !lockPending) watch();
    this.heard.set(port, performance.now());
    port.onmessage = (e: MessageEvent<FromEngine>) => {
      this.heard.set(port, performance.now());
      if (e.data.type === 'holding') {
        if (lock && lockPending && e.data.lock === lock) watch();
        return;
      }
      const p = this.pending.get(e.data.id);
      if (p?.port === port) {
        p.phase = advance(p.phase, e.data.type);
        p.onMessage(e.data);
      } else if (e.data.type === 'aborted') this.afterAbort.get(e.data.id)?.(e.data.spent);
    };
    // Fires when the other end's realm goes away (worker terminated, tab closed).
    port.addEventListener('close', () => this.lose(port, 'closed'));
    port.start();
    this.options.lifeLock?.then(
      (lock) => {
        if (lock) port.postMessage({ type: 'watch', lock } satisfies ToEngine);
      },
      () => undefined,
    );
    clearTimeout(this.handoverTimer);
    this.handoverTimer = undefined;
    this.askedAt = -Infinity;
    for (const p of this.pending.values()) if (p.port === null) this.post(p, port);
    for (const wake of this.waiters) wake(port);
    this.waiters.clear();
  }

  private post(p: Pending, port: MessagePort): void {
    p.port = port;
    port.postMessage(p.message);
    p.onPosted?.(port);
    this.silenceTimer ??= setInterval(() => this.checkSilence(), this.silenceTimeoutMs / 4);
  }

  /**
   * Every quarter of `silenceTimeoutMs` while requests are out: a port silent that long is given up (its requests
   * fail, or move if not yet begun); one silent for a quarter of it is asked for its status, which any live engine answers.
   */
  private checkSilence(): void {
    const ports = new Set<MessagePort>();
    for (const p of this.pending.values()) if (p.port) ports.add(p.port);
    // None out (those waiting for the next engine start it again when they are posted there).
    if (ports.size === 0) {
      clearInterval(this.silenceTimer);
      this.silenceTimer = undefined;
      return;
    }
    const now = performance.now();
    for (const port of ports) {
      const quiet = now - (this.heard.get(port) ?? now);
      if (quiet >= this.silenceTimeoutMs) this.lose(port, 'silent');
      else if (quiet >= this.silenceTimeoutMs / 4) port.postMessage({ type: 'status', id: `w${++nextId}` } satisfies ToEngine);
    }
  }

  /**
   * Forgets a port. What had begun answering on it fails; generations that had not (queued behind another, still
   * on their way when the far end closed, or begun with nothing sent yet on an engine that is gone) wait for the
   * next engine, which a page taking over provides.
   */
  private lose(port: MessagePort, reason: LossReason): void {
    if (this.port === port) this.port = null;
    let moving = 0;
    for (const [id, p] of this.pending) {
      if (p.port !== port) continue;
      if (movesWhenLost(p.movable, p.phase, reason)) {
        // An engine that merely stopped answering may still hold it in its queue: withdraw it there.
        if (reason === 'silent') port.postMessage({ type: 'abort', id } satisfies ToEngine);
        p.port = null;
        p.phase = 'sent';
        moving++;
        continue;
      }
      this.pending.delete(id);
      p.onLost(engineLost(reason));
    }
    port.close();
    if (moving === 0) return;
    if (this.port) {
      // A new engine came before the old one's close was noticed.
      for (const p of this.pending.values()) if (p.port === null) this.post(p, this.port);
      return;
    }
    this.handoverTimer ??= setTimeout(() => {
      this.handoverTimer = undefined;
      for (const [id, p] of this.pending) {
        if (p.port !== null) continue;
        this.pending.delete(id);
        p.onLost(engineLost());
      }
    }, this.handoverTimeoutMs);
    this.ask(true);
  }

  /**
   * Asks the pages for an engine port unless one is held or was asked for in the last ASK_AGAIN_MS (each page
   * answers an ask with a fresh port, so asking twice would open two). `force` asks regardless (a port was lost).
   */
  private ask(force = false): void {
    const now = performance.now();
    if (!force && (this.port || now - this.askedAt < ASK_AGAIN_MS)) return;
    this.askedAt = now;
    this.options.requestPort().catch(() => undefined);
  }

  /**
   * Settles once an engine is connected, or after the connect timeout without one. A port offer brings the
   * deployment's catalog of models, so routes that resolve model ids wait for it after a restart.
   */
  async settled(): Promise<void> {
    await this.acquire();
  }

  /** The current port, or one a page hands over within the connect timeout, or null. */
  private async acquire(): Promise<MessagePort | null> {
    if (this.port) return this.port;
    return new Promise<MessagePort | null>((resolve) => {
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        resolve(null);
      }, this.connectTimeoutMs);
      const wake = (port: MessagePort) => {
        clearTimeout(timer);
        resolve(port);
      };
      this.waiters.add(wake);
      this.ask();
    });
  }

  private async send(message: EngineRequest, handlers: Pick<Pending, 'onMessage' | 'onLost' | 'onPosted' | 'movable'>): Promise<Pending> {
    const port = await this.acquire();
    if (!port) throw noEngine(this.failure);
    const pending: Pending = { ...handlers, message, port: null, phase: 'sent' };
    this.pending.set(message.id, pending);
    this.post(pending, port);
    return pending;
  }

  /** Model states as the engine sees them. */
  async status(): Promise<{ models: ModelStatus[] }> {
    const id = `s${++nextId}`;
    return new Promise((resolve, reject) => {
      let port: MessagePort | null = null;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        if (port) this.lose(port, 'silent');
        reject(engineLost('silent'));
      }, this.ackTimeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.pending.delete(id);
      };
      this.send(
        { type: 'status', id },
        {
          movable: false,
          onMessage: (m) => {
            done();
            if (m.type === 'status') resolve({ models: m.models });
            else if (m.type === 'error') reject(ApiError.fromData(m.error));
          },
          onLost: (err) => {
            done();
            reject(err);
          },
        },
      ).then(
        (p) => (port = p.port),
        (err: unknown) => {
          done();
          reject(err);
        },
      );
    });
  }

  /**
   * Starts a generation. Resolves once the engine has checked and begun it (so the caller can still send a
   * real error status); rejects with the ApiError otherwise. Aborting `signal` stops it at any point.
   */
  async generate(request: RunRequest, signal: AbortSignal): Promise<EngineRun> {
    if (signal.aborted) throw clientAborted();
    const g = this.openGeneration(signal);
    const message: EngineRequest = isEmbeddingRequest(request) ? { type: 'embed', id: g.id, request } : { type: 'generate', id: g.id, request };
    this.send(message, {
      movable: true,
      onPosted: (port) => this.awaitAck(g, port),
      onMessage: (m) => this.onGenerationMessage(g, m),
      onLost: (err) => {
        g.run.settleSpent(null);
        this.failGeneration(g, err);
      },
    }).then(
      (p) => this.sentGeneration(g, p),
      (err: unknown) => {
        g.run.settleSpent(null);
        this.failGeneration(g, ApiError.from(err));
      },
    );
    await g.started.catch((err: unknown) => {
      g.run.settleSpent(null);
      throw err;
    });
    return g.run;
  }

  /** A generation's state on this side: its run, the promise `generate` waits on, and its abort listener. */
  private openGeneration(signal: AbortSignal): Generation {
    let resolveStart!: () => void;
    let rejectStart!: (err: ApiError) => void;
    const started = new Promise<void>((resolve, reject) => {
      resolveStart = resolve;
      rejectStart = reject;
    });
    // A rejection before start is the caller's to handle; one after start reaches it through the run.
    started.catch(() => undefined);
    const g: Generation = {
      id: `g${++nextId}`,
      run: new EngineRun(),
      signal,
      ackTimer: undefined,
      started,
      resolveStart,
      rejectStart,
      onAbort: () => this.abortGeneration(g),
    };
    signal.addEventListener('abort', g.onAbort, { once: true });
    return g;
  }

  /** Each time the request goes out: an engine that does not acknowledge it within ackTimeoutMs counts as dead. */
  private awaitAck(g: Generation, port: MessagePort): void {
    clearTimeout(g.ackTimer);
    g.ackTimer = setTimeout(() => this.lose(port, 'silent'), this.ackTimeoutMs);
  }

  /** What the engine says of the generation (its phase has already moved on: `adopt`). */
  private onGenerationMessage(g: Generation, m: FromEngine): void {
    switch (m.type) {
      case 'accepted':
        clearTimeout(g.ackTimer);
        return;
      case 'start':
        g.run.fingerprint = m.fingerprint;
        g.run.servedBy = m.servedBy ?? 'local';
        g.resolveStart();
        return;
      case 'events':
        g.run.push(unpackEvents(m.events));
        return;
      case 'end':
        this.closeGeneration(g);
        g.run.settleSpent(null);
        g.run.end();
        return;
      case 'error':
        g.run.settleSpent(m.spent ?? null);
        this.failGeneration(g, ApiError.fromData(m.error));
        return;
      default:
        return;
    }
  }

  /** The request is out on its first port (or the link had none): an abort while it waited for one is sent now. */
  private sentGeneration(g: Generation, p: Pending): void {
    if (!g.signal.aborted) return;
    // Aborted while waiting for a port: the engine got the request after `abortGeneration` ran.
    p.port?.postMessage({ type: 'abort', id: g.id } satisfies ToEngine);
    clearTimeout(g.ackTimer);
    this.pending.delete(g.id);
  }

  /** The caller aborted: tell the engine, wait a while for what a begun generation cost, and fail the run. */
  private abortGeneration(g: Generation): void {
    const p = this.pending.get(g.id);
    p?.port?.postMessage({ type: 'abort', id: g.id } satisfies ToEngine);
    if (p?.port && begun(p.phase)) {
      // The engine says what the generation cost once it has stopped; wait for that a while.
      const timer = setTimeout(() => report(null), SPENT_WAIT_MS);
      const report = (spent: Usage | null) => {
        clearTimeout(timer);
        this.afterAbort.delete(g.id);
        g.run.settleSpent(spent);
      };
      this.afterAbort.set(g.id, report);
    } else g.run.settleSpent(null);
    this.failGeneration(g, clientAborted());
  }

  /** Ends the generation's bookkeeping here: its ack timer, its pending entry, its abort listener. */
  private closeGeneration(g: Generation): void {
    clearTimeout(g.ackTimer);
    this.pending.delete(g.id);
    g.signal.removeEventListener('abort', g.onAbort);
  }

  /** Ends it with `err`: `generate` rejects with it if the engine had not begun, else the run fails with it. */
  private failGeneration(g: Generation, err: ApiError): void {
    this.closeGeneration(g);
    g.rejectStart(err);
    g.run.fail(err);
  }
}

/** One generation's state on the service worker's side (`EngineLink.generate`). */
interface Generation {
  readonly id: string;
  readonly run: EngineRun;
  readonly signal: AbortSignal;
  /** While the engine has not acknowledged the request on its latest port. */
  ackTimer: ReturnType<typeof setTimeout> | undefined;
  /** Settles once the engine has begun it (`start`) or it failed before. */
  readonly started: Promise<void>;
  readonly resolveStart: () => void;
  readonly rejectStart: (err: ApiError) => void;
  readonly onAbort: () => void;
}
