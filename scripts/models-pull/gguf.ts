// The llama.cpp part of `npm run models:pull`: the chosen variants' GGUF defaults (worker/engine/llamacpp/models.ts:
// the model file, every part of a split one, and a vision model's projector) into DIR/gguf, in Hugging Face's
// layout, so a deployment serves DIR at /models and sets `ggufBaseUrl: "/models/gguf"`. A file already there
// whole (its size is the server's Content-Length) is not fetched again.
import { join } from 'node:path';
import type { VariantId } from '../../src/shared/variants';
import { VARIANTS } from '../../src/shared/variants';
import { GGUF_DEFAULTS, HUGGING_FACE, splitParts } from '../../worker/engine/llamacpp/models';
import { download, sizeOf, type PulledFile } from './download';

/** Where under DIR the GGUF files go; `ggufBaseUrl` is this folder as served. */
export const GGUF_DIR = 'gguf';

export interface GgufPullOptions {
  variants: readonly VariantId[];
  out: string;
  /** GGUF files from `{ggufSource}/{repo}/resolve/main/{file}` instead of Hugging Face (a mirror, or a test server). */
  ggufSource?: string;
  log?: (line: string) => void;
}

export interface PulledGguf {
  /** The weight group (variants sharing it share the files). */
  group: string;
  variants: VariantId[];
  repo: string;
  files: PulledFile[];
}

/** The GGUF files the variants need, by weight group, in order; the embedding model has none. */
export function ggufFor(variants: readonly VariantId[]): { group: string; variants: VariantId[]; repo: string; files: string[] }[] {
  const groups = new Map<string, { group: string; variants: VariantId[]; repo: string; files: string[] }>();
  for (const id of variants) {
    const group = VARIANTS[id].weightGroup;
    const spec = GGUF_DEFAULTS[group];
    if (!spec) continue;
    const entry = groups.get(group) ?? { group, variants: [], repo: spec.repo, files: [...splitParts(spec.file), ...(spec.mmproj ? [spec.mmproj] : [])] };
    entry.variants.push(id);
    groups.set(group, entry);
  }
  return [...groups.values()];
}

/** The Content-Length a server gives for `url` (HEAD), or null. */
async function remoteSize(url: string): Promise<number | null> {
  try {
    const res = await fetch(url, { method: 'HEAD', redirect: 'follow' });
    const length = Number(res.headers.get('content-length'));
    return res.ok && Number.isFinite(length) && length > 0 ? length : null;
  } catch {
    return null;
  }
}

export async function pullGguf(options: GgufPullOptions): Promise<PulledGguf[]> {
  const log = options.log ?? (() => undefined);
  const base = (options.ggufSource ?? HUGGING_FACE).replace(/\/+$/, '');
  const pulled: PulledGguf[] = [];
  for (const { group, variants, repo, files } of ggufFor(options.variants)) {
    const entry: PulledGguf = { group, variants, repo, files: [] };
    log(`${repo} (${variants.join(', ')}) from ${base}`);
    for (const file of files) {
      const url = `${base}/${repo}/resolve/main/${file}`;
      const path = join(GGUF_DIR, repo, 'resolve', 'main', file);
      const target = join(options.out, path);
      const [have, size] = await Promise.all([sizeOf(target), remoteSize(url)]);
      if (have !== null && size !== null && have === size) {
        entry.files.push({ path, bytes: have, downloaded: false });
        log(`  ${file}: already here (${have} bytes)`);
        continue;
      }
      const bytes = await download(url, target, size ?? undefined);
      entry.files.push({ path, bytes, downloaded: true });
      log(`  ${file}: ${bytes} bytes`);
    }
    pulled.push(entry);
  }
  return pulled;
}
