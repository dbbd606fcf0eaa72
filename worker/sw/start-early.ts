/// <reference lib="webworker" />
// The first thing a (re)started service worker does (worker/sw.ts imports this module before all others). A
// stopped worker is most often started again by a request; that request needs the engine's port (a page of the
// origin hands it over) and the key records: both are asked for here, so they are on their way while the rest of
// the script is evaluated and the request's key is checked.
import { primeKeys } from './key-cache';
import { postToPages } from './pages';
import { PORT_CHANNEL, portRequest } from '#shared/wire/page-messages';

declare const self: ServiceWorkerGlobalScope;

/** Asks every page of the origin for an engine port; the page hosting the engine answers with `engine-port`. */
export async function requestPort(): Promise<void> {
  const ask = portRequest(crypto.randomUUID());
  // Only the active worker is its pages' controller, to which the broadcast is answered (port-messages.ts).
  if (self.serviceWorker?.state === 'activated' && typeof BroadcastChannel !== 'undefined') {
    const channel = new BroadcastChannel(PORT_CHANNEL);
    channel.postMessage(ask);
    channel.close();
  }
  await postToPages(ask);
}

/** When the pages were first asked (performance.now()): the engine link does not ask again this soon. */
export const portAskedAt = performance.now();
void requestPort().catch(() => undefined);
primeKeys();
