// Importing GGUF files from disk (a chosen folder, or files dropped on the Models area) into wllama's cache, for
// machines that cannot download them. wllama keys each cached file by the URL it was fetched from (its
// CacheManager: `${sha1(url)}_${name}` in OPFS, a metadata file beside it); a model counts as cached when every
// file of it (each split part, and its mmproj when it has one) is there with its full size. So an import writes
// each file under the URL this deployment's settings give it (models.ts, ggufSource), and the next load fetches
// nothing. Files are matched by name: the model's file name as in its URL (each part of a split model), and
// its vision projector by its own name, else the one `.gguf` beside the model whose name contains `mmproj`.
import type { ModelCatalog } from '#shared/model-config';
import type { ImportFile, ImportProgress, ImportReport } from '#shared/wire/engine-control';
import type { ModelId } from '#shared/variants';
import { fileName, splitParts, weightGroups, type GgufSource } from './models';
import type { Variant } from '#shared/variants';
import { importReport } from '../common/import-report';

export interface GgufImportEntry {
  url: string;
  source: ImportFile;
}

export interface GgufModelImport {
  /** The model's GGUF file name (its first part for a split model). */
  modelId: string;
  variants: ModelId[];
  folder: string;
  /** The model's files (split parts in order), then its mmproj. */
  entries: GgufImportEntry[];
  /** The mmproj's URL, written into every file's metadata (wllama pairs them by it). */
  mmprojUrl?: string;
  bytes: number;
  warnings: string[];
}

export interface GgufImportPlan {
  models: GgufModelImport[];
  problems: string[];
}

const normalise = (path: string) => path.replace(/\\/g, '/').replace(/^\.?\//, '');
const dirOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');
const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** Which of this deployment's llama.cpp models (of `catalog`) `files` hold, and the URL each file goes under. */
export function planGgufImport(files: readonly ImportFile[], sourceOf: (variant: Variant) => GgufSource, catalog: ModelCatalog): GgufImportPlan {
  const picked = files.map((f) => ({ path: normalise(f.path), file: f.file }));
  const byName = new Map<string, ImportFile>();
  for (const f of picked) if (!byName.has(baseName(f.path))) byName.set(baseName(f.path), f);
  const plan: GgufImportPlan = { models: [], problems: [] };
  const expected: string[] = [];
  const used = new Set<string>();
  for (const variant of weightGroups(catalog)) {
    const source = sourceOf(variant);
    const urls = source.files.length > 1 ? source.files : splitParts(source.url);
    const names = urls.map(fileName);
    const variants = catalog.variants.filter((v) => v.weightGroup === variant.weightGroup).map((v) => v.id);
    expected.push(`${names[0]}${names.length > 1 ? ` (and its ${names.length - 1} other parts)` : ''} for ${variants.join(', ')}`);
    const found = names.map((n) => byName.get(n));
    if (!found.some(Boolean)) continue;
    const modelId = names[0]!;
    const where = dirOf(found.find(Boolean)!.path) || 'the chosen files';
    const missing = names.filter((_, i) => !found[i]);
    if (missing.length > 0) {
      plan.problems.push(
        `${modelId}: the model is split in ${names.length} files and ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not in the selection.`,
      );
      continue;
    }
    const entries: GgufImportEntry[] = urls.map((url, i) => ({ url, source: found[i]! }));
    const warnings: string[] = [];
    if (source.mmprojUrl) {
      const wanted = fileName(source.mmprojUrl);
      let mmproj = byName.get(wanted);
      if (!mmproj) {
        // Paired by name: the one mmproj GGUF in the model's folder.
        const beside = picked.filter((f) => dirOf(f.path) === dirOf(found[0]!.path) && /mmproj/i.test(baseName(f.path)) && /\.gguf$/i.test(f.path));
        if (beside.length === 1) {
          mmproj = beside[0]!;
          warnings.push(`${baseName(mmproj.path)} was imported as its vision projector ${wanted}.`);
        }
      }
      if (!mmproj) {
        plan.problems.push(
          `${modelId}: its vision projector ${wanted} (or one .gguf file with "mmproj" in its name beside the model) is not in the selection.`,
        );
        continue;
      }
      entries.push({ url: source.mmprojUrl, source: mmproj });
    }
    for (const e of entries) used.add(e.source.path);
    plan.models.push({
      modelId,
      variants,
      folder: where,
      entries,
      ...(source.mmprojUrl ? { mmprojUrl: source.mmprojUrl } : {}),
      bytes: entries.reduce((sum, e) => sum + e.source.file.size, 0),
      warnings,
    });
  }
  const others = picked.filter((f) => /\.gguf$/i.test(f.path) && !used.has(f.path)).map((f) => baseName(f.path));
  if (plan.models.length === 0 && plan.problems.length === 0) {
    plan.problems.push(
      `No GGUF file this deployment's models use is in the selection${others.length ? ` (it has ${others.slice(0, 3).join(', ')}${others.length > 3 ? ` and ${others.length - 3} more` : ''})` : ''}: expected ${expected.join('; ')}.`,
    );
  }
  return plan;
}

/** Where imported files are written: wllama's cache, keyed by URL. */
export interface GgufCacheWriter {
  put(url: string, file: Blob, mmprojUrl: string | undefined, onBytes: (done: number) => void): Promise<void>;
}

/** Plans and writes an import; the report says what was imported and what was not, and why. */
export async function importGguf(
  files: readonly ImportFile[],
  sourceOf: (variant: Variant) => GgufSource,
  cache: GgufCacheWriter,
  catalog: ModelCatalog,
  onProgress?: (progress: ImportProgress) => void,
): Promise<ImportReport> {
  const plan = planGgufImport(files, sourceOf, catalog);
  for (const model of plan.models) {
    let done = 0;
    // The model's files after its mmproj: wllama counts the model cached only once its first file is there.
    for (const entry of [...model.entries].reverse()) {
      await cache.put(entry.url, entry.source.file, model.mmprojUrl, (n) =>
        onProgress?.({ modelId: model.modelId, path: entry.source.path, bytesDone: done + n, bytesTotal: model.bytes }),
      );
      done += entry.source.file.size;
    }
  }
  return importReport(plan);
}
