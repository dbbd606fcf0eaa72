// llama.cpp's model files without OPFS (worker/engine/llamacpp/stores.ts): each store is tried in order, the first
// that opens is used, the choice says why the others were not, and the engine's cache works the same over any of
// them (a download written whole, listed, read back, removed).
import { afterEach, describe, expect, test, vi } from 'vitest';
import { ChosenStore, MemoryBackend, STORE_CANDIDATES, chooseStore, type StoreCandidate } from '../../worker/engine/llamacpp/stores';
import { ResumableCache } from '../../worker/engine/llamacpp/resumable-cache';

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
