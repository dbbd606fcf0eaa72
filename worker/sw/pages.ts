/// <reference lib="webworker" />
// The service worker's messages to the pages of its origin (the engine port's ask, start-early.ts; the stay-awake
// ask, stay-awake.ts).

declare const self: ServiceWorkerGlobalScope;

/** Posts `message` to every page of the origin (window clients, controlled or not). */
export async function postToPages(message: unknown): Promise<void> {
  const pages = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  for (const page of pages) page.postMessage(message);
}
