// Reading a /v1 request's body: JSON only, at most MAX_BODY_BYTES, in every browser.
import { ApiError } from '#shared/protocol/errors';
import { concatBytes } from '#shared/bytes';
import { assertJsonDepth } from './json-depth';

/** The largest request body taken (413 `request_too_large` beyond it). */
export const MAX_BODY_BYTES = 20 * 1024 * 1024;

const tooLarge = () => new ApiError('request_too_large', `The request body is larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB.`);

/**
 * The body as text, read once: 413 as soon as it passes MAX_BODY_BYTES (the rest is never held where the
 * browser gives the request a body stream). A page's `fetch` reaches the service worker without a
 * Content-Length, so the body is counted as it is read.
 */
async function readLimitedText(raw: Request): Promise<string> {
  const length = raw.headers.get('content-length');
  if (length !== null && !raw.headers.has('transfer-encoding') && Number(length) > MAX_BODY_BYTES) throw tooLarge();
  // Firefox gives a fetch event's request no `body` stream (Request.body is not implemented there): read it as
  // a Blob, which every browser has, and check its size before it is decoded.
  const body = (raw as { body?: ReadableStream<Uint8Array> | null }).body;
  if (!body) {
    const blob = await raw.blob();
    if (blob.size > MAX_BODY_BYTES) throw tooLarge();
    return blob.text();
  }
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      void reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    parts.push(value);
  }
  return decoder.decode(concatBytes(parts, size));
}

const decoder = new TextDecoder();

/** The body of a POST as parsed JSON: 400 unless it is sent as `application/json` and parses; 413 over the limit. */
export async function readJsonBody(raw: Request): Promise<unknown> {
  const type = raw.headers.get('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type.trim())) {
    throw new ApiError('invalid_content_type', `Unsupported content type '${type || '(none)'}': send the body as JSON with 'Content-Type: application/json'.`);
  }
  const text = await readLimitedText(raw);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new ApiError('invalid_json', `The request body is not valid JSON: ${why}`);
  }
  // Before anything walks or clones it.
  assertJsonDepth(body);
  return body;
}
