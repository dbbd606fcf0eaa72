// Consumer mode (docs/shared-models.md): with `modelProvider` set, this site runs the models of a provider
// deployment of inpage, whose files this browser already holds. The page embeds the provider's frame; the frame
// offers an engine port (and a control port) once the browser and the person allow it, and this page hands that
// port to its service worker as a hosting tab hands its own engine's, so /v1, keys and features stay as they are.
// Where the provider cannot serve (no storage access, consent refused or revoked, no answer in time, the frame
// gone), this site's own engine serves, and /v1/models and the Models area say why.
import * as Comlink from 'comlink';
import { activeCatalog } from '#shared/catalog';
import type { InpageConfig } from '#shared/config';
import type { AdapterReport, EngineControl } from '#shared/wire/engine-control';
import { providerServes, type FromEngine, type ModelStatus, type ProviderNote } from '#shared/wire/engine-port';
import { HELLO, OFFER, REFUSED, WAITING, messageType, type ControlReply } from '#shared/wire/provider-messages';
import { hostEngine, type EngineHost } from './engine-host';
import { PORT_REQUEST, isMessage, PORT_CHANNEL, portOffer, portRequestId } from '#shared/wire/page-messages';

/** The provider's frame: `modelProvider` as given, or its provider.html when it names an origin only. */
export function providerFrameUrl(setting: string, base: string): URL {
  const url = new URL(setting, base);
  return url.pathname === '/' ? new URL('/provider.html', url) : url;
}

/** Heartbeat on the control port: a frame silent for MISSED_BEATS periods is gone. */
const BEAT_MS = 1000;
const MISSED_BEATS = 3;
/** How long a status asked of the provider may take. */
const STATUS_MS = 3000;
/** How long a refusal's answer is given to reach the service worker before the provider's ports are released. */
const REFUSAL_SETTLE_MS = 250;
/** After a fallback, the provider is asked again each time the page is shown, at most this often. */
const ASK_AGAIN_GAP_MS = 5000;

type Embedded = { ok: true; frame: HTMLIFrameElement; engine: MessagePort; control: MessagePort } | { ok: false; why: string };

/**
 * Embeds the provider's frame and waits for its offer, its refusal, or the wait to end. `quiet`: asking again after a
 * fallback; a frame that would need the person's click is not shown (they answered already), and counts as a no.
 */
function embed(config: InpageConfig, quiet = false): Promise<Embedded> {
  const url = providerFrameUrl(config.modelProvider, location.href);
  const frame = document.createElement('iframe');
  frame.id = 'inpage-provider-frame';
  frame.title = `Model provider ${url.origin}`;
  // Lets the frame be cross-origin isolated under an isolated page (llama.cpp threads in its engine worker).
  frame.allow = 'cross-origin-isolated';
  frame.src = url.href;
  // Out of sight until the frame needs the person's click (WAITING); it must stay in the page while it serves.
  Object.assign(frame.style, {
    position: 'fixed',
    right: '16px',
    bottom: '16px',
    width: '420px',
    height: '150px',
    border: '1px solid #8888',
    borderRadius: '8px',
    background: 'Canvas',
    zIndex: '2147483647',
    visibility: 'hidden',
  });
  document.body.append(frame);
  return new Promise((resolve) => {
    const done = (outcome: Embedded) => {
      clearTimeout(timer);
      window.removeEventListener('message', onMessage);
      if (outcome.ok) Object.assign(frame.style, { visibility: 'hidden', width: '0', height: '0', border: '0' });
      else frame.remove();
      resolve(outcome);
    };
    const timer = setTimeout(
      () =>
        done({
          ok: false,
          why: `the model provider ${url.origin} did not offer its models within ${config.modelProviderWaitMs / 1000} s (no answer, or no click in its frame)`,
        }),
      config.modelProviderWaitMs,
    );
    const onMessage = (event: MessageEvent) => {
      if (event.source !== frame.contentWindow || event.origin !== url.origin) return;
      const type = messageType(event.data);
      if (type === OFFER && event.ports.length === 2) done({ ok: true, frame, engine: event.ports[0]!, control: event.ports[1]! });
      else if (type === WAITING && quiet) done({ ok: false, why: `the model provider ${url.origin} would ask for a click again` });
      else if (type === WAITING) {
        // As tall as the frame's question says it is (its list of models), within the window.
        const height = Number((event.data as { height?: unknown }).height);
        if (Number.isFinite(height) && height > 0) frame.style.height = `${Math.min(Math.ceil(height) + 2, innerHeight - 32)}px`;
        frame.style.visibility = 'visible';
      } else if (type === REFUSED) done({ ok: false, why: `the model provider ${url.origin} refused: ${String((event.data as { why?: unknown }).why)}` });
    };
    window.addEventListener('message', onMessage);
    frame.addEventListener('load', () => frame.contentWindow?.postMessage({ type: HELLO }, url.origin), { once: true });
  });
}

/**
 * The engine host of a consumer page: the provider's engine while it serves, this site's own engine (hostEngine)
 * from the moment it does not. Its `control` answers for whichever serves; the provider's side offers statuses
 * only (its models are managed on the provider's page).
 */
class ProviderHost implements EngineHost {
  private local: EngineHost | null = null;
  private connection: Extract<Embedded, { ok: true }> | null = null;
  private readonly releases: (() => void)[] = [];
  private readonly subscribers: ((models: ModelStatus[]) => void)[] = [];
  private readonly restartListeners: (() => void)[] = [];
  private statusPort: MessagePort | null = null;
  private nextId = 0;
  private beat: ReturnType<typeof setInterval> | undefined;
  private note: ProviderNote;
  private fallen: Promise<void> | null = null;
  /** Split: this site's own engine runs beside the provider's (some models refused to this site). */
  private splitting: Promise<void> | null = null;
  private listening = false;
  private poll: ReturnType<typeof setInterval> | undefined;
  private asking = false;
  private askedAt = -Infinity;
  readonly control: Comlink.Remote<EngineControl>;

  constructor(
    private readonly config: InpageConfig,
    private readonly origin: string,
  ) {
    this.note = { origin, serving: false, why: 'connecting to the model provider' };
    const providerSide: Partial<Record<keyof EngineControl, (...args: never[]) => Promise<unknown> | void>> = {
      ping: async () => true,
      status: () => this.providerStatus(),
      adapter: async (): Promise<AdapterReport> => ({
        available: false,
        reason: `The models run in the engine of the model provider ${origin}, from the files this browser keeps for it.`,
        features: [],
        shaderF16: false,
      }),
      rescan: async () => undefined,
      subscribe: () => undefined,
    };
    this.control = new Proxy({} as Comlink.Remote<EngineControl>, {
      get: (_, name) => {
        if (typeof name !== 'string' || name === 'then') return undefined;
        if (name === 'subscribe') return (listener: (models: ModelStatus[]) => void) => this.subscribe(listener);
        return async (...args: unknown[]) => {
          if (this.local) {
            const result = await (this.local.control as unknown as Record<string, (...a: unknown[]) => unknown>)[name]!(...args);
            return name === 'status' ? this.noted(result as ModelStatus[]) : result;
          }
          const own = providerSide[name as keyof EngineControl];
          if (own) return (own as (...a: unknown[]) => unknown)(...args);
          throw new Error(`The model provider ${origin} keeps this site's models: manage them on its own page.`);
        };
      },
    });
  }

  get worker(): Worker | null {
    return this.local?.worker ?? null;
  }

  get restarts(): number {
    return this.local?.restarts ?? 0;
  }

  onRestart(listener: () => void): void {
    this.restartListeners.push(listener);
    this.local?.onRestart(listener);
  }

  /** Each status with the provider note: its own (split: per model), else the page's. */
  private noted(models: ModelStatus[]): ModelStatus[] {
    return models.map((m) => ({ ...m, provider: m.provider ?? this.note }));
  }

  private async subscribe(listener: (models: ModelStatus[]) => void): Promise<void> {
    this.subscribers.push(listener);
    if (this.local) await this.local.control.subscribe(Comlink.proxy((models: ModelStatus[]) => listener(this.noted(models))));
  }

  /**
   * Serves through the provider: its ports, its heartbeat, its answers to the service worker's asks. Settles once
   * the first port is with the service worker.
   */
  serve(connection: Extract<Embedded, { ok: true }>): Promise<void> {
    this.connection = connection;
    this.note = providerServes(this.origin);
    const { control } = connection;
    let outstanding: { id: number; at: number } | null = null;
    control.onmessage = (event) => {
      const reply = event.data as ControlReply;
      if (reply?.type === 'pong' && outstanding?.id === reply.id) outstanding = null;
      // The refused request's own answer (the provider's reason) is on its way to the service worker on the engine
      // port, a channel of its own: the ports are declared dead (their locks released) a moment later, or that
      // request could end first with "the engine went away" (seen once in test:shared under load).
      else if (reply?.type === REFUSED && reply.model !== undefined)
        setTimeout(() => void this.split(`the model provider ${this.origin} refused: ${reply.why}`), REFUSAL_SETTLE_MS);
      else if (reply?.type === REFUSED) setTimeout(() => void this.fallBack(`the model provider ${this.origin} refused: ${reply.why}`), REFUSAL_SETTLE_MS);
    };
    this.beat = setInterval(() => {
      if (outstanding) {
        if (performance.now() - outstanding.at > MISSED_BEATS * BEAT_MS)
          void this.fallBack(`the model provider ${this.origin} stopped answering (its frame or engine is gone)`);
        return;
      }
      outstanding = { id: ++this.nextId, at: performance.now() };
      control.postMessage({ type: 'ping', id: outstanding.id });
    }, BEAT_MS);
    // Status polls of this page (the Models area) go on a port of their own, through the same consent check.
    this.statusPort = this.newPort();
    this.statusPort.start();
    this.listen();
    const sw = navigator.serviceWorker;
    const offered = sw.controller ? this.offer(sw.controller, connection.engine) : Promise.resolve();
    // Models of this site the provider does not let it use (or does not have): this site's engine runs those.
    void offered.then(() => this.splitIfNeeded());
    // Status polls for the subscribers (the provider pushes none), until a split or a fallback hands them to this
    // site's engine (both clear it).
    this.poll = setInterval(() => {
      if (this.subscribers.length === 0) return;
      this.providerStatus().then(
        (models) => {
          for (const listener of this.subscribers) listener(models);
        },
        () => undefined,
      );
    }, 2000);
    return offered;
  }

  /** Answers the service worker's asks for a port with a new one from the provider, while it serves (once per page). */
  private listen(): void {
    if (this.listening) return;
    this.listening = true;
    const sw = navigator.serviceWorker;
    const answered: string[] = [];
    const answer = (data: unknown, to: ServiceWorker) => {
      if (this.local || this.splitting || !this.connection) return;
      const ask = portRequestId(data);
      if (ask !== undefined) {
        if (answered.includes(ask)) return;
        if (answered.push(ask) > 8) answered.shift();
      }
      void this.offer(to, this.newPort());
    };
    sw.addEventListener('message', (event) => {
      if (isMessage(event.data, PORT_REQUEST) && event.source instanceof ServiceWorker) answer(event.data, event.source);
    });
    if (typeof BroadcastChannel !== 'undefined') {
      new BroadcastChannel(PORT_CHANNEL).addEventListener('message', (event) => {
        if (isMessage(event.data, PORT_REQUEST) && sw.controller) answer(event.data, sw.controller);
      });
    }
    sw.addEventListener('controllerchange', () => {
      if (sw.controller && !this.local && !this.splitting && this.connection) void this.offer(sw.controller, this.newPort());
    });
  }

  /** A new engine port from the provider (through its frame's consent check). */
  private newPort(): MessagePort {
    const channel = new MessageChannel();
    this.connection!.control.postMessage({ type: 'port' }, [channel.port1]);
    return channel.port2;
  }

  /**
   * Hands `port` to the service worker with a Web Lock this page holds until the provider is given up: the
   * provider's engine holds no lock the service worker could see (its locks are the provider's), so its release
   * tells the service worker that the port is dead.
   */
  private async offer(target: ServiceWorker, port: MessagePort): Promise<void> {
    const lock = `inpage-engine-port:${crypto.randomUUID()}`;
    if (navigator.locks) {
      await new Promise<void>((held) => {
        void navigator.locks.request(lock, () => new Promise<void>((release) => (held(), this.releases.push(release))));
      });
    }
    if (this.local || this.splitting) {
      port.close();
      return;
    }
    target.postMessage(portOffer(lock, activeCatalog(), this.note, false), [port]);
  }

  private providerStatus(): Promise<ModelStatus[]> {
    const port = this.statusPort;
    if (!port) return Promise.reject(new Error('The model provider is not connected.'));
    const id = `page-status-${++this.nextId}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => (port.removeEventListener('message', onMessage), reject(new Error('The model provider did not answer.'))), STATUS_MS);
      const onMessage = (event: MessageEvent<FromEngine>) => {
        const m = event.data;
        if (!m || !('id' in m) || m.id !== id) return;
        clearTimeout(timer);
        port.removeEventListener('message', onMessage);
        if (m.type === 'status') resolve(this.noted(m.models));
        else reject(new Error(m.type === 'error' ? m.error.message : `unexpected ${m.type}`));
      };
      port.addEventListener('message', onMessage);
      port.postMessage({ type: 'status', id });
    });
  }

  /** Splits when the provider's statuses (the models it lets this site run) miss a model of this site's catalog. */
  private async splitIfNeeded(): Promise<void> {
    let theirs: ModelStatus[];
    try {
      theirs = await this.providerStatus();
    } catch {
      return;
    }
    const served = new Set(theirs.map((m) => m.id));
    const missing = activeCatalog()
      .variants.filter((v) => !served.has(v.id))
      .map((v) => v.id);
    if (missing.length > 0) await this.split(`the model provider ${this.origin} does not serve this site ${missing.join(', ')}`);
  }

  /**
   * Split (docs/shared-models.md): this site's own engine starts, with a port to the provider's engine beside it
   * (worker/engine/consumer.ts), and the service worker uses it from now on: the provider still runs the models it
   * allows, from its files; this site's engine the others. Once; not after a fallback.
   */
  private split(why: string): Promise<void> {
    if (this.fallen) return this.fallen;
    return (this.splitting ??= (async () => {
      console.info(`inpage: ${why}; this site's own engine runs those, the model provider the others.`);
      this.note = {
        origin: this.origin,
        serving: true,
        why: `the model provider ${this.origin} serves the models it lets this site use; this site's own engine runs the others`,
      };
      const local = await hostEngine(this.config, this.note, { origin: this.origin, port: () => this.newPort() });
      if (this.fallen) return local.dispose();
      // The new engine's port is with the service worker: the provider's own ports go (requests not yet begun move).
      for (const release of this.releases.splice(0)) release();
      clearInterval(this.poll);
      this.adopt(local);
    })());
  }

  /** `local` serves from now on: the page's status listeners and restart listeners move to it. */
  private adopt(local: EngineHost): void {
    this.local = local;
    for (const listener of this.subscribers) void local.control.subscribe(Comlink.proxy((models: ModelStatus[]) => listener(this.noted(models))));
    for (const listener of this.restartListeners) {
      local.onRestart(listener);
      listener();
    }
  }

  /**
   * Gives the provider up: its ports are released, and this site's own engine serves. Once: a second reason (another
   * refusal, a missed heartbeat) while the first is under way starts no second engine. Each time the page is shown
   * again the provider is asked again, quietly (askAgain): the person may have allowed the site on its page meanwhile.
   */
  fallBack(why: string): Promise<void> {
    return (this.fallen ??= this.giveUp(why));
  }

  private async giveUp(why: string): Promise<void> {
    clearInterval(this.beat);
    clearInterval(this.poll);
    // A split engine (the provider beside it) is replaced by a plain one.
    const split = await this.splitting?.then(
      () => this.local,
      () => null,
    );
    this.note = { origin: this.origin, serving: false, why };
    console.warn(`inpage: this site's own engine serves: ${why}.`);
    const placeholder = hostEngine(this.config, this.note);
    // Released locks tell the service worker that the provider's ports are dead; running requests end with an error.
    for (const release of this.releases.splice(0)) release();
    this.connection?.frame.remove();
    this.connection = null;
    this.statusPort?.close();
    this.statusPort = null;
    const local = await placeholder;
    split?.dispose();
    this.splitting = null;
    this.adopt(local);
    document.addEventListener('visibilitychange', this.onShown);
  }

  private readonly onShown = () => {
    if (document.visibilityState === 'visible') void this.askAgain();
  };

  /** After a fallback: embeds the provider's frame again, without showing it; if it offers now, it serves again. */
  private async askAgain(): Promise<void> {
    if (!this.local || this.asking || performance.now() - this.askedAt < ASK_AGAIN_GAP_MS) return;
    this.asking = true;
    this.askedAt = performance.now();
    try {
      const embedded = await embed(this.config, true);
      if (embedded.ok && this.local) await this.comeBack(embedded);
      else if (embedded.ok) embedded.frame.remove();
    } finally {
      this.asking = false;
    }
  }

  /**
   * The provider serves again: its port goes to the service worker, then this site's own engine ends (a request
   * running there ends with `engine_unavailable`).
   */
  private async comeBack(connection: Extract<Embedded, { ok: true }>): Promise<void> {
    const local = this.local!;
    document.removeEventListener('visibilitychange', this.onShown);
    this.local = null;
    this.fallen = null;
    console.info(`inpage: the model provider ${this.origin} serves this site again.`);
    await this.serve(connection);
    local.dispose();
    for (const listener of this.restartListeners) listener();
  }

  dispose(): void {
    clearInterval(this.beat);
    clearInterval(this.poll);
    document.removeEventListener('visibilitychange', this.onShown);
    for (const release of this.releases.splice(0)) release();
    this.connection?.frame.remove();
    this.connection = null;
    this.local?.dispose();
  }
}

/** The engine of a page: the model provider's where `modelProvider` is set and it serves, else this site's own. */
export async function hostEngineFor(config: InpageConfig, until?: number): Promise<EngineHost> {
  if (!config.modelProvider) return hostEngine(config, undefined, undefined, until);
  const origin = providerFrameUrl(config.modelProvider, location.href).origin;
  const host = new ProviderHost(config, origin);
  const embedded = await embed(config);
  if (embedded.ok) void host.serve(embedded);
  else await host.fallBack(embedded.why);
  return host;
}
