// The headers a server sends for the model provider's page and its engine worker (src/provider/headers.ts,
// docs/shared-models.md): require-corp isolation, and the engine worker's policy without upstreams.
import { describe, expect, it } from 'vitest';
import { providerHeaders } from '../../../src/provider/headers';

const ORIGIN = 'https://models.example';
const DEPLOYED = { ggufBaseUrl: 'https://files.example/gguf', upstreams: { gpu: { url: 'https://gpu.example/v1' } } };

describe("the provider's headers", () => {
  it('provider.html: require-corp and cross-origin resource policy', () => {
    expect(providerHeaders({ path: '/provider.html', dest: 'iframe' }, DEPLOYED, ORIGIN)).toEqual({
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Cross-Origin-Resource-Policy': 'cross-origin',
    });
  });

  it("its engine worker: the same, and the engine worker's policy naming the model hosts, never an upstream", () => {
    const headers = providerHeaders({ path: '/assets/engine-worker-abc.js', dest: 'worker', referrer: `${ORIGIN}/provider.html` }, DEPLOYED, ORIGIN);
    expect(headers['Cross-Origin-Embedder-Policy']).toBe('require-corp');
    expect(headers['Content-Security-Policy']).toBe(
      "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; connect-src 'self' data: blob: https://huggingface.co https://*.huggingface.co https://*.hf.co https://raw.githubusercontent.com https://files.example",
    );
    expect(headers['Content-Security-Policy']).not.toContain('gpu.example');
  });

  it("nothing for the app's own requests: its page, its scripts, a worker the app starts, another site's referrer", () => {
    for (const request of [
      { path: '/index.html', dest: 'document' },
      { path: '/assets/index-abc.js', dest: 'script', referrer: `${ORIGIN}/provider.html` },
      { path: '/assets/engine-worker-abc.js', dest: 'worker', referrer: `${ORIGIN}/` },
      { path: '/assets/engine-worker-abc.js', dest: 'worker', referrer: 'https://other.example/provider.html' },
      { path: '/assets/engine-worker-abc.js', dest: 'worker' },
    ]) {
      expect(providerHeaders(request, DEPLOYED, ORIGIN), JSON.stringify(request)).toEqual({});
    }
  });
});
