// Importing a model from a folder on disk into the model cache (air-gapped use). The engine worker does the
// writing (worker/engine/webllm/import-files.ts, with web-llm's own cache code) and then reads its cache again,
// so this works in the tab that hosts the engine.
import * as Comlink from 'comlink';
import type { ImportFile, ImportProgress, ImportReport } from '#shared/wire/engine-control';
import type { EngineHost } from './engine-host';
import { requestPersistence } from './storage';

export type { ImportFile, ImportProgress, ImportReport };

/** A picked file: from `<input type=file webkitdirectory>` (its `webkitRelativePath`), or with its path given. */
export type PickedFile = File | ImportFile;

function asImportFile(f: PickedFile): ImportFile {
  if (f instanceof File) return { path: f.webkitRelativePath || f.name, file: f };
  return f;
}

/** Walks a directory handle (File System Access API, `showDirectoryPicker()`). */
export async function filesOfDirectory(dir: FileSystemDirectoryHandle, prefix = dir.name): Promise<ImportFile[]> {
  const out: ImportFile[] = [];
  const entries = (dir as unknown as { values(): AsyncIterable<FileSystemHandle> }).values();
  for await (const entry of entries) {
    const path = `${prefix}/${entry.name}`;
    if (entry.kind === 'file') out.push({ path, file: await (entry as FileSystemFileHandle).getFile() });
    else out.push(...(await filesOfDirectory(entry as FileSystemDirectoryHandle, path)));
  }
  return out;
}

const notHosting = () => new Error('Another tab of this site hosts the engine: import the model there (or close that tab, and this one takes over).');

/** What `window.inpage.modelFiles` and installInpage's `modelFiles` offer. */
export interface ModelTools {
  /**
   * Imports every complete model among `files` (a model's folder: mlc-chat-config.json, tokenizer, weight
   * manifest and shards, ideally its .wasm library; `npm run models:pull` output as it is).
   */
  importFiles(files: Iterable<PickedFile>, onProgress?: (progress: ImportProgress) => void): Promise<ImportReport>;
  /** web-llm model ids whose files are all in the cache for this deployment's model source. */
  cached(): Promise<string[]>;
}

/** Model tools for the engine `host()` returns (null while another tab hosts it). */
export function modelTools(host: () => EngineHost | null): ModelTools {
  return {
    async importFiles(files, onProgress) {
      const engine = host();
      if (!engine) throw notHosting();
      const picked = [...files].map(asImportFile);
      void requestPersistence();
      return engine.control.importFiles(picked, onProgress ? Comlink.proxy(onProgress) : undefined);
    },
    async cached() {
      const engine = host();
      if (!engine) throw notHosting();
      return engine.control.cachedModels();
    },
  };
}
