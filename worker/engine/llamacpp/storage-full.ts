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

/**
 * Writes `bytes` at `at` through a sync access handle, all of them or a StorageFull. Firefox writes what the site's
 * quota allows and returns that count (seen: 0); Chromium 156 returned 4294967288 (an error code, not a count) for a
 * write its quota refused. Either way, anything but the whole means the store is full.
 */
export function writeWhole(access: FileSystemSyncAccessHandle, bytes: Uint8Array<ArrayBuffer>, at: number): void {
  const written = access.write(bytes, { at });
  if (written === bytes.length) return;
  throw new StorageFull(
    written < bytes.length
      ? `the browser kept ${written} of ${bytes.length} bytes written at ${at}`
      : `the browser refused ${bytes.length} bytes written at ${at}`,
  );
}
