// Reading an upstream's body under its bounds (src/shared/upstreams.ts `UPSTREAM_BOUNDS`, docs/hybrid.md "Bounds"): the SSE
// stream event by event, each byte looked at once (a line is found by searching forward from where the last search
// stopped, never by rescanning what is held), and any other body read with a cap rather than whole. A flood gives the
// engine worker's thread back between pieces, so the other requests it serves (a local one in another tab) go on.
import { ApiError } from '#shared/protocol/errors';
import { formatBytes } from '#shared/bytes';

/** What `sseData` yields when the server said `data: [DONE]` (nothing follows it). */
export const SSE_DONE = '[DONE]';

/** Bytes read between two returns to the event loop while a body floods in. */
const YIELD_EVERY = 1 << 20;
const yieldToLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export interface SseBounds {
  maxEventBytes: number;
  maxAnswerBytes: number;
}

const tooLong = (who: string, what: string, limit: number, field: string) =>
  new ApiError('upstream_error', `The upstream ${who} sent ${what} larger than ${formatBytes(limit)} (its '${field}' bound): the rest was not read.`);

function concat(parts: readonly Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/**
 * The `data:` payloads of an SSE body, in order; `SSE_DONE` when the server sent `data: [DONE]` (then nothing more is
 * read). An event (or a line) over `maxEventBytes`, or a body over `maxAnswerBytes`, is an `upstream_error` the
 * moment it passes the bound; the body is cancelled whenever reading stops early.
 */
export async function* sseData(body: ReadableStream<Uint8Array>, signal: AbortSignal, bounds: SseBounds, who: string): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  /** The line not ended yet: its pieces (a newline is ASCII, so a complete line decodes on its own). */
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  /** The current event's data lines, and their bytes. */
  let data: string[] = [];
  let eventBytes = 0;
  let total = 0;
  let sinceYield = 0;
  /** The last piece ended in `\r`: a `\n` first in the next one belongs to it. */
  let afterCR = false;
  let finished = false;
  const onAbort = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', onAbort, { once: true });

  /** One complete line; returns the payload of an event it completes, if any. */
  const line = (bytes: Uint8Array): string | null => {
    if (bytes.byteLength === 0) {
      if (data.length === 0) return null;
      const payload = data.join('\n');
      data = [];
      eventBytes = 0;
      return payload;
    }
    if (bytes[0] === 0x3a) return null; // ':' a comment (keep-alive)
    const text = decoder.decode(bytes);
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    if (field !== 'data') return null;
    data.push(colon < 0 ? '' : text.slice(colon + 1).replace(/^ /, ''));
    eventBytes += bytes.byteLength;
    return null;
  };
  const emit = (payload: string | null): string | null => (payload === null ? null : payload.trim() === SSE_DONE ? SSE_DONE : payload);

  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.byteLength === 0) continue;
      total += value.byteLength;
      if (total > bounds.maxAnswerBytes) throw tooLong(who, 'an answer', bounds.maxAnswerBytes, 'maxAnswerBytes');
      let start = 0;
      if (afterCR && value[0] === 0x0a) start = 1;
      afterCR = false;
      // The next \n and \r at or after `start`: each search goes forward from where it stopped, once per byte.
      let lf = value.indexOf(0x0a, start);
      let cr = value.indexOf(0x0d, start);
      while (lf >= 0 || cr >= 0) {
        const end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
        const piece = value.subarray(start, end);
        const whole = pendingBytes === 0 ? piece : concat([...pending, piece], pendingBytes + piece.byteLength);
        pending = [];
        pendingBytes = 0;
        if (eventBytes + whole.byteLength > bounds.maxEventBytes) throw tooLong(who, 'a stream event', bounds.maxEventBytes, 'maxEventBytes');
        const payload = emit(line(whole));
        start = end + 1;
        if (end === cr) {
          if (start < value.length && value[start] === 0x0a) start++;
          else if (start === value.length) afterCR = true;
        }
        if (payload === SSE_DONE) {
          yield SSE_DONE;
          return;
        }
        if (payload !== null) yield payload;
        if (lf >= 0 && lf < start) lf = value.indexOf(0x0a, start);
        if (cr >= 0 && cr < start) cr = value.indexOf(0x0d, start);
      }
      if (start < value.length) {
        pending.push(value.subarray(start));
        pendingBytes += value.byteLength - start;
        if (eventBytes + pendingBytes > bounds.maxEventBytes) throw tooLong(who, 'a stream event', bounds.maxEventBytes, 'maxEventBytes');
      }
      sinceYield += value.byteLength;
      if (sinceYield >= YIELD_EVERY) {
        sinceYield = 0;
        await yieldToLoop();
      }
    }
    finished = true;
    // The body ended: a last line without its newline, and an event without its blank line, still count.
    if (pendingBytes > 0) line(concat(pending, pendingBytes));
    const payload = emit(line(new Uint8Array(0)));
    if (payload !== null) yield payload;
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/**
 * A body's text, read up to `limit` bytes. `over: 'cut'` keeps the first `limit` bytes and stops reading (an error
 * body: its start says enough); `over: 'refuse'` is an `upstream_error` naming the bound (`field`).
 */
export async function readCapped(res: Response, limit: number, over: 'cut' | 'refuse', who: string, field: string): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  let sinceYield = 0;
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        break;
      }
      if (size + value.byteLength > limit) {
        if (over === 'refuse') throw tooLong(who, 'a body', limit, field);
        parts.push(value.subarray(0, limit - size));
        size = limit;
        break;
      }
      parts.push(value);
      size += value.byteLength;
      sinceYield += value.byteLength;
      if (sinceYield >= YIELD_EVERY) {
        sinceYield = 0;
        await yieldToLoop();
      }
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
  return new TextDecoder().decode(concat(parts, size));
}
