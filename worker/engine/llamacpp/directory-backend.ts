// wllama's storage backend over a given OPFS folder. wllama's own (OPFSBackend) always opens
// `navigator.storage.getDirectory()`, also in a blob worker of its own for writes; a model provider's engine
// worker must use the folder its StorageAccessHandle gave (worker/engine/common/storage-root.ts). Same layout as
// wllama's: files under `cache/`, named as wllama names them.
import type { CacheManager } from '@wllama/wllama';

type StorageBackend = NonNullable<ConstructorParameters<typeof CacheManager>[0]>[number];

export class DirectoryBackend implements StorageBackend {
  constructor(private readonly root: () => Promise<FileSystemDirectoryHandle>) {}

  private async dir(): Promise<FileSystemDirectoryHandle> {
    return (await this.root()).getDirectoryHandle('cache', { create: true });
  }

  isSupported(): boolean {
    return true;
  }

  async read(key: string): Promise<Blob | null> {
    try {
      return await (await (await this.dir()).getFileHandle(key)).getFile();
    } catch {
      return null;
    }
  }

  async write(key: string, stream: ReadableStream): Promise<void> {
    const writable = await (await (await this.dir()).getFileHandle(key, { create: true })).createWritable();
    await stream.pipeTo(writable);
  }

  async getSize(key: string): Promise<number> {
    const file = await this.read(key);
    return file ? file.size : -1;
  }

  async list(): Promise<{ key: string; size: number }[]> {
    const out: { key: string; size: number }[] = [];
    for await (const [key, handle] of (await this.dir()) as unknown as AsyncIterable<[string, FileSystemHandle]>) {
      if (handle.kind === 'file') out.push({ key, size: (await (handle as FileSystemFileHandle).getFile()).size });
    }
    return out;
  }

  async delete(key: string): Promise<void> {
    try {
      await (await this.dir()).removeEntry(key);
    } catch (err) {
      if ((err as { name?: string } | null)?.name !== 'NotFoundError') throw err;
    }
  }
}
