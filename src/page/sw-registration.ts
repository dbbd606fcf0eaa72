// Registers the service worker at scope "/" and waits until it controls this page (first visit included).
// If the worker can never take control (its install failed: e.g. no storage room for the app's files,
// which it precaches), this fails with an error saying so instead of waiting forever.
//
// A service worker can also go away under an open page: another tab unregisters it, or the person clears the
// site's data. `watchServiceWorker` notices (its registration is gone, or the page lost its controller) and
// registers it again; when that fails it says so and offers a restart.

import { CLAIM_REQUEST, STAY_AWAKE, STAY_AWAKE_ASK, isMessage } from '#shared/wire/page-messages';

/** How long an installed, active worker may take to control this page before the page says why not. */
export const CONTROL_TIMEOUT_MS = 4000;
/** How often an open page checks that its service worker is still there. */
const WATCH_MS = 2000;

const installFailed = () =>
  new Error(
    "The service worker could not be installed, so /v1 cannot be served from this page. The browser most often refuses it when it has no storage room for the app's files (this site's storage quota is used up): free some disk space or clear this site's data, then reload.",
  );

const notControlled = () =>
  new Error(
    `The service worker is installed but did not take control of this page within ${CONTROL_TIMEOUT_MS / 1000} s (it may have been unregistered by another tab, or the site's data cleared, while it was starting): reload the page.`,
  );

/** Which service worker: the app's (`/sw.js`, scope "/") or the library's (inpage-sw.js); both are one classic script. */
export interface ServiceWorkerSpec {
  url: string | URL;
  scope: string;
  type: WorkerType;
}

export const APP_SERVICE_WORKER: ServiceWorkerSpec = { url: '/sw.js', scope: '/', type: 'classic' };

/**
 * `repair`: the registration was lost under this page. The page may still have its old controller, but the
 * registration is awaited all the same, so a failure to register again is heard (not merely logged).
 */
export async function registerServiceWorker(spec: ServiceWorkerSpec = APP_SERVICE_WORKER, repair = false): Promise<void> {
  if (!('serviceWorker' in navigator)) {
    throw new Error('This browser has no service workers (or the page is not in a secure context): /v1 cannot be served.');
  }
  const sw = navigator.serviceWorker;
  const registering = sw.register(spec.url, { type: spec.type, scope: spec.scope }).catch((err: unknown) => {
    // The browser's reason (a 404, a wrong MIME type, a scope the script may not control), with the file named.
    const script = new URL(spec.url, location.href).href;
    throw new Error(
      `The service worker ${script} could not be registered (scope ${new URL(spec.scope, location.href).href}): ${err instanceof Error ? err.message : String(err)} Check that it is deployed there and served as JavaScript.`,
    );
  });
  if (sw.controller && !repair) {
    // Already controlled: the page is served now. register() only looks for an update, which can take seconds
    // (up to 2 s measured on warm reloads), so readiness does not wait for it.
    registering.catch((err: unknown) => console.warn('inpage: checking the service worker for an update failed:', err));
    return;
  }
  const registration = await registering;
  if (!sw.controller) {
    // The worker claims open pages when it activates.
    await new Promise<void>((resolve, reject) => {
      sw.addEventListener('controllerchange', () => resolve(), { once: true });
      const hopeless = () => !sw.controller && !registration.installing && !registration.waiting && !registration.active;
      const watch = (worker: ServiceWorker | null) =>
        worker?.addEventListener('statechange', () => {
          if (worker.state === 'redundant' && hopeless()) reject(installFailed());
        });
      watch(registration.installing);
      watch(registration.waiting);
      registration.addEventListener('updatefound', () => watch(registration.installing));
      // The install may already have failed by the time register() resolved.
      if (hopeless()) reject(installFailed());
      // An active worker with nothing installing will not activate again, so it will not claim this page by
      // itself: a registration revived after being unregistered while other tabs kept it running. Ask it to.
      if (registration.active && !registration.installing && !registration.waiting) {
        registration.active.postMessage(CLAIM_REQUEST);
        setTimeout(() => {
          if (!sw.controller) reject(notControlled());
        }, CONTROL_TIMEOUT_MS);
      }
    });
  }
}

export interface ServiceWatch {
  /** Stops watching. */
  stop(): void;
}

/**
 * Watches that this page keeps a service worker: every WATCH_MS, when the page is shown again, and when its
 * controller changes. When the registration is gone or the page lost its controller, registers again;
 * `onLost` hears when that fails (with why), `onRestored` when the service is back.
 */
export function watchServiceWorker(handlers: { onLost(reason: string): void; onRestored(): void }, spec: ServiceWorkerSpec = APP_SERVICE_WORKER): ServiceWatch {
  const sw = navigator.serviceWorker;
  let repairing: Promise<void> | null = null;
  let lost = false;
  const check = () => {
    repairing ??= (async () => {
      const registration = await sw.getRegistration(spec.scope).catch(() => undefined);
      if (registration?.active && sw.controller) return;
      try {
        await registerServiceWorker(spec, true);
        if (lost) handlers.onRestored();
        lost = false;
      } catch (err) {
        lost = true;
        handlers.onLost(err instanceof Error ? err.message : String(err));
      }
    })().finally(() => {
      repairing = null;
    });
  };
  const timer = setInterval(check, WATCH_MS);
  const onVisible = () => {
    if (document.visibilityState === 'visible') check();
  };
  document.addEventListener('visibilitychange', onVisible);
  sw.addEventListener('controllerchange', check);
  return {
    stop() {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
      sw.removeEventListener('controllerchange', check);
    },
  };
}

/**
 * Answers the service worker's asks for a message while it answers a request (worker/sw/stay-awake.ts): each answer
 * is an event, which keeps a busy worker alive. Every page that starts inpage answers, whatever serves its requests
 * (its own engine, another tab's, or the model provider's).
 */
export function answerStayAwakeAsks(): void {
  navigator.serviceWorker?.addEventListener('message', (event) => {
    if (isMessage(event.data, STAY_AWAKE_ASK) && event.source instanceof ServiceWorker) event.source.postMessage(STAY_AWAKE);
  });
}
