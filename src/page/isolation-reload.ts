// Every thread from the first visit. llama.cpp runs on several threads only in a cross-origin-isolated page
// (src/shared/isolation.ts). On a first visit to a server that sends no COOP/COEP the page is not isolated; the
// service worker adds the headers to the navigations it serves, so the next one is. Rather than run that first
// visit on one thread, the page reloads itself once, as soon as the worker controls it and before the engine
// worker is created or the workspace takes any input (as coi-serviceworker does), so nothing it holds is lost.
//
// It reloads only when all of these hold, so a page never loops and a browser that cannot be isolated (Safari has
// no COEP `credentialless`) stays on one thread and says so, as before:
// - the deployment lets it (`isolationReload`, `once` by default; `off` never reloads);
// - this page may host the engine (a client of another tab's engine computes nothing);
// - the page is not isolated and its own navigation was not served by a service worker (one that was, and still
//   left it unisolated, would again);
// - the worker that now controls it says it serves this page with the isolation headers (inpage's own worker for a
//   page in its precache; never inpage as a guest in an app's own worker, which decides the headers itself);
// - this tab has not reloaded for it already (a sessionStorage guard, kept until a load is isolated).
import { answersIsolated, isolationAsk } from '#shared/wire/page-messages';

/** The tab's guard: set before the reload, removed once a load is isolated. */
const ISOLATION_RELOAD_GUARD = 'inpage:isolation-reload';

/** How long the controlling worker may take to answer whether it isolates (an older one never answers). */
const ASK_MS = 1000;

/** Whether this document's navigation was served under a service worker: read as the module is evaluated. */
const controlledAtLoad = typeof navigator !== 'undefined' && navigator.serviceWorker?.controller != null;

function guard(): Storage | null {
  try {
    return self.sessionStorage;
  } catch {
    return null;
  }
}

/** Whether the worker controlling this page serves a navigation to it with the isolation headers. */
async function controllerIsolates(): Promise<boolean> {
  const controller = navigator.serviceWorker?.controller;
  if (!controller) return false;
  const channel = new MessageChannel();
  const answered = new Promise<boolean>((resolve) => {
    channel.port1.onmessage = (event) => resolve(answersIsolated(event.data));
    setTimeout(() => resolve(false), ASK_MS);
  });
  controller.postMessage(isolationAsk(location.href), [channel.port2]);
  const isolates = await answered;
  channel.port1.close();
  return isolates;
}

/**
 * Called once the service worker controls the page, before the engine starts. Resolves true when the page is
 * reloading now (the caller then holds its start: the old page goes away), false when it carries on as it is.
 */
export async function reloadForIsolation(options: { mode: string; host: boolean }): Promise<boolean> {
  const storage = guard();
  if (self.crossOriginIsolated) {
    storage?.removeItem(ISOLATION_RELOAD_GUARD);
    return false;
  }
  if (options.mode !== 'once' || !options.host || controlledAtLoad || !storage) return false;
  if (storage.getItem(ISOLATION_RELOAD_GUARD) !== null) {
    console.info(
      'inpage: the page is still not cross-origin isolated after reloading once for it, so llama.cpp runs on one thread (docs/engines.md, Threads and cross-origin isolation).',
    );
    return false;
  }
  if (!(await controllerIsolates())) return false;
  try {
    storage.setItem(ISOLATION_RELOAD_GUARD, String(Date.now()));
  } catch {
    // No guard, no reload: it could not tell the next load that it already tried.
    return false;
  }
  console.info('inpage: reloading once under the service worker, which serves this page cross-origin isolated, so llama.cpp runs on several threads.');
  location.reload();
  return true;
}
