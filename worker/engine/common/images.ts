// Image parts for svc-vision: every URL (data:, http(s):, blob:) is fetched here, before the model is
// touched, so an unreadable image is a clear 400 naming its part, and web-llm gets a data: URL it can read
// without a second (cross-origin) fetch. The image's size is kept for counting its tokens.
import { ApiError } from '#shared/protocol/errors';
import type { ChatMessage } from '#shared/protocol/types';

export interface ImageSize {
  width: number;
  height: number;
}

export interface ResolvedImage extends ImageSize {
  /** `data:image/…;base64,…` */
  dataUrl: string;
}

/** How images are read: fetch and decode in the worker; tests substitute their own. */
export interface ImageReader {
  fetch(url: string, signal: AbortSignal): Promise<Blob>;
  size(blob: Blob): Promise<ImageSize>;
}

export const browserImageReader: ImageReader = {
  async fetch(url, signal) {
    const res = await fetch(url, { signal });
    // The remote status is not passed on: an answer must not become a way to probe hosts.
    if (!res.ok) throw new Error('no image was returned');
    return res.blob();
  },
  async size(blob) {
    const bitmap = await createImageBitmap(blob);
    const size = { width: bitmap.width, height: bitmap.height };
    bitmap.close();
    return size;
  },
};

async function toDataUrl(blob: Blob, type: string): Promise<string> {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:${type};base64,${btoa(binary)}`;
}

const imageRefused = (shown: string, param: string) =>
  new ApiError(
    'invalid_value',
    `The image at ${shown} ('${param}') is not on a host this service may reach: use a data: URL, a blob: or http(s) URL of this origin, or a model host of the deployment.`,
    { param },
  );

/**
 * Refuses the first image part whose URL `allowed` refuses, as `resolveImages` does: the upstream engine applies the
 * same rule before anything is sent, so a server is never made to fetch an address the local engines may not.
 */
export function assertImagesAllowed(messages: readonly ChatMessage[], allowed: (url: string) => boolean): void {
  for (const [i, message] of messages.entries()) {
    if (!Array.isArray(message.content)) continue;
    for (const [j, part] of message.content.entries()) {
      if (part.type !== 'image_url' || allowed(part.image_url.url)) continue;
      const url = part.image_url.url;
      throw imageRefused(url.startsWith('data:') ? 'the data: URL' : url, `messages[${i}].content[${j}].image_url.url`);
    }
  }
}

/**
 * Reads every image part of `messages`; the map is keyed by the original URL. `allowed` says which URLs may be
 * fetched at all (src/shared/csp.ts: data:, the origin's blob: and http(s) URLs, the model hosts); others are refused
 * before any fetch, and a failed fetch says only that it failed, never the remote status.
 */
export async function resolveImages(
  messages: readonly ChatMessage[],
  reader: ImageReader,
  signal: AbortSignal,
  allowed: (url: string) => boolean,
): Promise<Map<string, ResolvedImage>> {
  const out = new Map<string, ResolvedImage>();
  for (const [i, message] of messages.entries()) {
    if (!Array.isArray(message.content)) continue;
    for (const [j, part] of message.content.entries()) {
      if (part.type !== 'image_url' || out.has(part.image_url.url)) continue;
      const param = `messages[${i}].content[${j}].image_url.url`;
      const url = part.image_url.url;
      const shown = url.startsWith('data:') ? 'the data: URL' : url;
      if (!allowed(url)) throw imageRefused(shown, param);
      let blob: Blob;
      let size: ImageSize;
      try {
        blob = await reader.fetch(url, signal);
      } catch (err) {
        if (signal.aborted) throw err;
        throw new ApiError('invalid_value', `Could not fetch the image at ${shown} ('${param}'): the request failed or no image was returned.`, { param });
      }
      const type = blob.type.split(';')[0]?.trim() ?? '';
      try {
        size = await reader.size(blob);
      } catch (err) {
        throw new ApiError(
          'invalid_value',
          `The data at '${param}' is not an image the browser can decode${type ? ` (${type})` : ''}: ${err instanceof Error ? err.message : String(err)}.`,
          { param },
        );
      }
      out.set(url, { ...size, dataUrl: await toDataUrl(blob, type.startsWith('image/') ? type : 'image/png') });
    }
  }
  return out;
}
