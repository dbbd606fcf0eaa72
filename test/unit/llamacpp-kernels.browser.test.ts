// llama.cpp's wasm with the SIMD kernels spliced in (scripts/wasm-kernels), whole, in Chromium: on synthesized
// Q4_K, Q8_0 and Q4_0 models every variant (relaxed, SIMD128, and wllama's own generic build) answers a prompt
// greedily with the very text native llama.cpp gives on the same file (nativeGreedy, a vitest command run in Node).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from 'vitest/browser';
import { DEFAULT_CONFIG } from '#shared/config';
import { synthesizeGguf, type SynthOptions } from '../../scripts/gguf/synthesize';
import { llamaCppDeps } from '../../worker/engine/llamacpp';
import { WASM_URLS, type WasmVariant } from '../../worker/engine/llamacpp/wasm-variants';

const BASE = `${location.origin}/__kernels-gguf`;
const MODELS: Record<string, SynthOptions> = {
  q4_k: { seed: 7, type: 'q4_k', embedding: 256 },
  q8_0: { seed: 7, type: 'q8_0' },
  q4_0: { seed: 7, type: 'q4_0' },
};
const PROMPT = '<|im_start|>user\nHello the world<|im_end|>\n<|im_start|>assistant\n';
const TOKENS = 24;
const VARIANTS: WasmVariant[] = ['relaxed', 'simd128', 'generic'];
const realFetch = globalThis.fetch;

beforeAll(async () => {
  const files = new Map(Object.entries(MODELS).map(([name, options]) => [`${BASE}/${name}.gguf`, synthesizeGguf(options).bytes]));
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith(BASE)) return realFetch(input, init);
    const bytes = files.get(url.split('?')[0]!);
    if (!bytes) return new Response('not here', { status: 404 });
    const headers = { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) };
    return new Response(init?.method === 'HEAD' ? null : bytes.slice(), { headers });
  };
});
afterAll(() => {
  globalThis.fetch = realFetch;
});

// One thread: this page is not cross-origin isolated (as in llamacpp-contract.browser.test.ts).
const config = { ...DEFAULT_CONFIG, llamaThreads: 1 };

async function wasmGreedy(model: string, variant: WasmVariant): Promise<string> {
  const wllama = llamaCppDeps(config, 'kernel test', false, variant).create();
  try {
    await wllama.loadModelFromUrl({ url: `${BASE}/${model}.gguf` }, { n_ctx: 256, n_threads: 1, n_gpu_layers: 0, useCache: true });
    const done = (await (wllama as unknown as { createCompletion(o: object): Promise<{ choices: { text: string }[] }> }).createCompletion({
      prompt: PROMPT,
      max_tokens: TOKENS,
      temperature: 0,
    }));
    return done.choices[0]!.text;
  } finally {
    await wllama.exit().catch(() => undefined);
  }
}

describe('llama.cpp wasm variants against native llama.cpp', () => {
  it('the three variants are three different files, the spliced ones as large as wllama\u2019s give or take the kernels', async () => {
    const sizes = await Promise.all(VARIANTS.map(async (v) => (await (await realFetch(WASM_URLS[v])).arrayBuffer()).byteLength));
    expect(new Set(VARIANTS.map((v) => WASM_URLS[v])).size).toBe(3);
    expect(new Set(sizes).size).toBe(3);
    for (const size of sizes) expect(Math.abs(size - sizes[2]!)).toBeLessThan(16_384);
  });

  for (const model of Object.keys(MODELS)) {
    it(`${model}: every variant answers greedily as native llama.cpp does`, async () => {
      const native = await commands.nativeGreedy({ model: MODELS[model]!, prompt: PROMPT, tokens: TOKENS });
      // The synthesized model's designed start (synthesize.ts), so the comparison is of a real answer.
      expect(native.startsWith('<think> Let me think.</think> The')).toBe(true);
      const answers: Record<string, string> = {};
      for (const variant of VARIANTS) answers[variant] = await wasmGreedy(model, variant);
      expect(answers).toEqual({ relaxed: native, simd128: native, generic: native });
    }, 180_000);
  }
});
