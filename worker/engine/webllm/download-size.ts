// How much a web-llm model's download would fetch, found out small before it starts: its weight manifest
// (tensor-cache.json, which lists every shard's `nbytes`) and its library's length (HEAD).
// Never a made-up figure: what cannot be found out is `bytes: null`.
import type { DownloadSize } from '#shared/wire/engine-port';
import { contentLength, type Fetch } from '../common/download-size';

/** web-llm's folder URL of a model's files: `…/MODEL` becomes `…/MODEL/resolve/main/` (its cleanModelUrl). */
export function webllmFilesUrl(model: string): string {
  let url = model.endsWith('/') ? model : `${model}/`;
  if (!/.+\/resolve\/.+\//.test(url)) url += 'resolve/main/';
  return new URL(url).href;
}

/** The sum of the shards' `nbytes` in a tensor-cache.json, or null when it is not one. */
export function manifestBytes(manifest: unknown): number | null {
  const records = (manifest as { records?: unknown } | null)?.records;
  if (!Array.isArray(records) || records.length === 0) return null;
  let sum = 0;
  for (const shard of records) {
    const n = (shard as { nbytes?: unknown } | null)?.nbytes;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) return null;
    sum += n;
  }
  return sum;
}

/**
 * A web-llm model's download: its weights by the manifest, plus its library (.wasm) by a HEAD request when
 * the library's host answers one. Unknown (null) when the manifest cannot be fetched (offline, blocked).
 */
export async function webllmDownloadSize(record: { model: string; model_lib: string }, fetchFn: Fetch, timeoutMs = 15_000): Promise<DownloadSize> {
  const files = webllmFilesUrl(record.model);
  const host = new URL(files).host;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const res = await fetchFn(new URL('tensor-cache.json', files).href, { signal });
    if (!res.ok) return { bytes: null, basis: 'unknown', host };
    const weights = manifestBytes(await res.json());
    if (weights === null) return { bytes: null, basis: 'unknown', host };
    const library = await contentLength(record.model_lib, fetchFn, signal);
    return library === null
      ? { bytes: weights, basis: 'manifest', host, covers: 'weights (the model library’s size is not known)' }
      : { bytes: weights + library, basis: 'manifest', host, covers: 'weights and model library' };
  } catch {
    return { bytes: null, basis: 'unknown', host };
  }
}
