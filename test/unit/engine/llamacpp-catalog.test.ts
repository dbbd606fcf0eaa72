// The llama.cpp engine and the deployment's catalog, around a fake wllama: a GGUF configured by URL is what it
// loads (a split model by its first part, its projector, the configured context); svc-vision's default thinks and
// cannot have its thinking switched off; a variant the deployment ties to web-llm is unavailable here, and says why.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, type InpageConfig } from '#shared/config';
import { buildCatalog, DEFAULT_CATALOG } from '#shared/model-config';
import { ApiError } from '#shared/protocol/errors';
import { validateChatRequest } from '#shared/protocol/validate';
import { LlamaCppEngine } from '../../../worker/engine/llamacpp/engine';
import { llamaOnWebGpu } from '../../../worker/engine/llamacpp/descriptor';
import { fakeWllama, llamaEngineWith } from '../fakes/wllama-fake';
import { withPlan } from '../../../worker/engine/common/plan';

function engineWith(models: InpageConfig['models'], loads: { url: string; mmprojUrl?: string; n_ctx: number }[], calls: Record<string, unknown>[] = []) {
  return llamaEngineWith(models, fakeWllama({ loads, calls }));
}

/** A request as the service worker checks it against `catalog` (the deployment's, as the engine's port offer brings it). */
const ask = (model: string, extra: Record<string, unknown> = {}, catalog = DEFAULT_CATALOG) =>
  withPlan(validateChatRequest({ model, messages: [{ role: 'user', content: 'hi' }], ...extra }, catalog));

async function drain(engine: LlamaCppEngine, model: string, extra: Record<string, unknown> = {}, catalog = DEFAULT_CATALOG) {
  const generation = await engine.generate(ask(model, extra, catalog), new AbortController().signal);
  for await (const _ of generation.events) void _;
  return generation;
}

describe('the llama.cpp engine and the models setting', () => {
  it('loads a configured GGUF by URL (resolved against the origin, a split model by its first part) with the configured context', async () => {
    const loads: { url: string; mmprojUrl?: string; n_ctx: number }[] = [];
    const models = {
      'svc-model-5.2-short': { engine: 'llamacpp', gguf: '/g/own-Q8_0.gguf', context: 2048 },
      team: { engine: 'llamacpp', gguf: ['https://files.example/t-00001-of-00002.gguf', 'https://files.example/t-00002-of-00002.gguf'] },
    };
    const catalog = buildCatalog(models);
    const engine = engineWith(models, loads);
    await engine.ready();
    expect(engine.status().find((s) => s.id === 'svc-model-5.2-short')).toMatchObject({
      context_length: 2048,
      modelId: 'own-Q8_0.gguf',
      state: 'not_downloaded',
    });
    const short = await drain(engine, 'svc-model-5.2-short', {}, catalog);
    expect(short.fingerprint).toBe('fp_llamacpp_gguf:own-Q8_0');
    await drain(engine, 'team', {}, catalog);
    expect(loads).toEqual([
      { url: 'https://app.example/g/own-Q8_0.gguf', n_ctx: 2048 },
      { url: 'https://files.example/t-00001-of-00002.gguf', n_ctx: 4096 },
    ]);
  });

  it("svc-vision's default (a Thinking model) thinks here: status says so, the template is asked to think, 'none' is refused", async () => {
    const calls: Record<string, unknown>[] = [];
    const engine = engineWith({}, [], calls);
    await engine.ready();
    expect(engine.status().find((s) => s.id === 'svc-vision')).toMatchObject({ thinks: true });
    expect(engine.status().find((s) => s.id === 'svc-model-5.2-fast')!.thinks).toBeUndefined();
    await drain(engine, 'svc-vision');
    expect(calls[0]!.chat_template_kwargs).toEqual({ enable_thinking: true });
    let error: unknown;
    try {
      engine.supports(ask('svc-vision', { reasoning_effort: 'none' }));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'unsupported_parameter', param: 'reasoning_effort' });
    expect((error as ApiError).message).toContain('Qwen3VL-2B-Thinking-Q4_K_M.gguf, a model that always thinks');
  });

  it('a variant tied to web-llm: unavailable here with the reason, its requests 503, while its weight-sharing partner runs', async () => {
    const loads: { url: string; n_ctx: number }[] = [];
    const models = { 'svc-model-5.2': { engine: 'webllm' } };
    const catalog = buildCatalog(models);
    const engine = engineWith(models, loads);
    await engine.ready();
    const tied = engine.status().find((s) => s.id === 'svc-model-5.2')!;
    expect(tied).toMatchObject({ state: 'unavailable' });
    expect(tied.error).toContain("the deployment's models setting ties it to web-llm");
    const err = await engine.generate(ask('svc-model-5.2', {}, catalog), new AbortController().signal).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'webgpu_unavailable' });
    await drain(engine, 'svc-model-5.2-fast', {}, catalog);
    expect(loads.map((l) => l.url.split('/').pop())).toEqual(['Qwen3-8B-Q4_K_M.gguf']);
    expect(engine.status().find((s) => s.id === 'svc-model-5.2-fast')!.state).toBe('ready');
  });
});

describe('where llama.cpp runs: WebGPU with shader-f16, else the CPU', () => {
  it('offloads every layer to WebGPU when the adapter has shader-f16, and none otherwise', async () => {
    for (const gpu of [true, false, undefined]) {
      const params: Record<string, unknown>[] = [];
      const wllama = {
        async loadModelFromUrl(_source: unknown, p: Record<string, unknown>) {
          params.push(p);
        },
        getLoadedContextInfo: () => ({ n_ctx: 4096, n_ctx_train: 4096, success: true }),
        getNumThreads: () => 1,
        exit: async () => undefined,
      };
      const engine = new LlamaCppEngine(DEFAULT_CONFIG, {
        create: () => wllama,
        cache: { list: async () => [], remove: async () => undefined },
        threads: 1,
        ...(gpu === undefined ? {} : { gpu }),
        memoryBudgetBytes: 0,
        origin: 'https://app.example',
        reason: 'test',
      } as unknown as ConstructorParameters<typeof LlamaCppEngine>[1]);
      await engine.load('svc-model-5.2-short');
      expect(params[0]!.n_gpu_layers).toBe(gpu ? 99999 : 0);
      expect(engine.device()).toBe(gpu ? 'webgpu' : 'cpu');
    }
  });

  it('the policy: llama.cpp takes the GPU where the adapter has shader-f16, whether or not web-llm could', () => {
    const report = (shaderF16: boolean, available: boolean) => ({ report: { available, shaderF16, features: shaderF16 ? ['shader-f16'] : [] } });
    expect(llamaOnWebGpu(report(true, false))).toBe(true);
    expect(llamaOnWebGpu(report(true, true))).toBe(true);
    expect(llamaOnWebGpu(report(false, true))).toBe(false);
    expect(llamaOnWebGpu(report(false, false))).toBe(false);
  });
});
