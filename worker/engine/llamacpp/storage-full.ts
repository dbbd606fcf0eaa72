// A store with no room left: how the browser says it (stores.ts keeps such a file in memory instead).
/** The browser keeps no more bytes for this site: its storage quota (in Firefox a share of the free disk) or the disk is full. */
export class StorageFull extends Error {
  override readonly name = 'QuotaExceededError';
}

/** Whether `err` says the store is full: a short write (StorageFull), the standard QuotaExceededError, or Firefox's disk-full error. */
export function isStorageFull(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return name === 'QuotaExceededError' || name === 'NS_ERROR_FILE_NO_DEVICE_SPACE';
}
