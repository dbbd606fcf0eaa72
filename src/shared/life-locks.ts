// Web Locks as signs of life. Chromium fires no MessagePort `close`, so each end of a port learns that the
// other has gone this way: a realm (tab, worker, service worker) holds a lock for as long as it lives, and a
// request for that lock is granted once the realm has ended.

/** Holds `name` until this realm ends; resolves once it is held. */
export function holdForLife(locks: LockManager, name: string): Promise<void> {
  return new Promise((held) => {
    void locks.request(name, () => {
      held();
      return new Promise<never>(() => undefined);
    });
  });
}

/** Resolves once whoever holds `name` has ended (at once when nobody holds it). */
export async function whenReleased(locks: LockManager, name: string): Promise<void> {
  await locks.request(name, () => undefined);
}
