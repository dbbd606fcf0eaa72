// Where llama.cpp keeps its GGUF files on this device: OPFS (wllama's own layout, or the folder a model provider's
// engine was given), else Cache Storage, else memory for the page's life. OPFS is missing or refused in some
// browsers (WebKitGTK has none; private windows refuse it), and one missing store must never stop the engine:
// each store is opened and tried once, in that order, and the first that works is used. The engine's status
// says which, and what it means (memory: every visit downloads the model again).
import type { CacheManager } from '@wllama/wllama';
import type { StoreChoice, StoreKind } from '#shared/wire/engine-port';
import { givenStorageRoot, storageRoot } from '../common/storage-root';
import { DirectoryBackend } from './directory-backend';

/** wllama's storage backend: what its CacheManager reads and writes through. */
export type StorageBackend = NonNullable<ConstructorParameters<typeof CacheManager>[0]>[number];

/** A store to try: `open` rejects, saying why, when it cannot be used here. */
export interface StoreCandidate {
  store: StoreKind;
  open(): Promise<StorageBackend>;
}

/** The Cache Storage cache llama.cpp's files go to when OPFS cannot be used. */
export const GGUF_CACHE_NAME = 'inpage-llamacpp-gguf';
/** The path under which Cache Storage keys its entries (a cache takes http(s) URLs only; never fetched). */
const CACHE_PREFIX = '/__inpage-llamacpp-gguf__/';

const message = (err: unknown) => (err instanceof Error ? err.message : String(err)) || 'refused';

/** wllama's key for a file's metadata: its own key behind this prefix (wllama's CacheManager, PREFIX_METADATA). */
const METADATA_PREFIX = '__metadata__';

/** Files in memory: gone with the page. */
export class MemoryBackend implements StorageBackend {
  private readonly files = new Map<string, Blob>();
  isSupported(): boolean {
    return true;
  }
  async read(key: string): Promise<Blob | null> {
    return this.files.get(key) ?? null;
  }
  async write(key: string, stream: ReadableStream): Promise<void> {
    this.files.set(key, await new Response(stream).blob());
  }
  async getSize(key: string): Promise<number> {
    return this.files.get(key)?.size ?? -1;
  }
  async list(): Promise<{ key: string; size: number }[]> {
    return [...this.files].map(([key, blob]) => ({ key, size: blob.size }));
  }
  async delete(key: string): Promise<void> {
    this.files.delete(key);
  }
}

/** Files as entries of one Cache Storage cache, keyed by a URL of this origin that is never fetched. */
export class CacheStorageBackend implements StorageBackend {
  constructor(
    private readonly cache: Cache,
    private readonly origin: string,
  ) {}
  private url(key: string): string {
    return `${this.origin}${CACHE_PREFIX}${encodeURIComponent(key)}`;
  }
  isSupported(): boolean {
    return true;
  }
  async read(key: string): Promise<Blob | null> {
    const hit = await this.cache.match(this.url(key));
    return hit ? hit.blob() : null;
  }
  async write(key: string, stream: ReadableStream): Promise<void> {
    await this.cache.put(this.url(key), new Response(stream));
  }
  async getSize(key: string): Promise<number> {
    const file = await this.read(key);
    return file ? file.size : -1;
  }
  async list(): Promise<{ key: string; size: number }[]> {
    const out: { key: string; size: number }[] = [];
    for (const request of await this.cache.keys()) {
      const path = new URL(request.url).pathname;
      if (!path.startsWith(CACHE_PREFIX)) continue;
      const key = decodeURIComponent(path.slice(CACHE_PREFIX.length));
      out.push({ key, size: await this.getSize(key) });
    }
    return out;
  }
  async delete(key: string): Promise<void> {
    await this.cache.delete(this.url(key));
  }
}

async function openOpfs(): Promise<StorageBackend> {
  if (!givenStorageRoot() && typeof globalThis.navigator?.storage?.getDirectory !== 'function')
    throw new Error('this browser has no OPFS (navigator.storage.getDirectory)');
  // Rejects where OPFS is refused (a private window).
  await (await storageRoot()).getDirectoryHandle('cache', { create: true });
  return new DirectoryBackend(storageRoot);
}

async function openCacheStorage(): Promise<StorageBackend> {
  if (typeof caches === 'undefined') throw new Error('this browser has no Cache Storage');
  const cache = await caches.open(GGUF_CACHE_NAME);
  // A store that opens may still refuse writes (a private window with no quota): one small entry tells.
  const probe = `${self.location.origin}${CACHE_PREFIX}probe`;
  await cache.put(probe, new Response('probe'));
  await cache.delete(probe);
  return new CacheStorageBackend(cache, self.location.origin);
}

/** The stores, in the order they are tried. Memory always opens. */
export const STORE_CANDIDATES: readonly StoreCandidate[] = [
  { store: 'opfs', open: openOpfs },
  { store: 'cache-storage', open: openCacheStorage },
  { store: 'memory', open: async () => new MemoryBackend() },
];

const STORE_NAME: Record<StoreKind, string> = { opfs: 'OPFS', 'cache-storage': 'Cache Storage', memory: 'memory' };

/** What keeping the files in `store` means, and (for a fallback) why the stores before it were not used. */
export function storeWhy(store: StoreKind, refused: readonly string[]): string {
  const because = refused.length > 0 ? ` (${refused.join('; ')})` : '';
  switch (store) {
    case 'opfs':
      return 'OPFS (the origin private file system): kept across visits; a cut download resumes.';
    case 'cache-storage':
      return `Cache Storage, because OPFS cannot be used here${because}: kept across visits; a cut download starts over.`;
    case 'memory':
      return `Memory, for this page's life only, because no store can be used here${because}: every visit downloads the model again.`;
  }
}

/** Tries each store in order and takes the first that opens. */
export async function chooseStore(candidates: readonly StoreCandidate[] = STORE_CANDIDATES): Promise<{ backend: StorageBackend; choice: StoreChoice }> {
  const refused: string[] = [];
  for (const candidate of candidates) {
    try {
      const backend = await candidate.open();
      return { backend, choice: { store: candidate.store, why: storeWhy(candidate.store, refused) } };
    } catch (err) {
      refused.push(`${STORE_NAME[candidate.store]}: ${message(err)}`);
    }
  }
  // Only with candidates that all refuse (memory never does).
  throw new Error(`No store for the model files: ${refused.join('; ')}`);
}

/**
 * The store chosen on first use, as wllama's CacheManager backend (which wants one when it is constructed, before
 * anything can be tried asynchronously).
 */
export class ChosenStore implements StorageBackend {
  private chosen: Promise<{ backend: StorageBackend; choice: StoreChoice }> | null = null;
  /** Files the chosen store had no room for (`spill`), with their metadata: kept in memory for the page's life. */
  private readonly memory = new MemoryBackend();
  private readonly spilledNames = new Set<string>();
  /** Why the last file was spilled, as the browser said. */
  private spillWhy = '';

  constructor(private readonly candidates: readonly StoreCandidate[] = STORE_CANDIDATES) {}

  choose(): Promise<{ backend: StorageBackend; choice: StoreChoice }> {
    this.chosen ??= chooseStore(this.candidates);
    return this.chosen;
  }

  /** The store chosen, and what it means here; it names the files kept in memory because it was full. */
  async choice(): Promise<StoreChoice> {
    const { choice } = await this.choose();
    if (this.spilledNames.size === 0) return choice;
    return {
      ...choice,
      why: `${choice.why} But it is full (${this.spillWhy}): ${this.spilledNames.size} model file(s) kept in memory for this page's life only, downloaded again on the next visit. Free space on the disk, or delete models in the Models area.`,
    };
  }

  /** Whether `name` is kept in memory because the store had no room for it. */
  spilled(name: string): boolean {
    return this.spilledNames.has(name.startsWith(METADATA_PREFIX) ? name.slice(METADATA_PREFIX.length) : name);
  }

  /**
   * The store had no room for file `name` (`why`: the browser's error): what was written of it and its metadata
   * are removed, and from now on it (and its metadata) is read and written in memory.
   */
  async spill(name: string, why: unknown): Promise<void> {
    const backend = await this.backend();
    await backend.delete(name).catch(() => undefined);
    await backend.delete(`${METADATA_PREFIX}${name}`).catch(() => undefined);
    this.spilledNames.add(name);
    this.spillWhy = message(why);
  }

  private async backend(): Promise<StorageBackend> {
    return (await this.choose()).backend;
  }

  private async backendFor(key: string): Promise<StorageBackend> {
    return this.spilled(key) ? this.memory : this.backend();
  }

  isSupported(): boolean {
    return true;
  }
  async read(key: string): Promise<Blob | null> {
    return (await this.backendFor(key)).read(key);
  }
  async write(key: string, stream: ReadableStream): Promise<void> {
    return (await this.backendFor(key)).write(key, stream);
  }
  async getSize(key: string): Promise<number> {
    return (await this.backendFor(key)).getSize(key);
  }
  async list(): Promise<{ key: string; size: number }[]> {
    const stored = (await (await this.backend()).list()).filter((file) => !this.spilled(file.key));
    return [...stored, ...(await this.memory.list())];
  }
  async delete(key: string): Promise<void> {
    if (!this.spilled(key)) return (await this.backend()).delete(key);
    await this.memory.delete(key);
    if (key.startsWith(METADATA_PREFIX)) return;
    // A deleted model is gone from memory, metadata and all; downloaded again, it tries the store first.
    await this.memory.delete(`${METADATA_PREFIX}${key}`);
    this.spilledNames.delete(key);
  }
}
