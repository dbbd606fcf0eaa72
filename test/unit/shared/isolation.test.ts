// The isolation headers the service worker puts on the app's documents and worker scripts (src/shared/isolation.ts), and
// the require-corp variant a deployment's server may send instead (the service worker still puts credentialless).
import { describe, expect, test } from 'vitest';
import { isolated, isolationHeaders } from '#shared/isolation';

describe('isolation headers', () => {
  test('a response without them gets COOP same-origin and COEP credentialless', () => {
    const out = isolated(new Response('<!doctype html>', { headers: { 'content-type': 'text/html' } }));
    expect(Object.fromEntries(out.headers)).toEqual({
      'content-type': 'text/html',
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-embedder-policy': 'credentialless',
    });
  });

  test('the require-corp variant a server sends; the service worker puts credentialless over it', () => {
    expect(isolationHeaders('require-corp')).toEqual({ 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' });
    const out = isolated(new Response('<!doctype html>', { headers: isolationHeaders('require-corp') }));
    expect(out.headers.get('cross-origin-embedder-policy')).toBe('credentialless');
  });
});
