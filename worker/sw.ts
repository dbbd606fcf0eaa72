/// <reference lib="webworker" />
// The service worker on its own: the app's sw.js and the package's inpage-sw.js (worker/sw/service.ts says
// what it does). Evaluated first: asks for the engine's port and opens the key store as the worker starts.
import './sw/start-early';
import type { PrecacheEntry } from 'workbox-precaching';
import { startInpage } from './sw/service';

declare const self: ServiceWorkerGlobalScope & {
  /** The app shell, listed here at build time (src/lib/precache.ts); absent in unbundled runs. */
  __WB_MANIFEST?: (string | PrecacheEntry)[];
};

startInpage({ guest: false, precache: self.__WB_MANIFEST ?? [] });
