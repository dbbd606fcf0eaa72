// One engine per origin: the tab holding the Web Lock `inpage-engine` hosts it; every other tab waits in line
// for the lock and takes over when the holder goes away (the browser releases a closed tab's locks at once).
// The service worker serves every tab, frame and worker of the origin from whichever tab hosts.
import { rescanWhenShown } from './cache-events';
import type { EngineHost } from './engine-host';
import { persistOnFirstDownload } from './storage';

export const ENGINE_LOCK = 'inpage-engine';

export interface EngineLeadership {
  /** The engine this tab hosts, or null while another tab does. */
  readonly host: EngineHost | null;
  /** Whether this tab is waiting in line to host (another tab holds the lock). */
  readonly waiting: boolean;
  /** When this tab started hosting (performance.now()), or null. */
  readonly hostingSince: number | null;
  /** Hears when this tab starts hosting; called at once if it already does. */
  onHost(listener: (host: EngineHost) => void): void;
}

/**
 * Hosts the engine (with `start`) if no other tab of the origin does, and resolves once it is hosted; otherwise
 * resolves at once with `host: null` and keeps waiting for the lock in the background, to take over later.
 * Without Web Locks (very old browsers) every tab hosts, as before.
 */
export async function claimEngine(start: () => Promise<EngineHost>): Promise<EngineLeadership> {
  let host: EngineHost | null = null;
  let waiting = false;
  let hostingSince: number | null = null;
  const listeners: ((host: EngineHost) => void)[] = [];
  const leadership: EngineLeadership = {
    get host() {
      return host;
    },
    get waiting() {
      return waiting;
    },
    get hostingSince() {
      return hostingSince;
    },
    onHost(listener) {
      listeners.push(listener);
      if (host) listener(host);
    },
  };

  const become = async (): Promise<void> => {
    waiting = false;
    host = await start();
    hostingSince = performance.now();
    // Hosting duties: keep the engine's view of the cache current, and ask to keep the weights it stores.
    rescanWhenShown(host);
    persistOnFirstDownload(host);
    for (const listener of listeners) {
      try {
        listener(host);
      } catch (err) {
        console.error('inpage: a listener for the engine failed:', err);
      }
    }
  };

  if (!navigator.locks) {
    await become();
    return leadership;
  }

  let hosted!: (outcome: { ok: true } | { ok: false; error: unknown }) => void;
  const hosting = new Promise<{ ok: true } | { ok: false; error: unknown }>((resolve) => (hosted = resolve));
  // Runs while this tab holds the lock: never returns while the engine runs, so the lock lives with the tab.
  const holdWhileHosting = async (): Promise<void> => {
    try {
      await become();
      hosted({ ok: true });
    } catch (error) {
      // Let the next tab in line try; this one stays a plain client.
      console.error('inpage: this tab could not host the engine:', error);
      host = null;
      hosted({ ok: false, error });
      return;
    }
    await new Promise<never>(() => undefined);
  };

  const got = await new Promise<boolean>((resolve, reject) => {
    navigator.locks
      .request(ENGINE_LOCK, { ifAvailable: true }, (lock) => {
        resolve(lock !== null);
        return lock ? holdWhileHosting() : undefined;
      })
      .catch(reject);
  });
  if (got) {
    const outcome = await hosting;
    if (!outcome.ok) throw outcome.error;
    return leadership;
  }
  waiting = true;
  void navigator.locks.request(ENGINE_LOCK, holdWhileHosting).catch((err: unknown) => {
    waiting = false;
    console.error('inpage: waiting to host the engine failed:', err);
  });
  return leadership;
}
