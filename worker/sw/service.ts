/// <reference lib="webworker" />
// inpage's service worker, started in one of two ways:
// - on its own (worker/sw.ts: the app's sw.js, the package's inpage-sw.js): it answers the API at `<scope>v1`
//   (`/v1` for an app at `/`) for every page it controls, serves the app shell from Workbox's precache (so the pages and the engine worker load offline)
//   with the isolation headers, takes over at once, and leaves all else to the network;
// - as a guest in an app's own service worker (worker/sw-guest.ts: the package's inpage-sw-guest.js for
//   importScripts, `inpage/sw` for a bundled module worker): the API, inpage's engine worker script with its
//   policy, the deployment's settings and each engine's own files; the app's worker keeps its install, activation, precache and
//   every other request.
// The entry imports ./start-early before anything else (it asks for the engine's port as the worker starts).
import { portAskedAt, requestPort } from './start-early';
import { addPlugins, cleanupOutdatedCaches, getCacheKeyForURL, precacheAndRoute, type PrecacheEntry } from 'workbox-precaching';
import { registerRoute } from 'workbox-routing';
import { CacheFirst, NetworkFirst } from 'workbox-strategies';
import { createApp } from './app';
import { apiPath, apiRoute, configUrl } from '#shared/base-path';
import { ENGINE_FILES, engineCache, engineOfPath, type EngineKind } from '#shared/engine-files';
import { isPdfReaderPath, PDF_READER_CACHE } from '#shared/pdf-reader-files';
import { keepOneVersion } from './keep-one-version';
import { EngineLink } from '#shared/wire/engine-link';
import { deploymentConfig, serveWorkerScript } from './policy';
import { drainUsage } from './usage-book';
import { StayAwake } from './stay-awake';
import { Handover } from './handover';
import { errorResponse } from './respond';
import { holdForLife, whenReleased } from '#shared/life-locks';
import { ApiError, serviceUpdating } from '#shared/protocol/errors';
import { isolated } from '#shared/isolation';
import { DEFAULT_CATALOG, type ModelCatalog } from '#shared/model-config';
import { recordNow } from '#shared/record-time';
import {
  CLOCK_ASK,
  clockAnswer,
  PONG,
  engineFailure,
  CLAIM_REQUEST,
  isMessage,
  isolationAnswer,
  isolationAskUrl,
  PING,
  PORT_OFFER,
  STAY_AWAKE,
  offerCatalog,
  offerLock,
  offerLockPending,
  offerProvider,
} from '#shared/wire/page-messages';

declare const self: ServiceWorkerGlobalScope;

/**
 * On its own, with the app shell to precache (the list Workbox writes where worker/sw.ts says
 * `self.__WB_MANIFEST`; only that entry names it, so an app's worker that bundles inpage/sw has its own one
 * placeholder); or as a guest in an app's own service worker: inpage's requests only, while install, activation
 * and precache are the app's.
 */
export type StartOptions = { guest: false; precache: (string | PrecacheEntry)[] } | { guest: true };

function isDocumentOrWorker(request: Request): boolean {
  return request.mode === 'navigate' || ['document', 'iframe', 'worker', 'sharedworker'].includes(request.destination);
}

/**
 * Whether a navigation to `href` would be answered from this worker's precache, and so with the isolation headers
 * (the plugin below), matched as that route matches (Workbox's URL variations, every query parameter ignored): the
 * URL without its query and hash, its directory's index.html, or the same path + `.html`
 * (Workbox's `directoryIndex` and `cleanURLs`). A page the precache does not hold (an app's own page beside
 * inpage-sw.js copied by hand) goes to the network, headers and all as the server sends them.
 */
function precachedNavigation(href: string): boolean {
  let url: URL;
  try {
    url = new URL(href, self.location.href);
  } catch {
    return false;
  }
  if (url.origin !== self.location.origin) return false;
  url.hash = '';
  url.search = '';
  const variations = [url.href];
  if (url.pathname.endsWith('/')) variations.push(new URL('index.html', url).href);
  variations.push(`${url.origin}${url.pathname}.html`);
  return variations.some((candidate) => getCacheKeyForURL(candidate) !== undefined);
}

/**
 * The app's base (src/shared/base-path.ts): this worker's scope, the folder it controls (`/` for the workspace app,
 * `/app/` for an app served there). The API answers at `<base>v1` and the settings file is read at the base.
 */
function appBase(): string {
  return self.registration?.scope ?? new URL('./', self.location.href).href;
}

/** inpage's engine worker: the app's own (any worker script of the origin) or, as a guest, the package's inpage-*.js. */
function isEngineWorkerScript(request: Request, url: URL, guest: boolean): boolean {
  if (request.destination !== 'worker' || url.origin !== self.location.origin) return false;
  return !guest || /\/inpage-[^/]+\.js$/.test(url.pathname);
}

/** Starts inpage in this service worker: once, as its script is evaluated (the listeners are added here). */
export function startInpage(options: StartOptions): void {
  const { guest } = options;
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
  const base = appBase();
  const api = apiPath(base);
  const settings = configUrl(base);
  // The deployment's catalog: the five as they ship until the engine's port offer brings the deployment's (so
  // `installInpage({config})` reaches it too); the app's model routes read it through their caller (access.ts).
  let catalog: ModelCatalog = DEFAULT_CATALOG;
  const app = createApp(
    link,
    api,
    () => catalog,
    () => deploymentConfig(settings),
  );
  // While a /v1 request is in progress, the pages are asked for a message now and then (stay-awake.ts).
  const awake = new StayAwake();
  // Once a newer version waits, this one hands over within HANDOVER_MS (handover.ts).
  const handover = new Handover();
  const newerWaiting = () => self.registration.waiting !== null && self.serviceWorker?.state === 'activated';
  // Uses a previous life of this worker journaled but did not get to book (stopped, or the database blocked).
  void drainUsage();

  if (!guest) {
    self.addEventListener('install', () => {
      // A new version takes over as soon as it has precached the new shell. Chromium holds the activation until the
      // old version's events are done; the old version hands over (handover.ts): it refuses new /v1 requests with a
      // retryable 503, finishes the answers it holds and ends what is left after HANDOVER_MS (docs/browsers.md, *An
      // update under continuous traffic*).
      void self.skipWaiting();
    });

    // A newer version that has installed waits for this one's events to end (handover.ts).
    self.registration.addEventListener('updatefound', () => {
      const installing = self.registration.installing;
      installing?.addEventListener('statechange', () => {
        if (installing.state === 'installed' && newerWaiting()) handover.begin();
      });
    });

    self.addEventListener('activate', (event) => {
      // Control the page that registered us on its first visit, no reload needed.
      event.waitUntil(self.clients.claim());
      // What the version before this one journaled and did not get to book (an update's handover).
      void drainUsage();
    });
  }

  self.addEventListener('message', (event) => {
    // A page this worker does not control asks it to (see src/page/sw-registration.ts).
    if (isMessage(event.data, CLAIM_REQUEST)) {
      event.waitUntil(self.clients.claim());
      return;
    }
    const failure = engineFailure(event.data);
    if (failure !== undefined) {
      link.failure = failure;
      return;
    }
    // A page's answer to the stay-awake ask: the event itself is what counts.
    if (isMessage(event.data, STAY_AWAKE)) return;
    if (isMessage(event.data, CLOCK_ASK)) {
      // A page takes the times it writes and shows from this clock (src/shared/record-time.ts).
      event.ports[0]?.postMessage(clockAnswer(recordNow()));
      return;
    }
    const asked = isolationAskUrl(event.data);
    if (asked !== undefined) {
      // A page not isolated on its first visit asks before it reloads once to be (src/page/isolation-reload.ts).
      // As a guest, the app's worker answers navigations, and whether it adds the headers is its own affair: no.
      event.ports[0]?.postMessage(isolationAnswer(!guest && precachedNavigation(asked)));
      return;
    }
    if (isMessage(event.data, PING)) {
      // installInpage({serviceWorker: 'own'}) asks whether the app's worker runs inpage.
      event.ports[0]?.postMessage(PONG);
      return;
    }
    const port = event.ports[0];
    if (isMessage(event.data, PORT_OFFER) && port) {
      catalog = offerCatalog(event.data) ?? catalog;
      link.provider = offerProvider(event.data) ?? null;
      link.adopt(port, offerLock(event.data), offerLockPending(event.data));
    }
  });

  self.addEventListener('fetch', (event) => {
    const url = new URL(event.request.url);
    // Worker scripts of the origin (the engine worker) get their own Content-Security-Policy (policy.ts).
    if (isEngineWorkerScript(event.request, url, guest)) {
      event.respondWith(serveWorkerScript(event.request, settings));
      return;
    }
    if (url.origin !== self.location.origin || apiRoute(url.pathname, api) === null) return;
    // A newer version waits: this one refuses new requests at once, so its events end and the new one takes over.
    if (!guest && newerWaiting()) handover.begin();
    if (handover.refusing) {
      const waitMs = handover.retryAfterMs();
      const refusal = errorResponse(serviceUpdating(Math.ceil(waitMs / 1000)));
      refusal.headers.set('retry-after-ms', String(waitMs));
      event.respondWith(refusal);
      return;
    }
    const context = {
      waitUntil: (promise: Promise<unknown>) => event.waitUntil(awake.forEvent(promise)),
      passThroughOnException: () => undefined,
      props: { ending: handover.forNewAnswer },
    };
    event.respondWith(
      awake.hold(
        Promise.resolve(app.fetch(event.request, {}, context)).catch((err: unknown) =>
          errorResponse(new ApiError('internal_error', `The service worker failed: ${ApiError.from(err).message}`)),
        ),
      ),
    );
  });

  if (!options.guest) {
    // Workbox's own fetch listener comes second, so /v1 above is never answered from a cache.
    // Every query parameter is ignored when matching (`/?engine=off` is the page `/`, i.e. /index.html).
    // The app's pages and workers it serves are cross-origin isolated (src/shared/isolation.ts), so llama.cpp gets threads.
    addPlugins([{ handlerWillRespond: async ({ request, response }) => (isDocumentOrWorker(request) ? isolated(response) : response) }]);
    precacheAndRoute(options.precache, { ignoreURLParametersMatching: [/.*/] });
    cleanupOutdatedCaches();
  }
  // The deployment's settings (the model source among them) are read fresh when online, and kept for offline.
  registerRoute(({ url }) => url.href === settings.href, new NetworkFirst({ cacheName: 'inpage-config' }));
  // Each engine's own files (web-llm's chunk, llama.cpp's chunk and wasm: src/shared/engine-files.ts) are not in the
  // precache, so a device downloads only the engine it runs: the first use keeps them, each engine's in a cache of
  // its own, and later uses (offline too) read them there. The app has them under /assets/, the package
  // (inpage/vite) as inpage-… at the app's base path.
  for (const kind of Object.keys(ENGINE_FILES) as EngineKind[]) {
    registerRoute(
      ({ url }) => url.origin === self.location.origin && engineOfPath(url.pathname) === kind,
      new CacheFirst({ cacheName: engineCache(kind), plugins: [keepOneVersion] }),
    );
  }
  // The workspace's PDF reader (src/shared/pdf-reader-files.ts) the same way, from the first PDF attached; its
  // worker script is kept by serveWorkerScript (policy.ts), which serves every worker script of the origin.
  registerRoute(
    ({ url }) => url.origin === self.location.origin && isPdfReaderPath(url.pathname),
    new CacheFirst({ cacheName: PDF_READER_CACHE, plugins: [keepOneVersion] }),
  );
}
