// Keeping the engine's view of the model cache current in the tab that hosts it: the browser may evict a
// best-effort origin's storage, and nothing announces it; the engine reads its cache again whenever the tab
// comes back into view, so evicted models show as not downloaded (and download again on next use).

export function rescanWhenShown(host: { control: { rescan(): Promise<void> } }): void {
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') void host.control.rescan().catch(() => undefined);
  });
}
