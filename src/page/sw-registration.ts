// Registers the service worker at scope "/" and waits until it controls this page (first visit included).

export async function registerServiceWorker(): Promise<ServiceWorkerRegistration> {
  if (!('serviceWorker' in navigator)) {
    throw new Error('This browser has no service workers (or the page is not in a secure context): /v1 cannot be served.');
  }
  const sw = navigator.serviceWorker;
  const registration = await sw.register('/sw.js', { type: 'module', scope: '/' });
  if (!sw.controller) {
    // The worker claims open pages when it activates.
    await new Promise<void>((resolve) => sw.addEventListener('controllerchange', () => resolve(), { once: true }));
  }
  return registration;
}
