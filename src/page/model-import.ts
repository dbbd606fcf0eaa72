// Importing a model from a folder on disk into web-llm's cache (air-gapped machines), from any tab of the origin.
// The work is in worker/engine/webllm/import-files.ts, loaded only when an import starts (it carries web-llm's
// model table). Files are keyed by this deployment's model source, as the engine will look them up.
import { loadConfig } from '../config';
import type { VariantId } from '../variants';
import type { ImportFile, ImportProgress } from '../../worker/engine/webllm/import-files';
import { announceCacheChange } from './cache-events';
import { requestPersistence } from './storage';

export type { ImportProgress };

export interface ImportedModel {
  modelId: string;
  variants: VariantId[];
  /** Where in the selection its files were. */
  folder: string;
  files: number;
  bytes: number;
  warnings: string[];
}

export interface ImportReport {
  imported: ImportedModel[];
  /** Folders that were not imported, and why. */
  problems: string[];
}

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

/**
 * Imports every complete model found among `files` (a model's folder: mlc-chat-config.json, tokenizer, weight
 * manifest and shards, ideally its .wasm library; `npm run models:pull` output works as it is). The engine's
 * tab then reads its cache again, so the models show as cached.
 */
export async function importModelFiles(files: Iterable<PickedFile>, onProgress?: (progress: ImportProgress) => void): Promise<ImportReport> {
  const [{ planImport, writeImport }, config] = await Promise.all([import('../../worker/engine/webllm/import-files'), loadConfig(location)]);
  const plan = await planImport([...files].map(asImportFile), config, location.origin);
  if (plan.models.length > 0) {
    void requestPersistence();
    try {
      await writeImport(plan, onProgress);
    } finally {
      announceCacheChange();
    }
  }
  return {
    imported: plan.models.map((m) => ({ modelId: m.modelId, variants: m.variants, folder: m.folder, files: m.entries.length, bytes: m.bytes, warnings: m.warnings })),
    problems: plan.problems,
  };
}

/** The web-llm model ids whose files are all in the cache for this deployment's model source (web-llm's own check). */
export async function cachedModels(): Promise<string[]> {
  const [{ hasModelInCache }, { appConfigFor }, { knownModels }, config] = await Promise.all([
    import('@mlc-ai/web-llm'),
    import('../../worker/engine/webllm/models'),
    import('../../worker/engine/webllm/import-files'),
    loadConfig(location),
  ]);
  const appConfig = appConfigFor(config, location.origin);
  const ids = [...knownModels().keys()];
  const cached = await Promise.all(ids.map((id) => hasModelInCache(id, appConfig).catch(() => false)));
  return ids.filter((_, i) => cached[i]);
}
