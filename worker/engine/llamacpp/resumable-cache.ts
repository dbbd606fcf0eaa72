// Resumable GGUF downloads: wllama's cache (its CacheManager: files named by URL, a metadata file beside each, in
// the store stores.ts chose) with a `download` that, in OPFS, survives a dropped connection. Bytes are written to the cache file as they arrive;
// the metadata (URL, full size, ETag) is written first, so an interrupted file is one wllama itself sees as
// incomplete (size ≠ original size: not listed as a model, removable). A dropped connection is resumed at once
// with `Range: bytes=<have>-` (a few times while it makes progress), and a download interrupted by a closed tab
// is resumed the next time the model is loaded. A server that answers a range with the whole file (200), or whose
// ETag changed, starts the file over.
import { CacheManager, type DownloadOptions } from '@wllama/wllama';
import { storageRoot } from '../common/storage-root';
import { isStorageFull, StorageFull, writeWhole } from './storage-full';
import { ChosenStore } from './stores';

/** Attempts in a row that may fail without a single new byte before the download gives up. */
const STALLED_ATTEMPTS = 3;

/** A file in the cache's OPFS folder (wllama's: `cache/` at the root), written at an offset. */
export interface FileSink {
  size(): Promise<number>;
  /** Writes `bytes` at `at`; the file ends after the last write (call `truncate` first to start over). */
  write(bytes: Uint8Array, at: number): Promise<void>;
  truncate(size: number): Promise<void>;
  close(): Promise<void>;
}

async function openSink(name: string): Promise<FileSink> {
  const dir = await (await storageRoot()).getDirectoryHandle('cache', { create: true });
  const handle = await dir.getFileHandle(name, { create: true });
  // A dedicated worker (the engine worker) writes synchronously; elsewhere a writable stream keeps existing data.
  const sync = (handle as { createSyncAccessHandle?: () => Promise<FileSystemSyncAccessHandle> }).createSyncAccessHandle;
  if (typeof sync === 'function') {
    const access = await sync.call(handle);
    return {
      size: async () => access.getSize(),
      write: async (bytes, at) => writeWhole(access, bytes as Uint8Array<ArrayBuffer>, at),
      truncate: async (size) => access.truncate(size),
      close: async () => {
        // Closed even if the flush fails (a full disk): an open handle would keep the file from being removed.
        try {
          access.flush();
        } finally {
          access.close();
        }
      },
    };
  }
  const writable = await handle.createWritable({ keepExistingData: true });
  let size = (await handle.getFile()).size;
  return {
    size: async () => size,
    write: async (bytes, at) => {
      await writable.write({ type: 'write', position: at, data: bytes as Uint8Array<ArrayBuffer> });
      size = Math.max(size, at + bytes.length);
    },
    truncate: async (to) => {
      await writable.truncate(to);
      size = to;
    },
    close: () => writable.close(),
  };
}

const cleanEtag = (value: string | null) => (value ?? '').replace(/[^A-Za-z0-9]/g, '');

export class ResumableCache extends CacheManager {
  /**
   * Over the store chosen for this device (stores.ts: OPFS, else Cache Storage, else memory); `sink` opens a file of
   * the OPFS cache folder to write at an offset (a test gives its own).
   */
  constructor(
    readonly store: ChosenStore = new ChosenStore(),
    private readonly sink: (name: string) => Promise<FileSink> = openSink,
  ) {
    super([store]);
  }

  /**
   * Downloads `url` into the store; when the store is full (the browser keeps no more for this site: its quota, or the
   * disk), the file is kept in memory for the page's life instead (stores.ts `spill`), so the model still answers.
   */
  override async download(url: string, options: DownloadOptions = {}): Promise<void> {
    try {
      await this.downloadToStore(url, options);
    } catch (err) {
      if (options.signal?.aborted || !isStorageFull(err)) throw err;
      await this.store.spill(await this.getNameFromURL(url), err);
      await this.downloadWhole(url, options);
    }
  }

  private async downloadToStore(url: string, options: DownloadOptions): Promise<void> {
    const name = await this.getNameFromURL(url);
    // Resumable in OPFS (written at an offset); in the other stores the file is written whole, as it streams in.
    if ((await this.store.choice()).store !== 'opfs' || this.store.spilled(name)) return this.downloadWhole(url, options);
    const known = await this.getMetadata(name);
    const sink = await this.sink(name);
    try {
      let have = await sink.size();
      // Complete already.
      if (known?.originalURL === url && known.originalSize > 0 && known.originalSize === have) return;
      // Bytes of another file (or of an unknown one) under this name: start over.
      if (known?.originalURL !== url || !(known.originalSize > 0)) {
        await sink.truncate(0);
        have = 0;
      }
      let total = known?.originalURL === url ? known.originalSize : 0;
      let etag = known?.originalURL === url ? known.etag : '';
      let stalled = 0;
      for (;;) {
        const before = have;
        try {
          const headers: Record<string, string> = { ...(options.headers ?? {}) };
          if (have > 0) headers.range = `bytes=${have}-`;
          // Past the browser's HTTP cache: the file is kept in OPFS, and Chromium's cache, holding the cut
          // response, turns a range request into requests of its own (seen here: a one-byte range, then the whole file).
          const response = await fetch(url, { headers, cache: 'no-store', ...(options.signal ? { signal: options.signal } : {}) });
          if (!response.ok || !response.body) throw new Error(`Failed to fetch ${url}: HTTP ${response.status}`);
          const length = Number(response.headers.get('content-length') ?? 0);
          const newEtag = cleanEtag(response.headers.get('etag'));
          const resumed = response.status === 206 && have > 0 && (!etag || !newEtag || newEtag === etag);
          if (!resumed) {
            // The whole file (a server without ranges, or the file changed): from the start.
            if (response.status === 206) {
              await response.body.cancel();
              await sink.truncate(0);
              have = 0;
              etag = '';
              continue;
            }
            await sink.truncate(0);
            have = 0;
            total = length;
          } else if (!total) {
            total = have + length;
          }
          if (newEtag) etag = newEtag;
          // Written before the first bytes: an interruption leaves a file wllama knows is incomplete. The body is
          // read meanwhile: Chromium may drop what it holds of a body whose connection broke before it was read.
          const described = this.writeMetadata(name, { originalURL: url, originalSize: total, etag, ...(options.metadataAdditional ?? {}) });
          const reader = response.body.getReader();
          let reported = 0;
          for (;;) {
            const { done, value } = await reader.read();
            await described;
            if (done) break;
            await sink.write(value, have);
            have += value.length;
            const now = Date.now();
            if (now - reported > 100) {
              reported = now;
              options.progressCallback?.({ loaded: have, total });
            }
          }
          if (total && have !== total) throw new Error(`The download of ${url} ended at ${have} of ${total} bytes`);
          // Every byte counted was kept: a file shorter than its metadata would reach llama.cpp truncated.
          const kept = await sink.size();
          if (kept < have) throw new StorageFull(`the file holds ${kept} of the ${have} bytes written`);
          if (!total) {
            total = have;
            await this.writeMetadata(name, { originalURL: url, originalSize: total, etag, ...(options.metadataAdditional ?? {}) });
          }
          options.progressCallback?.({ loaded: have, total });
          return;
        } catch (err) {
          // A full store is not a dropped connection: asking again would not make room.
          if (options.signal?.aborted || isStorageFull(err)) throw err;
          stalled = have > before ? 0 : stalled + 1;
          if (stalled >= STALLED_ATTEMPTS) throw err;
        }
      }
    } finally {
      await sink.close();
    }
  }

  /** A download into a store that cannot write at an offset: one request, the file written as it arrives. */
  private async downloadWhole(url: string, options: DownloadOptions): Promise<void> {
    const name = await this.getNameFromURL(url);
    const response = await fetch(url, { headers: options.headers ?? {}, cache: 'no-store', ...(options.signal ? { signal: options.signal } : {}) });
    if (!response.ok || !response.body) throw new Error(`Failed to fetch ${url}: HTTP ${response.status}`);
    const total = Number(response.headers.get('content-length') ?? 0);
    let loaded = 0;
    let reported = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          loaded += chunk.byteLength;
          const now = Date.now();
          if (now - reported > 100) {
            reported = now;
            options.progressCallback?.({ loaded, total });
          }
          controller.enqueue(chunk);
        },
      }),
    );
    await this.store.write(name, counted);
    if (total && loaded !== total) {
      await this.store.delete(name);
      throw new Error(`The download of ${url} ended at ${loaded} of ${total} bytes`);
    }
    // The metadata last: a file without it (an interrupted write) is not a model wllama lists.
    await this.writeMetadata(name, {
      originalURL: url,
      originalSize: loaded,
      etag: cleanEtag(response.headers.get('etag')),
      ...(options.metadataAdditional ?? {}),
    });
    options.progressCallback?.({ loaded, total: total || loaded });
  }
}
