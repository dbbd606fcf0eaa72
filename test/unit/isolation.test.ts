// The isolation headers the service worker puts on the app's documents and worker scripts (src/isolation.ts): what
// a response lacks is added (COEP credentialless), what the deployment's server sent is kept (require-corp, the
// variant that isolates the page in WebKit).
import { describe, expect, test } from 'vitest';
import { isolated, isolationHeaders } from '../../src/isolation';

describe('isolation headers', () => {
  test('a response without them gets COOP same-origin and COEP credentialless', () => {
    const out = isolated(new Response('<!doctype html>', { headers: { 'content-type': 'text/html' } }));
    expect(Object.fromEntries(out.headers)).toEqual({ 'content-type': 'text/html', 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'credentialless' });
  });

  test("the deployment's require-corp is kept, under the service worker too", () => {
    const out = isolated(new Response('<!doctype html>', { headers: isolationHeaders('require-corp') }));
    expect(out.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
    expect(out.headers.get('cross-origin-opener-policy')).toBe('same-origin');
  });
});
