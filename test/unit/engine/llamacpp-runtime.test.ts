// llama.cpp's runtime details travel under its own key (`runtime.llamacpp`, src/shared/wire/engine-port.ts), and
// /v1/models shows them flat in its `engine` object, as the API documents (docs/api.md, docs/engines.md).
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '#shared/config';
import { ENGINE_KIND_SPECS } from '#shared/engine-kinds/specs';
import { LlamaCppEngine } from '../../../worker/engine/llamacpp/engine';
import { engineObject } from '../../../worker/sw/models/route';

const wasm = { build: 'compat', buildWhy: 'compat: why', threadsWhy: 'one thread: why', variant: 'simd128', variantWhy: 'simd128: why' } as const;
const storage = { store: 'cache-storage', why: 'Cache Storage: why' } as const;

function engine(withDetails: boolean): LlamaCppEngine {
  return new LlamaCppEngine(DEFAULT_CONFIG, {
    create: () => ({}),
    cache: { list: async () => [], remove: async () => undefined, ...(withDetails ? { store: async () => storage } : {}) },
    threads: 3,
    ...(withDetails ? { wasm } : {}),
    memoryBudgetBytes: 0,
    origin: 'https://app.example',
    reason: 'test',
  } as unknown as ConstructorParameters<typeof LlamaCppEngine>[1]);
}

describe("llama.cpp's runtime, under its own key", () => {
  it('the engine says its threads, build, kernels and store (each with why) under runtime.llamacpp', async () => {
    const llama = engine(true);
    await llama.ready();
    expect(llama.runtime()).toEqual({
      engine: 'llamacpp',
      device: 'cpu',
      llamacpp: { threads: 3, threadsWhy: 'one thread: why', build: 'compat', buildWhy: 'compat: why', wasm: 'simd128', wasmWhy: 'simd128: why', storage },
    });
  });

  it("/v1/models' engine object shows them flat, as before", async () => {
    const llama = engine(true);
    await llama.ready();
    expect(engineObject(llama.runtime())).toEqual({
      name: 'llamacpp',
      device: 'cpu',
      threads: 3,
      threads_why: 'one thread: why',
      build: 'compat',
      build_why: 'compat: why',
      wasm: 'simd128',
      wasm_why: 'simd128: why',
      storage,
    });
  });

  it('an engine that says nothing more has nothing more in /v1/models', async () => {
    const llama = engine(false);
    await llama.ready();
    expect(engineObject(llama.runtime())).toEqual({ name: 'llamacpp', device: 'cpu', threads: 3 });
    expect(engineObject({ engine: 'webllm', device: 'webgpu' })).toEqual({ name: 'webllm', device: 'webgpu' });
  });

  it("the Models area's words for where it runs read the threads from under the key (each kind's runtimeText)", () => {
    // Node has no crossOriginIsolated: the words say the page is not isolated.
    const { llamacpp, webllm } = ENGINE_KIND_SPECS;
    expect(llamacpp.runtimeText({ engine: 'llamacpp', device: 'cpu', llamacpp: { threads: 2 } })).toBe(
      'llama.cpp on the CPU, 2 threads (the page is not cross-origin isolated)',
    );
    expect(llamacpp.runtimeText({ engine: 'llamacpp', device: 'webgpu' })).toBe(
      'llama.cpp on the GPU (WebGPU), 1 thread (the page is not cross-origin isolated)',
    );
    expect(webllm.runtimeText({ engine: 'webllm', device: 'webgpu' })).toBe('web-llm on WebGPU');
  });
});
