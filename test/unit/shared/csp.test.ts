import { describe, expect, it } from 'vitest';
import { engineWorkerCsp, imageUrlAllowed, modelHostSources } from '#shared/csp';

const origin = 'https://app.example';
const none = { modelBaseUrl: '', modelLibBaseUrl: '', ggufBaseUrl: '' };

describe('the hosts the engine may reach', () => {
  it("defaults to web-llm's and Hugging Face's hosts; configured hosts replace them; the origin is 'self'", () => {
    expect(modelHostSources(none, origin)).toEqual([
      'https://huggingface.co',
      'https://*.huggingface.co',
      'https://*.hf.co',
      'https://raw.githubusercontent.com',
    ]);
    const own = { modelBaseUrl: '/models', modelLibBaseUrl: 'https://cdn.example:8443/libs', ggufBaseUrl: 'https://gguf.example/g' };
    expect(modelHostSources(own, origin)).toEqual(['https://cdn.example:8443', 'https://gguf.example']);
    expect(engineWorkerCsp(own, origin)).toBe(
      "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; connect-src 'self' data: blob: https://cdn.example:8443 https://gguf.example",
    );
  });

  it('image URLs: data:, blob: and http(s) of the origin, the model hosts; nothing else', () => {
    for (const url of ['data:image/png;base64,AA', 'blob:https://app.example/x', 'https://app.example/a.png', 'https://cdn-lfs.hf.co/a.png']) {
      expect(imageUrlAllowed(url, none, origin), url).toBe(true);
    }
    for (const url of [
      'blob:https://evil.example/x',
      'http://127.0.0.2:4795/a',
      'https://hf.co.evil.example/a',
      'https://x.hf.co:444/a',
      'javascript:alert(1)',
      'not a url',
    ]) {
      expect(imageUrlAllowed(url, none, origin), url).toBe(false);
    }
  });
});
