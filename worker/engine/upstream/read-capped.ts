// Reading an upstream's body under its bounds (src/shared/upstreams.ts `UPSTREAM_BOUNDS`, docs/hybrid.md "Bounds"): any
// body but an SSE stream (that one: src/shared/protocol/sse-reader.ts `readSseData`) is read with a cap rather than
// whole, giving the engine worker's thread back between pieces while it floods in.
import { concatBytes } from '#shared/bytes';
import { overBound, yieldToLoop, YIELD_EVERY } from '#shared/protocol/sse-reader';

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
        if (over === 'refuse') throw overBound(who, 'a body', limit, field);
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
  return new TextDecoder().decode(concatBytes(parts, size));
}
