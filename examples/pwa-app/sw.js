// The app's own service worker, built by vite-plugin-pwa (injectManifest). inpage first, so its fetch listener
// answers /v1 (and serves its engine worker's script) before the app's routes see a request; everything else is
// the app's: Workbox precaches its pages and scripts (the list vite-plugin-pwa writes into self.__WB_MANIFEST)
// and serves them offline.
import 'inpage/sw';
import { clientsClaim } from 'workbox-core';
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';

self.skipWaiting();
clientsClaim();
cleanupOutdatedCaches();
precacheAndRoute(self.__WB_MANIFEST);
// Every page of the app is its index.html (a single-page app), offline too; /v1 never reaches this route.
registerRoute(new NavigationRoute(createHandlerBoundToURL('index.html'), { denylist: [/^\/v1(\/|$)/] }));
