// llama.cpp's model files without OPFS (worker/engine/llamacpp/stores.ts): each store is tried in order, the first
// that opens is used, the choice says why the others were not, and the engine's cache works the same over any of
// them (a download written whole, listed, read back, removed).
import { afterEach, describe, expect, test, vi } from 'vitest';
import { ChosenStore, MemoryBackend, STORE_CANDIDATES, chooseStore, type StoreCandidate } from '../../../worker/engine/llamacpp/stores';
import { StorageFull } from '../../../worker/engine/llamacpp/storage-full';
import { ResumableCache, type FileSink } from '../../../worker/engine/llamacpp/resumable-cache';

const refusing = (store: StoreCandidate['store'], why: string): StoreCandidate => ({
  store,
  open: async () => Promise.reject(new DOMException(why, 'SecurityError')),
});
const memory: StoreCandidate = { store: 'memory', open: async () => new MemoryBackend() };

describe('the store llama.cpp keeps its files in', () => {
  test('OPFS refused (a private window): Cache Storage, saying why and what it means', async () => {
    const { choice } = await chooseStore([
      refusing('opfs', 'The operation is insecure.'),
      { store: 'cache-storage', open: async () => new MemoryBackend() },
      memory,
    ]);
    expect(choice).toEqual({
      store: 'cache-storage',
      why: 'Cache Storage, because OPFS cannot be used here (OPFS: The operation is insecure.): kept across visits; a cut download starts over.',
    });
  });

  test('neither OPFS nor Cache Storage: memory for the page’s life, every visit downloading again, naming both refusals', async () => {
    const { choice } = await chooseStore([refusing('opfs', 'no OPFS'), refusing('cache-storage', 'no quota'), memory]);
    expect(choice).toEqual({
      store: 'memory',
      why: "Memory, for this page's life only, because no store can be used here (OPFS: no OPFS; Cache Storage: no quota): every visit downloads the model again.",
    });
  });

  test('OPFS where it opens, with nothing to explain but what it gives', async () => {
    const { choice } = await chooseStore([{ store: 'opfs', open: async () => new MemoryBackend() }, memory]);
    expect(choice).toEqual({ store: 'opfs', why: 'OPFS (the origin private file system): kept across visits; a cut download resumes.' });
  });

  test('the real candidates where the runtime has neither OPFS nor Cache Storage (Node): memory, each refusal named', async () => {
    const { choice } = await chooseStore(STORE_CANDIDATES);
    expect(choice.store).toBe('memory');
    expect(choice.why).toContain('OPFS: this browser has no OPFS (navigator.storage.getDirectory)');
    expect(choice.why).toContain('Cache Storage: this browser has no Cache Storage');
  });

  test('the store is chosen once, however many calls race for it', async () => {
    const open = vi.fn(async () => new MemoryBackend());
    const store = new ChosenStore([{ store: 'memory', open }]);
    await Promise.all([store.list(), store.getSize('a'), store.choice(), store.read('b')]);
    expect(open).toHaveBeenCalledTimes(1);
  });
});

describe("wllama's cache over a store that is not OPFS", () => {
  afterEach(() => vi.unstubAllGlobals());

  test('a download is written whole with its metadata; wllama lists it, reads it back and removes it', async () => {
    const bytes = new Uint8Array(30_000).map((_, i) => i % 251);
    const fetched: string[] = [];
    vi.stubGlobal('fetch', async (url: string) => {
      fetched.push(url);
      return new Response(bytes, { headers: { 'content-length': String(bytes.length), etag: '"abc-1"' } });
    });
    const cache = new ResumableCache(new ChosenStore([refusing('opfs', 'no OPFS'), memory]));
    const url = 'https://models.example/m/resolve/main/model.gguf';
    const progress: number[] = [];
    await cache.download(url, { progressCallback: ({ loaded }) => progress.push(loaded) });
    expect(fetched).toEqual([url]);
    expect(progress.at(-1)).toBe(bytes.length);
    const [entry, ...rest] = await cache.list();
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({ size: bytes.length, metadata: { originalURL: url, originalSize: bytes.length, etag: 'abc1' } });
    expect(new Uint8Array(await (await cache.open(url))!.arrayBuffer())).toEqual(bytes);
    await cache.delete(url);
    expect(await cache.list()).toEqual([]);
  });

  test('a download cut short is refused and leaves no file behind', async () => {
    vi.stubGlobal('fetch', async () => new Response(new Uint8Array(10), { headers: { 'content-length': '20' } }));
    const store = new ChosenStore([memory]);
    const cache = new ResumableCache(store);
    await expect(cache.download('https://models.example/cut.gguf')).rejects.toThrow('The download of https://models.example/cut.gguf ended at 10 of 20 bytes');
    expect(await store.list()).toEqual([]);
  });
});

describe('a store with no room left (the browser’s quota for the site, or the disk, is full)', () => {
  afterEach(() => vi.unstubAllGlobals());

  const url = 'https://models.example/m/resolve/main/full.gguf';
  const bytes = new Uint8Array(50_000).map((_, i) => (i * 7) % 251);
  const serve = (fetched: string[]) =>
    vi.stubGlobal('fetch', async (input: string, init?: RequestInit) => {
      const range = new Headers(init?.headers).get('range');
      fetched.push(range ? `${input} ${range}` : input);
      return new Response(bytes, { headers: { 'content-length': String(bytes.length), etag: '"full-1"' } });
    });

  /**
   * An OPFS file (the store's `opfs` candidate is a MemoryBackend standing for the folder) written at offsets. With
   * `short`, it keeps what fits in `room` bytes and says nothing (as a file whose writes the browser cut); without,
   * a write past `room` fails as resumable-cache.ts's OPFS sink does on Firefox's short write.
   */
  function opfsFile(folder: MemoryBackend, room: number, short = false) {
    return async (name: string): Promise<FileSink> => {
      let data = new Uint8Array(0);
      return {
        size: async () => data.length,
        write: async (chunk, at) => {
          if (at + chunk.length > room && !short) throw new StorageFull(`the browser kept ${Math.max(0, room - at)} of ${chunk.length} bytes written at ${at}`);
          const end = Math.min(at + chunk.length, room);
          const grown = new Uint8Array(Math.max(data.length, end));
          grown.set(data);
          if (end > at) grown.set(chunk.subarray(0, end - at), at);
          data = grown;
        },
        truncate: async (size) => void (data = data.slice(0, size)),
        close: async () => folder.write(name, new Blob([data]).stream()),
      };
    };
  }

  for (const [what, short] of [
    ['a write the browser refuses', false],
    ['a write the browser cut short without a word (the file is checked against what was written)', true],
  ] as const) {
    test(`OPFS, ${what}: the file is kept in memory, whole; the store keeps no part of it; the choice says so`, async () => {
      const fetched: string[] = [];
      serve(fetched);
      const folder = new MemoryBackend();
      const store = new ChosenStore([{ store: 'opfs', open: async () => folder }]);
      const cache = new ResumableCache(store, opfsFile(folder, 20_000, short));
      await cache.download(url);
      // Once into the store (stopped when it was full), once whole into memory: no retries of a full store.
      expect(fetched).toEqual([url, url]);
      expect(new Uint8Array(await (await cache.open(url))!.arrayBuffer())).toEqual(bytes);
      const [entry, ...rest] = await cache.list();
      expect(rest).toEqual([]);
      expect(entry).toMatchObject({ size: bytes.length, metadata: { originalURL: url, originalSize: bytes.length } });
      expect(await folder.list()).toEqual([]);
      const choice = await store.choice();
      expect(choice.store).toBe('opfs');
      expect(choice.why).toMatch(
        /^OPFS .* But it is full \(.+\): 1 model file\(s\) kept in memory for this page's life only, downloaded again on the next visit\./,
      );
      // Deleted, the model is gone from memory too, and the next download tries the store again.
      await cache.delete(url);
      expect(await cache.list()).toEqual([]);
      expect((await store.choice()).why).not.toContain('full');
    });
  }

  test('Cache Storage refusing the put with QuotaExceededError: kept in memory', async () => {
    const fetched: string[] = [];
    serve(fetched);
    const full = new MemoryBackend();
    full.write = async () => Promise.reject(new DOMException('The quota has been exceeded.', 'QuotaExceededError'));
    const store = new ChosenStore([{ store: 'cache-storage', open: async () => full }]);
    const cache = new ResumableCache(store);
    await cache.download(url);
    expect(fetched).toEqual([url, url]);
    expect((await cache.list()).map((e) => e.size)).toEqual([bytes.length]);
    expect((await store.choice()).why).toContain('But it is full (The quota has been exceeded.)');
  });

  test('an error that is not a full store fails the download as before (nothing kept in memory)', async () => {
    vi.stubGlobal('fetch', async () => new Response('no', { status: 500 }));
    const folder = new MemoryBackend();
    const store = new ChosenStore([{ store: 'opfs', open: async () => folder }]);
    const cache = new ResumableCache(store, opfsFile(folder, 1_000_000));
    await expect(cache.download(url)).rejects.toThrow(`Failed to fetch ${url}: HTTP 500`);
    // (The empty file the sink opened stays, as in OPFS; nothing of the model is kept anywhere.)
    expect((await cache.list()).filter((entry) => entry.size > 0)).toEqual([]);
    expect((await store.choice()).why).not.toContain('full');
  });
});
