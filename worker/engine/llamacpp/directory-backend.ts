// wllama's storage backend over an OPFS folder: this worker's own, or the folder a model provider's engine worker
// was given by its StorageAccessHandle (worker/engine/common/storage-root.ts); wllama's own (OPFSBackend) always
// opens `navigator.storage.getDirectory()` and cannot be told apart from a refusal until it is used (stores.ts
// tries OPFS first and falls back). Same layout as wllama's: files under `cache/`, named as wllama names them, so
// a cache wllama wrote is read as it was.
import type { CacheManager } from '@wllama/wllama';
import { writeWhole } from './storage-full';

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
    const handle = await (await this.dir()).getFileHandle(key, { create: true });
    if (typeof handle.createWritable === 'function') {
      await stream.pipeTo(await handle.createWritable());
      return;
    }
    // Safari before 26 has no createWritable; a dedicated worker (the engine's) writes through a sync handle.
    const access = await (handle as unknown as { createSyncAccessHandle(): Promise<FileSystemSyncAccessHandle> }).createSyncAccessHandle();
    try {
      access.truncate(0);
      let at = 0;
      const reader = stream.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const bytes = value as Uint8Array<ArrayBuffer>;
        writeWhole(access, bytes, at);
        at += bytes.length;
      }
      access.flush();
    } finally {
      access.close();
    }
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
