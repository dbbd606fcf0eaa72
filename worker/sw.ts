/// <reference lib="webworker" />
// The service worker: answers /v1/ for every script of the origin; serves the app shell from Workbox's
// precache (so the page and the engine worker load offline) and leaves all else to the network.
// Evaluated first: asks for the engine's port and opens the key store as the worker starts.
import { portAskedAt, requestPort } from './sw/start-early';
import { addPlugins, cleanupOutdatedCaches, precacheAndRoute, type PrecacheEntry } from 'workbox-precaching';
import { registerRoute } from 'workbox-routing';
import { CacheFirst, NetworkFirst } from 'workbox-strategies';
import { createApp } from './sw/app';
import { EngineLink } from './sw/engine-link';
import { serveWorkerScript } from './sw/policy';
import { drainUsage } from './sw/usage-book';
import { errorResponse } from './sw/respond';
import { holdForLife, whenReleased } from '../src/life-locks';
import { ApiError } from '../src/protocol/errors';
import { isolated } from '../src/isolation';
import { setActiveCatalog } from '../src/catalog';
import { isClaimRequest, isPortOffer, offerCatalog, offerLock, offerLockPending } from '../src/page/port-messages';

declare const self: ServiceWorkerGlobalScope & {
  /** The app shell, listed here at build time (src/lib/precache.ts); absent in unbundled runs. */
  __WB_MANIFEST?: (string | PrecacheEntry)[];
};

/** A Web Lock this instance holds for its whole life: engines watch it to learn that it was stopped. */
const lifeLock = (async () => {
  const locks = self.navigator.locks;
  if (!locks) return undefined;
  const name = `inpage-sw:${crypto.randomUUID()}`;
  await holdForLife(locks, name);
  return name;
})();

const link = new EngineLink({
  // After the browser restarts this worker its port is gone: the pages were asked for a new one as it started.
  requestPort,
  askedAt: portAskedAt,
  // The engine worker holds its port's lock while it lives; being granted it means the engine is gone.
  whenLockFree: (name) => whenReleased(self.navigator.locks, name),
  lifeLock,
});
const app = createApp(link);
// Uses a previous life of this worker journaled but did not get to book (stopped, or the database blocked).
void drainUsage();

self.addEventListener('install', () => {
  // A new version takes over as soon as it has precached the new shell. Chromium holds the activation
  // until the old version's fetch events are done, and each /v1 stream keeps its event open until its
  // [DONE] (app.ts books the key's use in waitUntil), so a stream in progress ends on the old version.
  void self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  // Control the page that registered us on its first visit, no reload needed.
  event.waitUntil(self.clients.claim());
});

self.addEventListener('message', (event) => {
  // A page this worker does not control asks it to (see src/page/sw-registration.ts).
  if (isClaimRequest(event.data)) {
    event.waitUntil(self.clients.claim());
    return;
  }
  const port = event.ports[0];
  if (isPortOffer(event.data) && port) {
    const catalog = offerCatalog(event.data);
    if (catalog) setActiveCatalog(catalog);
    link.adopt(port, offerLock(event.data), offerLockPending(event.data));
  }
});

function isDocumentOrWorker(request: Request): boolean {
  return request.mode === 'navigate' || ['document', 'iframe', 'worker', 'sharedworker'].includes(request.destination);
}

function servesPath(url: URL): boolean {
  return url.origin === self.location.origin && (url.pathname === '/v1' || url.pathname.startsWith('/v1/'));
}

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  // Worker scripts of the origin (the engine worker) get their own Content-Security-Policy (sw/policy.ts).
  if (event.request.destination === 'worker' && url.origin === self.location.origin) {
    event.respondWith(serveWorkerScript(event.request, self.location.origin));
    return;
  }
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

// Workbox's own fetch listener comes second, so /v1 above is never answered from a cache.
// Every query parameter is ignored when matching (`/?engine=off` is the page `/`, i.e. /index.html).
// The app's pages and workers it serves are cross-origin isolated (src/isolation.ts), so llama.cpp gets threads.
addPlugins([{ handlerWillRespond: async ({ request, response }) => (isDocumentOrWorker(request) ? isolated(response) : response) }]);
precacheAndRoute(self.__WB_MANIFEST ?? [], { ignoreURLParametersMatching: [/.*/] });
cleanupOutdatedCaches();
// The deployment's settings (the model source among them) are read fresh when online, and kept for offline.
registerRoute(
  ({ url }) => url.origin === self.location.origin && url.pathname === '/inpage.config.json',
  new NetworkFirst({ cacheName: 'inpage-config' }),
);
// llama.cpp's WebAssembly (8.7 MB, content-hashed name) is not in the precache, so browsers that run web-llm
// never download it; the first use of the llama.cpp engine keeps it, and later uses (offline too) read it here.
// The app has it under /assets/; the package (inpage/vite) as inpage-wllama-….wasm at the app's base path.
registerRoute(
  ({ url }) => url.origin === self.location.origin && /\/(?:assets\/wllama|inpage-wllama)-[\w-]+\.wasm$/.test(url.pathname),
  new CacheFirst({ cacheName: 'inpage-llamacpp-wasm' }),
);
