// The app's own, hand-written service worker: inpage first (it answers /v1 and serves its engine worker's
// script), then Workbox precaches the app and serves it offline. build.mjs bundles it with esbuild and writes the
// precache list where it says self.__WB_MANIFEST.
import 'inpage/sw';
import { clientsClaim } from 'workbox-core';
import { cleanupOutdatedCaches, precacheAndRoute } from 'workbox-precaching';

self.skipWaiting();
clientsClaim();
cleanupOutdatedCaches();
precacheAndRoute(self.__WB_MANIFEST);
