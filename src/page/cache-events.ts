// "The model cache changed" between the tabs of the origin: an import in any tab, so the tab hosting the engine
// reads its cache again (EngineControl.rescan) and every tab's Models area shows the new states.

export const CACHE_CHANNEL = 'inpage-model-cache';

/** Tells every tab of the origin, this one included, that files were written to or removed from the cache. */
export function announceCacheChange(): void {
  if (typeof BroadcastChannel === 'undefined') return;
  const channel = new BroadcastChannel(CACHE_CHANNEL);
  channel.postMessage({ type: 'changed' });
  channel.close();
}

/** Hears cache changes announced by any tab; returns a function that stops listening. */
export function onCacheChange(listener: () => void): () => void {
  if (typeof BroadcastChannel === 'undefined') return () => undefined;
  const channel = new BroadcastChannel(CACHE_CHANNEL);
  channel.onmessage = () => listener();
  return () => channel.close();
}

/**
 * In the tab hosting the engine: the engine reads its cache again after an import in any tab, and whenever this
 * tab comes back into view (the browser may have evicted weights meanwhile).
 */
export function rescanOnCacheChange(host: { control: { rescan(): Promise<void> } }): void {
  const rescan = () => void host.control.rescan().catch(() => undefined);
  onCacheChange(rescan);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') rescan();
  });
}
