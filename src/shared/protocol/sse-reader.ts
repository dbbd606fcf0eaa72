// Reading a server-sent-event body event by event, each byte looked at once (a line is found by searching forward
// from where the last search stopped, never by rescanning what is held), under optional bounds: an upstream's stream
// in the engine worker (src/shared/upstreams.ts `UPSTREAM_BOUNDS`, docs/hybrid.md "Bounds"), and the service's own
// streams in the workspace page (src/page/ui/kit/api.ts). A flood gives the thread back between pieces, so the other
// requests it serves (a local one in another tab) go on.
import { ApiError } from './errors';
import { concatBytes, formatBytes } from '../bytes';

/** What `readSseData` yields when the server said `data: [DONE]` (nothing follows it). */
export const SSE_DONE = '[DONE]';

/** Bytes read between two returns to the event loop while a body floods in. */
export const YIELD_EVERY = 1 << 20;
export const yieldToLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export interface SseBounds {
  maxEventBytes: number;
  maxAnswerBytes: number;
}

const UNBOUNDED: SseBounds = { maxEventBytes: Infinity, maxAnswerBytes: Infinity };

export interface SseReadOptions {
  /** Cancels the body when it aborts. */
  signal?: AbortSignal;
  /** The bounds the body is read under; none by default. */
  bounds?: SseBounds;
  /** The sender as a refusal names it: "The upstream <who> sent …". */
  who?: string;
}

/** The refusal of a body or an event over its bound (`field`: the bound's name in the settings). */
export const overBound = (who: string, what: string, limit: number, field: string) =>
  new ApiError('upstream_error', `The upstream ${who} sent ${what} larger than ${formatBytes(limit)} (its '${field}' bound): the rest was not read.`);

/**
 * The `data:` payloads of an SSE body, in order; `SSE_DONE` when the server sent `data: [DONE]` (then nothing more is
 * read). With `bounds`, an event (or a line) over `maxEventBytes`, or a body over `maxAnswerBytes`, is an
 * `upstream_error` naming `who` the moment it passes the bound; the body is cancelled whenever reading stops early
 * (the consumer stops, or `signal` aborts).
 */
export async function* readSseData(body: ReadableStream<Uint8Array>, options: SseReadOptions = {}): AsyncGenerator<string> {
  const { signal, bounds = UNBOUNDED, who = 'server' } = options;
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
  signal?.addEventListener('abort', onAbort, { once: true });

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
      if (total > bounds.maxAnswerBytes) throw overBound(who, 'an answer', bounds.maxAnswerBytes, 'maxAnswerBytes');
      let start = 0;
      if (afterCR && value[0] === 0x0a) start = 1;
      afterCR = false;
      // The next \n and \r at or after `start`: each search goes forward from where it stopped, once per byte.
      let lf = value.indexOf(0x0a, start);
      let cr = value.indexOf(0x0d, start);
      while (lf >= 0 || cr >= 0) {
        const end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
        const piece = value.subarray(start, end);
        const whole = pendingBytes === 0 ? piece : concatBytes([...pending, piece], pendingBytes + piece.byteLength);
        pending = [];
        pendingBytes = 0;
        if (eventBytes + whole.byteLength > bounds.maxEventBytes) throw overBound(who, 'a stream event', bounds.maxEventBytes, 'maxEventBytes');
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
        if (eventBytes + pendingBytes > bounds.maxEventBytes) throw overBound(who, 'a stream event', bounds.maxEventBytes, 'maxEventBytes');
      }
      sinceYield += value.byteLength;
      if (sinceYield >= YIELD_EVERY) {
        sinceYield = 0;
        await yieldToLoop();
      }
    }
    finished = true;
    // The body ended: a last line without its newline, and an event without its blank line, still count.
    if (pendingBytes > 0) line(concatBytes(pending, pendingBytes));
    const payload = emit(line(new Uint8Array(0)));
    if (payload !== null) yield payload;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
