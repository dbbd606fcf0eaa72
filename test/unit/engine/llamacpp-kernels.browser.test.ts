// llama.cpp's wasm with the SIMD kernels spliced in (scripts/wasm-kernels), whole, in Chromium: on synthesized
// Q4_K, Q8_0 and Q4_0 models every variant (relaxed, SIMD128, and wllama's own generic wasm) of both of wllama's
// builds (main: 64-bit memory; compat, which Safari runs: 32-bit, Asyncify; wllama runs it in Chromium when told to)
// answers two prompts greedily with the very text native llama.cpp gives on the same file (nativeGreedy, a vitest
// command run in Node): one of an even token count, whose prefill runs the kernels' 2×2 tiles, one of an odd count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from 'vitest/browser';
import { Wllama } from '@wllama/wllama';
import { DEFAULT_CONFIG } from '#shared/config';
import { synthesizeGguf, type SynthOptions } from '../../../scripts/gguf/synthesize';
import type { WasmBuild } from '#shared/wire/engine-port';
import { llamaCppDeps } from '../../../worker/engine/llamacpp';
import { compatFiles } from '../../../worker/engine/llamacpp/wasm-build';
import { WASM_COMPAT_URLS } from '../../../worker/engine/llamacpp/wasm-compat-files';
import { WASM_URLS, type WasmVariant } from '../../../worker/engine/llamacpp/wasm-variants';

const BASE = `${location.origin}/__kernels-gguf`;
const MODELS: Record<string, SynthOptions> = {
  q4_k: { seed: 7, type: 'q4_k', embedding: 256 },
  q8_0: { seed: 7, type: 'q8_0' },
  q4_0: { seed: 7, type: 'q4_0' },
  // As people run models: Q4_K_M's mix (output layer, attn_v and ffn_down Q6_K here), grouped-query attention, and
  // an output layer wider than the synthesized vocabulary.
  q4_k_m: { seed: 7, type: 'q4_k', mix: 'q4_k_m', embedding: 256, heads: 4, kvHeads: 2, vocabSize: 1024 },
};
/**
 * Three prompts and their tokens in the synthesized vocabulary. ggml's mul_mat hands the kernels 2×2 tiles in each
 * chunk of 16 columns (tokens) whose rows and columns are even; the splice lets an odd token count have them too
 * (splice.mjs, oddColumnTiles), where ggml's own test gave them up for the whole product. So the even prompt's
 * prefill runs all in tiles, the long odd one's in tiles but for its last, odd chunk of columns, and the short odd
 * one's (one odd chunk) a product at a time; the answer's tokens (one at a time) run the single products either way.
 */
const PROMPTS = [
  { prefill: 'in 2×2 tiles', tokens: 14, text: '<|im_start|>user\nHello the big world<|im_end|>\n<|im_start|>assistant\n' },
  {
    prefill: 'in 2×2 tiles but its last chunk',
    tokens: 33,
    text: '<|im_start|>user\nHello the big world and the big sun and the big sea and the world<|im_end|>\n<|im_start|>assistant\n',
  },
  { prefill: 'a product at a time', tokens: 11, text: '<|im_start|>user\nHello the world<|im_end|>\n<|im_start|>assistant\n' },
];
const TOKENS = 24;
const VARIANTS: WasmVariant[] = ['relaxed', 'simd128', 'generic'];
const BUILDS: Record<WasmBuild, Record<WasmVariant, string>> = { main: WASM_URLS, compat: WASM_COMPAT_URLS };
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

/** What wllama hands its worker (its getWorkerResources()): the wasm's URL, and whether it runs the compat build. */
interface WorkerResources {
  wasmPath: string;
  compat: boolean;
}

/**
 * wllama runs its compat build only where the page lacks JSPI or Memory64 (its needCompat(), read in the page when
 * the model loads); Chromium has both, so WebAssembly.Suspending is hidden from the page while the compat build
 * loads (its worker is another realm, untouched).
 */
async function withoutJspi<T>(run: () => Promise<T>): Promise<T> {
  const suspending = Object.getOwnPropertyDescriptor(WebAssembly, 'Suspending')!;
  delete (WebAssembly as { Suspending?: unknown }).Suspending;
  try {
    return await run();
  } finally {
    Object.defineProperty(WebAssembly, 'Suspending', suspending);
  }
}

/** The prompt's token counts, as wllama's answers give them. */
const promptTokens: number[] = [];

async function wasmGreedy(model: string, build: WasmBuild, variant: WasmVariant, prompt: string): Promise<string> {
  const deps = llamaCppDeps(config, 'kernel test', false, variant, build);
  expect({ build: deps.wasm?.build, variant: deps.wasm?.variant }).toEqual({ build, variant });
  const wllama = deps.create();
  const handed: WorkerResources[] = [];
  const own = wllama as unknown as { getWorkerResources(): WorkerResources };
  const resources = own.getWorkerResources.bind(own);
  own.getWorkerResources = () => {
    const chosen = resources();
    handed.push(chosen);
    return chosen;
  };
  try {
    const load = () => wllama.loadModelFromUrl({ url: `${BASE}/${model}.gguf` }, { n_ctx: 256, n_threads: 1, n_gpu_layers: 0, useCache: true });
    await (build === 'compat' ? withoutJspi(load) : load());
    // wllama's worker was handed this build's file of this variant.
    expect(handed.map((r) => ({ wasm: r.wasmPath, compat: r.compat }))).toEqual([
      { wasm: new URL(BUILDS[build][variant], location.href).href, compat: build === 'compat' },
    ]);
    const done = await (
      wllama as unknown as { createCompletion(o: object): Promise<{ choices: { text: string }[]; usage: { prompt_tokens: number } }> }
    ).createCompletion({
      prompt,
      max_tokens: TOKENS,
      temperature: 0,
    });
    promptTokens.push(done.usage.prompt_tokens);
    return done.choices[0]!.text;
  } finally {
    await wllama.exit().catch(() => undefined);
  }
}

/**
 * The mean of a prompt's hidden states on the Q4_K model (llama.cpp's embedding, mean pooling), by the main build's
 * relaxed wasm or another file of it. Mean pooling takes every token's column, so it shows a wrong product in any
 * column, where an answer shows mostly the last token's (the synthesized model's attention is faint).
 */
async function meanState(wasm: string, text: string): Promise<number[]> {
  const wllama = new Wllama({ default: wasm }, { suppressNativeLog: true, allowOffline: true });
  try {
    await wllama.loadModelFromUrl({ url: `${BASE}/q4_k.gguf` }, {
      n_ctx: 256,
      n_threads: 1,
      n_gpu_layers: 0,
      useCache: false,
      embeddings: true,
      pooling_type: 'mean',
    } as object);
    const done = await (wllama as unknown as { createEmbedding(o: object): Promise<{ data: { embedding: number[] }[] }> }).createEmbedding({ input: text });
    return done.data[0]!.embedding;
  } finally {
    await wllama.exit().catch(() => undefined);
  }
}

describe('llama.cpp wasm variants against native llama.cpp', () => {
  it('a deliberately broken Q4_K tile changes every prompt whose prefill runs tiles (the odd count of 33 too), and not the one whose prefill runs none', async () => {
    const bytes = Uint8Array.from(atob(await commands.brokenTile()), (c) => c.charCodeAt(0));
    const broken = URL.createObjectURL(new Blob([bytes], { type: 'application/wasm' }));
    try {
      const apart: Record<string, number> = {};
      for (const prompt of PROMPTS) {
        const [good, bad] = [await meanState(WASM_URLS.relaxed, prompt.text), await meanState(broken, prompt.text)];
        expect(good.length).toBe(MODELS.q4_k!.embedding);
        apart[prompt.prefill] = Math.max(...good.map((x, i) => Math.abs(x - bad[i]!)));
      }
      // Without tiles the two files differ only in how the single products round (wllama's generic body beside the
      // relaxed kernel): 2e-8 when measured. A tile's three unwritten products move the mean by 0.5 or so.
      expect(apart['a product at a time']).toBeLessThan(1e-4);
      expect(apart['in 2×2 tiles']).toBeGreaterThan(0.05);
      expect(apart['in 2×2 tiles but its last chunk']).toBeGreaterThan(0.05);
    } finally {
      URL.revokeObjectURL(broken);
    }
  }, 360_000);

  for (const [build, urls] of Object.entries(BUILDS)) {
    it(`${build} build: the three variants are three different files, the spliced ones as large as wllama\u2019s give or take the kernels`, async () => {
      const sizes = await Promise.all(VARIANTS.map(async (v) => (await (await realFetch(urls[v])).arrayBuffer()).byteLength));
      expect(new Set(VARIANTS.map((v) => urls[v])).size).toBe(3);
      expect(new Set(sizes).size).toBe(3);
      for (const size of sizes) expect(Math.abs(size - sizes[2]!)).toBeLessThan(16_384);
    });
  }

  it('the compat build is handed the wasm of the variant chosen, with its worker script', async () => {
    for (const variant of VARIANTS) {
      const files = await compatFiles(variant);
      expect(files.wasm).toBe(WASM_COMPAT_URLS[variant]);
      // wllama-compat's Emscripten glue (the script wllama runs its worker from).
      expect(files.worker.code).toMatch(/^var Module=typeof Module!="undefined"\?Module:\{\};/);
    }
    expect(new Set([...VARIANTS.map((v) => WASM_URLS[v]), ...VARIANTS.map((v) => WASM_COMPAT_URLS[v])]).size).toBe(6);
  });

  for (const model of Object.keys(MODELS))
    for (const prompt of PROMPTS)
      it(`${model}: every variant answers greedily as native llama.cpp does (${prompt.tokens}-token prompt: prefill ${prompt.prefill})`, async () => {
        promptTokens.splice(0);
        const native = await commands.nativeGreedy({ model: MODELS[model]!, prompt: prompt.text, tokens: TOKENS });
        // The synthesized model's designed start (synthesize.ts), so the comparison is of a real answer.
        expect(native.startsWith('<think> Let me think.</think> The')).toBe(true);
        const answers: Record<string, string> = {};
        for (const build of Object.keys(BUILDS) as WasmBuild[])
          for (const variant of VARIANTS) answers[`${build} ${variant}`] = await wasmGreedy(model, build, variant, prompt.text);
        expect(answers).toEqual(Object.fromEntries(Object.keys(answers).map((k) => [k, native])));
        expect(Object.keys(answers).length).toBe(6);
        expect(promptTokens.splice(0)).toEqual(Array(6).fill(prompt.tokens));
      }, 360_000);
});
