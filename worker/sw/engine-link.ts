// The service worker's end of the engine MessagePort: getting a port, sending requests, routing replies.
import { ApiError } from '../../src/protocol/errors';
import type { EngineEvent, FromEngine, ModelStatus, ToEngine } from '../../src/engine-protocol';
import type { ChatCompletionRequest } from '../../src/protocol/types';

/** Asks the pages of the origin for a port; a page hosting the engine answers with `engine-port`. */
export type PortRequester = () => Promise<void>;

export interface LinkOptions {
  requestPort: PortRequester;
  /** How long a caller waits for an engine before 503 `engine_unavailable`. */
  connectTimeoutMs?: number;
  /** How long a connected engine may take to acknowledge a request before its port counts as dead. */
  ackTimeoutMs?: number;
}

interface Pending {
  port: MessagePort;
  onMessage(message: FromEngine): void;
  onLost(error: ApiError): void;
}

const noEngine = () =>
  new ApiError(
    'engine_unavailable',
    'No inference engine is connected: open the inpage page in a tab of this origin (it hosts the engine), then retry.',
  );
const engineLost = () => new ApiError('engine_unavailable', 'The inference engine went away during the request (its tab or worker closed).');

let nextId = 0;

export class EngineLink {
  private port: MessagePort | null = null;
  private readonly waiters = new Set<(port: MessagePort) => void>();
  private readonly pending = new Map<string, Pending>();
  private readonly connectTimeoutMs: number;
  private readonly ackTimeoutMs: number;

  constructor(private readonly options: LinkOptions) {
    this.connectTimeoutMs = options.connectTimeoutMs ?? 1000;
    this.ackTimeoutMs = options.ackTimeoutMs ?? 3000;
  }

  get connected(): boolean {
    return this.port !== null;
  }

  /** Takes a port from a page. Requests already running on an older port finish there. */
  adopt(port: MessagePort): void {
    this.port = port;
    port.onmessage = (e: MessageEvent<FromEngine>) => this.pending.get(e.data.id)?.onMessage(e.data);
    // Fires when the other end's realm goes away (worker terminated, tab closed).
    port.addEventListener('close', () => this.lose(port));
    port.start();
    for (const wake of this.waiters) wake(port);
    this.waiters.clear();
  }

  /** Forgets a port and fails whatever was running on it. */
  private lose(port: MessagePort): void {
    if (this.port === port) this.port = null;
    port.close();
    for (const [id, p] of this.pending) {
      if (p.port !== port) continue;
      this.pending.delete(id);
      p.onLost(engineLost());
    }
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
      this.options.requestPort().catch(() => undefined);
    });
  }

  private async send(message: ToEngine, pending: Omit<Pending, 'port'>): Promise<MessagePort> {
    const port = await this.acquire();
    if (!port) throw noEngine();
    this.pending.set(message.id, { ...pending, port });
    port.postMessage(message);
    return port;
  }

  /** Model states as the engine sees them. */
  async status(): Promise<{ models: ModelStatus[]; fingerprint: string }> {
    const id = `s${++nextId}`;
    return new Promise((resolve, reject) => {
      let port: MessagePort | null = null;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        if (port) this.lose(port);
        reject(engineLost());
      }, this.ackTimeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.pending.delete(id);
      };
      this.send(
        { type: 'status', id },
        {
          onMessage: (m) => {
            done();
            if (m.type === 'status') resolve({ models: m.models, fingerprint: m.fingerprint });
            else if (m.type === 'error') reject(ApiError.fromData(m.error));
          },
          onLost: (err) => {
            done();
            reject(err);
          },
        },
      ).then(
        (p) => (port = p),
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
  async generate(request: ChatCompletionRequest, signal: AbortSignal): Promise<EngineRun> {
    const aborted = () => new ApiError('internal_error', 'The client aborted the request.');
    if (signal.aborted) throw aborted();
    const id = `g${++nextId}`;
    const run = new EngineRun();
    let port: MessagePort | null = null;
    let ackTimer: ReturnType<typeof setTimeout> | undefined;
    let resolveStart!: () => void;
    let rejectStart!: (err: ApiError) => void;
    const started = new Promise<void>((resolve, reject) => {
      resolveStart = resolve;
      rejectStart = reject;
    });
    // A rejection before start is the caller's to handle; one after start reaches it through the run.
    started.catch(() => undefined);

    const finish = () => {
      clearTimeout(ackTimer);
      this.pending.delete(id);
      signal.removeEventListener('abort', onAbort);
    };
    const fail = (err: ApiError) => {
      finish();
      rejectStart(err);
      run.fail(err);
    };
    const onAbort = () => {
      port?.postMessage({ type: 'abort', id } satisfies ToEngine);
      fail(aborted());
    };
    signal.addEventListener('abort', onAbort, { once: true });

    this.send(
      { type: 'generate', id, request },
      {
        onMessage: (m) => {
          switch (m.type) {
            case 'accepted':
              clearTimeout(ackTimer);
              return;
            case 'start':
              run.fingerprint = m.fingerprint;
              resolveStart();
              return;
            case 'event':
              run.push(m.event);
              return;
            case 'end':
              finish();
              run.end();
              return;
            case 'error':
              fail(ApiError.fromData(m.error));
              return;
            default:
              return;
          }
        },
        onLost: fail,
      },
    ).then(
      (p) => {
        port = p;
        if (signal.aborted) {
          // Aborted while waiting for a port: the engine got the request after `onAbort` ran.
          p.postMessage({ type: 'abort', id } satisfies ToEngine);
          this.pending.delete(id);
          return;
        }
        ackTimer = setTimeout(() => this.lose(p), this.ackTimeoutMs);
      },
      (err: unknown) => fail(ApiError.from(err)),
    );
    await started;
    return run;
  }
}

/** The events of one started generation, as an async iterable that ends at `end` or throws the failure. */
export class EngineRun implements AsyncIterable<EngineEvent> {
  fingerprint = '';
  private readonly queue: EngineEvent[] = [];
  private done = false;
  private error: ApiError | null = null;
  private wake: (() => void) | null = null;

  push(event: EngineEvent): void {
    if (this.done) return;
    this.queue.push(event);
    this.notify();
  }

  end(): void {
    this.done = true;
    this.notify();
  }

  fail(error: ApiError): void {
    if (this.done) return;
    this.error = error;
    this.done = true;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<EngineEvent> {
    for (;;) {
      const event = this.queue.shift();
      if (event) {
        yield event;
        continue;
      }
      if (this.error) throw this.error;
      if (this.done) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}
