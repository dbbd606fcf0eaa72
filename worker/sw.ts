/// <reference lib="webworker" />
// The service worker: answers /v1/ for every script of the origin and leaves all else to the network.
import { createApp } from './sw/app';
import { EngineLink } from './sw/engine-link';
import { errorResponse } from './sw/respond';
import { ApiError } from '../src/protocol/errors';
import { isPortOffer, PORT_REQUEST } from '../src/page/port-messages';

declare const self: ServiceWorkerGlobalScope;

const link = new EngineLink({
  // After the browser restarts this worker its port is gone: ask every page of the origin for a new one.
  async requestPort() {
    const pages = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    for (const page of pages) page.postMessage(PORT_REQUEST);
  },
});
const app = createApp(link);

self.addEventListener('install', () => {
  void self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  // Control the page that registered us on its first visit, no reload needed.
  event.waitUntil(self.clients.claim());
});

self.addEventListener('message', (event) => {
  const port = event.ports[0];
  if (isPortOffer(event.data) && port) link.adopt(port);
});

function servesPath(url: URL): boolean {
  return url.origin === self.location.origin && (url.pathname === '/v1' || url.pathname.startsWith('/v1/'));
}

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (!servesPath(url)) return;
  const context = {
    waitUntil: (promise: Promise<unknown>) => event.waitUntil(promise),
    passThroughOnException: () => undefined,
    props: {},
  };
  event.respondWith(
    Promise.resolve(app.fetch(event.request, {}, context)).catch((err: unknown) =>
      errorResponse(new ApiError('internal_error', `The service worker failed: ${ApiError.from(err).message}`)),
    ),
  );
});
