// Why an engine worker did not start: its script's own error, or the server's answer for a script that would not load.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ENGINE_WORKER_URL, engineStartError } from '../../../src/page/engine-host';

afterEach(() => {
  vi.unstubAllGlobals();
});

const answer = (res: Response | Error) =>
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => (res instanceof Error ? Promise.reject(res) : res)),
  );

describe('engineStartError', () => {
  it("names the script and the server's refusal, which lasts (no retry)", async () => {
    answer(new Response('nope', { status: 404, statusText: 'Not Found' }));
    const err = await engineStartError(new Event('error'), 'https://x.example/app/inpage-engine-worker-AbC.js');
    expect([err.lasting, err.message]).toEqual([
      true,
      "The engine worker failed to start: its script https://x.example/app/inpage-engine-worker-AbC.js could not be loaded (HTTP 404 Not Found); check that inpage's files (inpage-*.js) are all deployed beside inpage.js, and served as JavaScript.",
    ]);
  });

  it('takes a fallback page (not JavaScript) as a refusal, and a network failure as passing', async () => {
    answer(new Response('<!doctype html>', { headers: { 'content-type': 'text/html' } }));
    const html = await engineStartError(new Event('error'));
    expect(html.lasting).toBe(true);
    expect(html.message).toContain(`its script ${ENGINE_WORKER_URL} could not be loaded (served as text/html, not JavaScript)`);
    answer(new TypeError('Failed to fetch'));
    const offline = await engineStartError(new Event('error'));
    expect(offline.lasting).toBe(false);
    expect(offline.message).toContain('could not be loaded (the network refused it)');
  });

  it('passes on the error of a script that loaded and threw', async () => {
    const err = await engineStartError(new ErrorEvent('error', { message: 'Uncaught SyntaxError: bad' }), 'https://x.example/w.js');
    expect([err.lasting, err.message]).toEqual([false, 'The engine worker failed to start: Uncaught SyntaxError: bad (https://x.example/w.js).']);
  });
});
