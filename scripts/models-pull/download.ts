// Downloads for `npm run models:pull` (pull.ts: web-llm's files; gguf.ts: llama.cpp's): a GET with retries, and a
// download through a temporary file.
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';

export interface PulledFile {
  /** Path under DIR. */
  path: string;
  bytes: number;
  /** False when a complete copy was already there. */
  downloaded: boolean;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    url: string,
  ) {
    super(`HTTP ${status} for ${url}`);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** GET with three tries for network failures and 5xx; a 4xx is final. */
async function get(url: string): Promise<Response> {
  let last: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (attempt > 0) await sleep(500 * attempt);
    try {
      const res = await fetch(url, { redirect: 'follow' });
      if (res.ok) return res;
      await res.body?.cancel();
      last = new HttpError(res.status, url);
      if (res.status < 500) break;
    } catch (err) {
      last = err;
    }
  }
  throw last instanceof Error ? last : new Error(`Could not fetch ${url}: ${String(last)}`);
}

export async function sizeOf(path: string): Promise<number | null> {
  return stat(path).then(
    (s) => (s.isFile() ? s.size : null),
    () => null,
  );
}

/** Downloads `url` to `path` (through a temporary file, so a cut download never looks complete). */
export async function download(url: string, path: string, expected?: number): Promise<number> {
  await mkdir(dirname(path), { recursive: true });
  const res = await get(url);
  const partial = `${path}.partial`;
  try {
    await pipeline(Readable.fromWeb(res.body as unknown as NodeReadableStream<Uint8Array>), createWriteStream(partial));
    const bytes = (await sizeOf(partial)) ?? 0;
    if (expected !== undefined && bytes !== expected) throw new Error(`${url} gave ${bytes} bytes; its manifest says ${expected}.`);
    await rename(partial, path);
    return bytes;
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
}
