// The files the service worker keeps on first use (each engine's, the PDF reader's): a new version of a file
// replaces the one kept before it (its name less the content hash is the same), so old versions do not pile up.
import { withoutHash } from '#shared/engine-files';

/** Deletes from `cacheName` every other version of the file at `url`. */
export async function dropOtherVersions(cacheName: string, url: string): Promise<void> {
  const kept = new URL(url);
  const cache = await caches.open(cacheName);
  for (const old of await cache.keys()) {
    const path = new URL(old.url).pathname;
    if (path !== kept.pathname && withoutHash(path) === withoutHash(kept.pathname)) await cache.delete(old);
  }
}

/** The same as a Workbox plugin, for a CacheFirst route. */
export const keepOneVersion = {
  async cacheDidUpdate({ cacheName, request }: { cacheName: string; request: Request }): Promise<void> {
    await dropOtherVersions(cacheName, request.url);
  },
};
