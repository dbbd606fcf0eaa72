// Importing a model's files from disk into web-llm's IndexedDB cache, for machines that cannot download them.
//
// web-llm 0.2.86 keeps each file in the IndexedDB database of its scope (webllm/config, webllm/model,
// webllm/wasm), object store `urls`, as `{url, data}` keyed by the URL it would have fetched the file from:
// `data` is the parsed JSON for the weight manifest (it reads that one as "json") and an ArrayBuffer for the rest.
// So an import writes each file under the URL this deployment's model source gives it (models.ts, recordFor),
// and web-llm then finds the model cached (hasModelInCache) and loads it without touching the network.
import { hasModelInCache } from '@mlc-ai/web-llm';
import { openDB, type IDBPDatabase } from 'idb';
import type { ImportFile, ImportProgress, ImportReport } from '#shared/wire/engine-control';
import type { ModelId } from '#shared/variants';
import type { ModelCatalog } from '#shared/model-config';
import { appConfigFor, baseRecord, modelIdOf, recordFor, weightGroups, variantsOfGroup, type ModelSource } from './models';
import { importReport } from '../common/import-report';

export type { ImportFile, ImportProgress, ImportReport };

export const CACHE_SCOPES = { config: 'webllm/config', model: 'webllm/model', wasm: 'webllm/wasm' } as const;
type Scope = (typeof CACHE_SCOPES)[keyof typeof CACHE_SCOPES];

const CHAT_CONFIG = 'mlc-chat-config.json';
const MANIFESTS = ['tensor-cache.json', 'ndarray-cache.json'] as const;
/** The tokenizer files web-llm reads (it ignores the other files `tokenizer_files` lists). */
const TOKENIZERS = ['tokenizer.json', 'tokenizer.model'] as const;

export interface ImportEntry {
  scope: Scope;
  url: string;
  /** How web-llm reads it back: the weight manifest as parsed JSON, everything else as bytes. */
  as: 'json' | 'arraybuffer';
  source: ImportFile;
}

export interface ModelImport {
  /** web-llm's model id, e.g. Qwen3-1.7B-q4f16_1-MLC. */
  modelId: string;
  variants: ModelId[];
  /** The folder (inside the selection) that holds its weights. */
  folder: string;
  /** In write order: the weight manifest last, so an interrupted import never looks complete. */
  entries: ImportEntry[];
  bytes: number;
  warnings: string[];
}

export interface ImportPlan {
  models: ModelImport[];
  /** Folders that hold a model but cannot be imported, and why. */
  problems: string[];
}

/** The web-llm model ids inpage can run, with the variants each serves. */
export function knownModels(catalog: ModelCatalog): Map<string, ModelId[]> {
  const out = new Map<string, ModelId[]>();
  for (const variant of weightGroups(catalog)) {
    for (const modelId of new Set([modelIdOf(catalog, variant, 'f16'), modelIdOf(catalog, variant, 'f32')])) {
      out.set(modelId, [...(out.get(modelId) ?? []), ...variantsOfGroup(catalog, variant.weightGroup)]);
    }
  }
  return out;
}

const fileName = (url: string) => url.slice(url.lastIndexOf('/') + 1);

/** web-llm's `cleanModelUrl`: the folder its model files are fetched from. */
export function modelFilesUrl(model: string): string {
  let url = model.endsWith('/') ? model : `${model}/`;
  if (!/.+\/resolve\/.+\//.test(url)) url += 'resolve/main/';
  return new URL(url).href;
}

function normalise(path: string): string {
  return path.replace(/\\/g, '/').replace(/^\.?\//, '');
}

function split(path: string): { dir: string; name: string } {
  const at = path.lastIndexOf('/');
  return at < 0 ? { dir: '', name: path } : { dir: path.slice(0, at), name: path.slice(at + 1) };
}

interface TensorManifest {
  records?: { dataPath?: unknown; nbytes?: unknown }[];
}

/**
 * Works out which models a selection of files holds and where each file goes. A model is a folder with
 * mlc-chat-config.json; its id comes from the folder's path (a web-llm model id as a folder name, as
 * `npm run models:pull` and Hugging Face clones lay them out) or from its model library's file name.
 */
export async function planImport(catalog: ModelCatalog, files: readonly ImportFile[], source: ModelSource, origin: string): Promise<ImportPlan> {
  const known = knownModels(catalog);
  const byLibrary = new Map<string, string>();
  for (const modelId of known.keys()) byLibrary.set(fileName(baseRecord(catalog, modelId).model_lib), modelId);
  const folders = new Map<string, Map<string, ImportFile>>();
  const byName = new Map<string, ImportFile>();
  for (const f of files) {
    const path = normalise(f.path);
    const { dir, name } = split(path);
    let folder = folders.get(dir);
    if (!folder) folders.set(dir, (folder = new Map()));
    folder.set(name, { path, file: f.file });
    if (!byName.has(name)) byName.set(name, { path, file: f.file });
  }

  const plan: ImportPlan = { models: [], problems: [] };
  const seen = new Set<string>();
  for (const [dir, folder] of [...folders].sort(([a], [b]) => a.localeCompare(b))) {
    const config = folder.get(CHAT_CONFIG);
    if (!config) continue;
    const where = dir || 'the chosen folder';
    const modelId =
      dir.split('/').find((part) => known.has(part)) ?? [...folder.keys()].map((name) => byLibrary.get(name)).find((id): id is string => id !== undefined);
    if (!modelId) {
      plan.problems.push(
        `${where}: holds a model, but not one inpage can tell: name the folder after its web-llm model id (one of ${[...known.keys()].join(', ')}) or put its model library (.wasm) beside it.`,
      );
      continue;
    }
    if (seen.has(modelId)) {
      plan.problems.push(`${where}: ${modelId} appears twice in the selection; the first one is imported.`);
      continue;
    }
    const record = recordFor(catalog, modelId, source, origin);
    const base = modelFilesUrl(record.model);
    const entries: ImportEntry[] = [{ scope: CACHE_SCOPES.config, url: new URL(CHAT_CONFIG, base).href, as: 'arraybuffer', source: config }];
    const warnings: string[] = [];

    let chat: { tokenizer_files?: unknown };
    try {
      chat = JSON.parse(await config.file.text()) as { tokenizer_files?: unknown };
    } catch (err) {
      plan.problems.push(`${where}: ${CHAT_CONFIG} is not JSON (${err instanceof Error ? err.message : String(err)}).`);
      continue;
    }
    const listed = Array.isArray(chat.tokenizer_files) ? chat.tokenizer_files : [];
    const tokenizers = TOKENIZERS.filter((name) => listed.includes(name) && folder.has(name));
    if (tokenizers.length === 0) {
      plan.problems.push(`${where}: no tokenizer (${TOKENIZERS.join(' or ')}, as ${CHAT_CONFIG} lists them) is in the folder.`);
      continue;
    }
    for (const name of tokenizers) entries.push({ scope: CACHE_SCOPES.model, url: new URL(name, base).href, as: 'arraybuffer', source: folder.get(name)! });

    const manifestName = MANIFESTS.find((name) => folder.has(name));
    if (!manifestName) {
      plan.problems.push(`${where}: no weight manifest (${MANIFESTS.join(' or ')}) is in the folder.`);
      continue;
    }
    const manifestFile = folder.get(manifestName)!;
    let manifest: TensorManifest;
    try {
      manifest = JSON.parse(await manifestFile.file.text()) as TensorManifest;
    } catch (err) {
      plan.problems.push(`${where}: ${manifestName} is not JSON (${err instanceof Error ? err.message : String(err)}).`);
      continue;
    }
    const shards = new Map<string, number | undefined>();
    for (const r of manifest.records ?? []) {
      if (typeof r.dataPath === 'string') shards.set(r.dataPath, typeof r.nbytes === 'number' ? r.nbytes : undefined);
    }
    if (shards.size === 0) {
      plan.problems.push(`${where}: ${manifestName} lists no weight shards.`);
      continue;
    }
    const wrong: string[] = [];
    const shardEntries: ImportEntry[] = [];
    for (const [dataPath, nbytes] of shards) {
      const shard = folder.get(dataPath) ?? files.find((f) => normalise(f.path) === (dir ? `${dir}/${dataPath}` : dataPath));
      if (!shard) wrong.push(`${dataPath} is missing`);
      else if (nbytes !== undefined && shard.file.size !== nbytes) wrong.push(`${dataPath} has ${shard.file.size} bytes, not ${nbytes}`);
      else shardEntries.push({ scope: CACHE_SCOPES.model, url: new URL(dataPath, base).href, as: 'arraybuffer', source: shard });
    }
    if (wrong.length > 0) {
      plan.problems.push(`${where}: the weights are incomplete: ${wrong.slice(0, 3).join('; ')}${wrong.length > 3 ? ` and ${wrong.length - 3} more` : ''}.`);
      continue;
    }

    const lib = fileName(baseRecord(catalog, modelId).model_lib);
    const libFile = folder.get(lib) ?? byName.get(lib);
    const libUrl = record.model_lib;
    if (!libFile) {
      warnings.push(`Its model library ${lib} is not in the selection: the engine fetches it from ${libUrl} when it first loads the model.`);
    } else if (libUrl.includes('localhost') || !/^https?:/.test(libUrl)) {
      warnings.push(`web-llm does not cache model libraries served from localhost: it fetches ${libUrl} at every load, so ${lib} was not imported.`);
    } else {
      entries.push({ scope: CACHE_SCOPES.wasm, url: libUrl, as: 'arraybuffer', source: libFile });
    }

    // The manifest last: web-llm counts a model cached when its manifest and every shard it lists are there.
    entries.push(...shardEntries, { scope: CACHE_SCOPES.model, url: new URL('tensor-cache.json', base).href, as: 'json', source: manifestFile });
    if (manifestName !== 'tensor-cache.json') warnings.push(`${manifestName} was imported as tensor-cache.json, the name web-llm reads.`);
    seen.add(modelId);
    plan.models.push({
      modelId,
      variants: known.get(modelId)!,
      folder: where,
      entries,
      bytes: entries.reduce((sum, e) => sum + e.source.file.size, 0),
      warnings,
    });
  }
  if (plan.models.length === 0 && plan.problems.length === 0) {
    plan.problems.push(`No model found: a model's folder holds ${CHAT_CONFIG}, its tokenizer, its weight manifest and shards.`);
  }
  return plan;
}

function openScope(scope: Scope): Promise<IDBPDatabase> {
  // web-llm's own schema (ArtifactIndexedDBCache): version 1, one store `urls` keyed by `url`.
  return openDB(scope, 1, {
    upgrade(db) {
      if (!db.objectStoreNames.contains('urls')) db.createObjectStore('urls', { keyPath: 'url' });
    },
  });
}

/** Writes the planned files into web-llm's cache, one file at a time (shards are tens of MiB each). */
export async function writeImport(plan: ImportPlan, onProgress?: (progress: ImportProgress) => void): Promise<void> {
  const dbs = new Map<Scope, IDBPDatabase>();
  try {
    for (const model of plan.models) {
      let done = 0;
      for (const entry of model.entries) {
        let db = dbs.get(entry.scope);
        if (!db) dbs.set(entry.scope, (db = await openScope(entry.scope)));
        const data = entry.as === 'json' ? JSON.parse(await entry.source.file.text()) : await entry.source.file.arrayBuffer();
        await db.put('urls', { url: entry.url, data });
        done += entry.source.file.size;
        onProgress?.({ modelId: model.modelId, path: entry.source.path, bytesDone: done, bytesTotal: model.bytes });
      }
    }
  } finally {
    for (const db of dbs.values()) db.close();
  }
}

/** Plans and writes an import; the report says what was imported and what was not, and why. */
export async function importIntoCache(
  catalog: ModelCatalog,
  files: readonly ImportFile[],
  source: ModelSource,
  origin: string,
  onProgress?: (progress: ImportProgress) => void,
): Promise<ImportReport> {
  const plan = await planImport(catalog, files, source, origin);
  await writeImport(plan, onProgress);
  return importReport(plan);
}

/** The model ids inpage can run whose files are all cached for `source`, by web-llm's own hasModelInCache. */
export async function cachedModelIds(catalog: ModelCatalog, source: ModelSource, origin: string): Promise<string[]> {
  const appConfig = appConfigFor(catalog, source, origin);
  const ids = [...knownModels(catalog).keys()];
  const cached = await Promise.all(ids.map((id) => hasModelInCache(id, appConfig).catch(() => false)));
  return ids.filter((_, i) => cached[i]);
}
