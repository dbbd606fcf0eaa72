// Registers the service worker at scope "/" and waits until it controls this page (first visit included).
// If the worker can never take control (its install failed: e.g. no storage room for the app's files,
// which it precaches), this fails with an error saying so instead of waiting forever.

const installFailed = () =>
  new Error(
    "The service worker could not be installed, so /v1 cannot be served from this page. The browser most often refuses it when it has no storage room for the app's files (this site's storage quota is used up): free some disk space or clear this site's data, then reload.",
  );

export async function registerServiceWorker(): Promise<void> {
  if (!('serviceWorker' in navigator)) {
    throw new Error('This browser has no service workers (or the page is not in a secure context): /v1 cannot be served.');
  }
  const sw = navigator.serviceWorker;
  const registering = sw.register('/sw.js', { type: 'module', scope: '/' });
  if (sw.controller) {
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
    });
  }
}
