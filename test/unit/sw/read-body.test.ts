import { describe, expect, it } from 'vitest';
import { ApiError } from '#shared/protocol/errors';
import { MAX_BODY_BYTES, readJsonBody } from '../../../worker/sw/body';

/** A POST whose body arrives in `chunks` (as a page's fetch reaches the service worker: no Content-Length). */
function post(chunks: Uint8Array[], headers: Record<string, string> = { 'content-type': 'application/json' }): { request: Request; pulled: () => number } {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[pulled++];
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
  const request = new Request('http://127.0.0.1/v1/chat/completions', { method: 'POST', headers, body, duplex: 'half' } as RequestInit);
  return { request, pulled: () => pulled };
}

const code = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'none';
  } catch (err) {
    return err instanceof ApiError ? `${err.status} ${err.code}` : String(err);
  }
};

describe('readJsonBody', () => {
  it('reads a body that comes in pieces, a character split between two of them included', async () => {
    const bytes = new TextEncoder().encode(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'héllo ✓' }] }));
    const cut = bytes.indexOf(0xc3) + 1; // inside the two bytes of é
    const { request } = post([bytes.slice(0, cut), bytes.slice(cut, cut + 7), bytes.slice(cut + 7)]);
    expect(await readJsonBody(request)).toEqual({ model: 'm', messages: [{ role: 'user', content: 'héllo ✓' }] });
  });

  it('refuses a body over the limit with 413 as soon as it is passed, without reading the rest', async () => {
    const piece = new Uint8Array(4 * 1024 * 1024).fill(0x20);
    const chunks = Array.from({ length: 10 }, () => piece); // 40 MiB
    const { request, pulled } = post(chunks);
    expect(await code(readJsonBody(request))).toBe('413 request_too_large');
    expect(pulled()).toBeLessThanOrEqual(Math.ceil(MAX_BODY_BYTES / piece.length) + 2);
    // A declared Content-Length over the limit is refused before reading.
    const declared = post([piece], { 'content-type': 'application/json', 'content-length': String(MAX_BODY_BYTES + 1) });
    expect(await code(readJsonBody(declared.request))).toBe('413 request_too_large');
    expect(declared.pulled()).toBeLessThanOrEqual(1);
  });

  it('still answers 400 for the wrong content type and for JSON that does not parse', async () => {
    expect(await code(readJsonBody(post([new TextEncoder().encode('{}')], { 'content-type': 'text/plain' }).request))).toBe('400 invalid_content_type');
    expect(await code(readJsonBody(post([new TextEncoder().encode('{"a":')]).request))).toBe('400 invalid_json');
  });

  // Firefox gives a fetch event's request no `body` stream; the body is there all the same, through blob().
  const withoutStream = (text: string) => {
    const request = new Request('http://127.0.0.1/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
    Object.defineProperty(request, 'body', { value: undefined });
    return request;
  };

  it('reads the body of a request that has no body stream (Firefox), and still refuses one over the limit', async () => {
    expect(await readJsonBody(withoutStream(JSON.stringify({ model: 'm', n: 'héllo ✓' })))).toEqual({ model: 'm', n: 'héllo ✓' });
    expect(await code(readJsonBody(withoutStream(' '.repeat(MAX_BODY_BYTES + 1))))).toBe('413 request_too_large');
  });
});
