// The messages between the pages and the service worker: the engine's MessagePort handed over, and the small
// ones around it (claim, engine failure, ping, stay awake).
import type { ModelCatalog } from '../model-config';
import type { ProviderNote } from './engine-port';

/** Whether `data` is a message of `kind` (an object whose `type` is the kind's). */
export function isMessage(data: unknown, kind: { readonly type: string }): boolean {
  return typeof data === 'object' && data !== null && (data as { type?: unknown }).type === kind.type;
}

/** Service worker → pages: "I have no engine port; whoever hosts the engine, send one." */
export const PORT_REQUEST = { type: 'inpage:engine-port-request' } as const;

/**
 * An ask as sent: `ask` names it, since one ask may reach a page twice (see PORT_CHANNEL), and each answer
 * opens a port.
 */
export interface PortRequest {
  type: typeof PORT_REQUEST.type;
  ask?: string;
}

export function portRequest(ask: string): PortRequest {
  return { ...PORT_REQUEST, ask };
}

/** The name of an ask, if it has one. */
export function portRequestId(data: unknown): string | undefined {
  const ask = (data as { ask?: unknown } | null)?.ask;
  return typeof ask === 'string' ? ask : undefined;
}

/**
 * A BroadcastChannel on which an activated service worker that has just started asks for a port, as the first
 * thing its script does: the pages get the ask while it is still evaluating its script, where `clients.matchAll`
 * answers only after. A page answers it by offering to its controller, which is that worker. The same ask also
 * goes to each page by `postMessage` (it reaches pages the worker does not control yet); a page answers an ask
 * once.
 */
export const PORT_CHANNEL = 'inpage-engine-port';

/** Page → service worker, with the port in `transfer`. */
export const PORT_OFFER = { type: 'inpage:engine-port' } as const;

/**
 * The offer as sent: `lock` names a Web Lock the engine worker holds for as long as it lives. The service
 * worker waits on it to learn at once that the engine is gone (tab closed, worker replaced), since Chromium
 * fires no `close` event on a MessagePort whose other end disappears.
 */
export interface PortOffer {
  type: typeof PORT_OFFER.type;
  lock?: string;
  /**
   * The models the deployment offers (from its config, checked by the page): the service worker answers
   * /v1/models and resolves request models by it, so `installInpage({config})` reaches it as the file does.
   */
  catalog?: ModelCatalog;
  /**
   * The port goes out as the engine worker is handed its end, before it holds `lock`: the service worker watches
   * the lock once the engine says `holding` on the port. (An offer without it, from a page of an older build,
   * comes after the engine holds the lock.)
   */
  lockPending?: true;
  /** Consumer mode (docs/shared-models.md): whose engine this port reaches, and why. */
  provider?: ProviderNote;
}

export function portOffer(lock: string, catalog?: ModelCatalog, provider?: ProviderNote, lockPending = true): PortOffer {
  return { ...PORT_OFFER, lock, ...(lockPending ? { lockPending: true as const } : {}), ...(catalog ? { catalog } : {}), ...(provider ? { provider } : {}) };
}

/** The provider note an offer carries, if it is one. */
export function offerProvider(data: unknown): ProviderNote | undefined {
  const note = (data as { provider?: Partial<ProviderNote> } | null)?.provider;
  return note && typeof note.origin === 'string' && typeof note.serving === 'boolean' && typeof note.why === 'string'
    ? { origin: note.origin, serving: note.serving, why: note.why }
    : undefined;
}

/** Whether the offer's lock is to be watched only after the engine says `holding` (see PortOffer). */
export function offerLockPending(data: unknown): boolean {
  return (data as { lockPending?: unknown } | null)?.lockPending === true;
}

/** The catalog an offer carries, if it is one. */
export function offerCatalog(data: unknown): ModelCatalog | undefined {
  const catalog = (data as { catalog?: unknown } | null)?.catalog as ModelCatalog | undefined;
  return catalog && Array.isArray(catalog.variants) && catalog.variants.length > 0 ? catalog : undefined;
}

/** The liveness lock of an offer, if it names one. */
export function offerLock(data: unknown): string | undefined {
  const lock = (data as { lock?: unknown } | null)?.lock;
  return typeof lock === 'string' && lock.length > 0 ? lock : undefined;
}

/** A page asks an active service worker that does not control it to take control (it calls clients.claim()). */
export const CLAIM_REQUEST = { type: 'inpage:claim' } as const;

/**
 * Page → service worker: the page that was to host the engine could not start it, and why (the error its start
 * rejected with). Until an engine connects, /v1 answers 503 `engine_unavailable` naming that cause.
 */
export const ENGINE_FAILED = 'inpage:engine-failed';

export function engineFailed(why: string): { type: typeof ENGINE_FAILED; why: string } {
  return { type: ENGINE_FAILED, why };
}

/** The cause an `engineFailed` message carries, if it is one. */
export function engineFailure(data: unknown): string | undefined {
  const message = data as { type?: unknown; why?: unknown } | null;
  return message?.type === ENGINE_FAILED && typeof message.why === 'string' ? message.why.slice(0, 2000) : undefined;
}

/**
 * Service worker → pages: it is answering a /v1 request and asks for a message back (`STAY_AWAKE`), so the browser
 * counts it busy (Firefox stops a worker 60 s after its last event, even with a request in progress:
 * worker/sw/stay-awake.ts).
 */
export const STAY_AWAKE_ASK = { type: 'inpage:stay-awake-ask' } as const;
/** Page → service worker: the message asked for; it needs no answer. */
export const STAY_AWAKE = { type: 'inpage:stay-awake' } as const;

/**
 * Page → pages: a page that has started says the queue depth its settings give (the deployment's file, as read
 * fresh at its start, and installInpage's `config`), with the scope of its service worker. The page hosting the
 * engine under that scope applies it to its running engine (the queue is the engine's), so a deployment's new
 * `queueDepth` is in force from the first page that reads it, not only once the hosting tab reloads.
 */
export const SETTINGS_CHANNEL = 'inpage-settings';
export const SETTINGS_READ = { type: 'inpage:settings' } as const;

export function settingsRead(scope: string, queueDepth: number): { type: typeof SETTINGS_READ.type; scope: string; queueDepth: number } {
  return { ...SETTINGS_READ, scope, queueDepth };
}

/** The queue depth a `settingsRead` message gives for `scope` (a whole number, at least 0), if it is one. */
export function settingsQueueDepth(data: unknown, scope: string): number | undefined {
  const message = data as { type?: unknown; scope?: unknown; queueDepth?: unknown } | null;
  if (message?.type !== SETTINGS_READ.type || message.scope !== scope) return undefined;
  const depth = message.queueDepth;
  return typeof depth === 'number' && Number.isSafeInteger(depth) && depth >= 0 ? depth : undefined;
}

/**
 * A page asks the worker that controls it for its wall clock (Date.now()), on the port sent with it: the one source of
 * the times of records (src/shared/record-time.ts). The answer, on that port: `{type, now}`.
 */
export const CLOCK_ASK = { type: 'inpage:clock' } as const;

export function clockAnswer(now: number): { type: typeof CLOCK_ASK.type; now: number } {
  return { ...CLOCK_ASK, now };
}

/** The time a `clockAnswer` says, if it is one. */
export function clockReading(data: unknown): number | undefined {
  const message = data as { type?: unknown; now?: unknown } | null;
  return message?.type === CLOCK_ASK.type && typeof message.now === 'number' && Number.isFinite(message.now) ? message.now : undefined;
}

/** A page asks the worker that controls it whether it runs inpage (installInpage with the app's own worker). */
export const PING = { type: 'inpage:ping' } as const;
/** The answer, on the port sent with the ping. */
export const PONG = { type: 'inpage:pong' } as const;
