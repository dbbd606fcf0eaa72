// Every `unavailable` says why: the one rule (src/shared/unavailable-why.ts) that /v1/models' `why` and the Models area's
// card both use, and the engines' own statuses, each unavailable one with its reason.
import { describe, expect, test } from 'vitest';
import { DEFAULT_CONFIG } from '#shared/config';
import { NOT_REPORTED, unavailableWhy } from '#shared/unavailable-why';
import type { ModelStatus } from '#shared/wire/engine-port';
import { ApiError } from '#shared/protocol/errors';
import { DeviceEngine } from '../../../worker/engine/device-engine';
import { LlamaCppEngine } from '../../../worker/engine/llamacpp/engine';
import { withPlan } from '../../../worker/engine/common/plan';
import { validateChatRequest } from '#shared/protocol/validate';
import { activeCatalog } from '#shared/catalog';
import { fakeWllama } from '../fakes/wllama-fake';

const base: ModelStatus = { id: 'svc-model-5.2', state: 'unavailable', context_length: 4096 };

describe('unavailableWhy', () => {
  test('a model that is not unavailable has no reason', () => {
    for (const state of ['not_downloaded', 'downloading', 'cached', 'loading', 'ready'] as const)
      expect(unavailableWhy({ ...base, state }, 'fallback')).toBeNull();
  });
  test("the engine's error first, then the hybrid note, then the provider's, then why no status came", () => {
    expect(unavailableWhy({ ...base, error: 'too large' }, 'fallback')).toBe('too large');
    expect(unavailableWhy({ ...base, serving: { mode: 'upstream', engine: 'upstream', why: 'only upstream' } }, 'fallback')).toBe('only upstream');
    expect(unavailableWhy({ ...base, provider: { origin: 'https://p.example', serving: false, why: 'refused' } }, 'fallback')).toBe('refused');
    expect(unavailableWhy({ ...base, provider: { origin: 'https://p.example', serving: true, why: 'serves' } }, NOT_REPORTED)).toBe(NOT_REPORTED);
    expect(unavailableWhy(undefined, 'No inference engine is connected')).toBe('No inference engine is connected');
  });
});

describe("the engines' unavailable states each carry their reason", () => {
  test('llama.cpp on a device too small for every model, and the embedding model it has not: each says why', async () => {
    const engine = new LlamaCppEngine(DEFAULT_CONFIG, {
      create: () => fakeWllama(),
      cache: { list: async () => [], remove: async () => undefined },
      threads: 1,
      memoryBudgetBytes: 1000,
      origin: 'https://app.example',
      images: undefined as never,
      reason: 'test',
    });
    await engine.ready();
    const unavailable = engine.status().filter((s) => s.state === 'unavailable');
    // Every variant of the catalog: none fits 1,000 bytes, and svc-embed is web-llm's only.
    expect(unavailable.map((s) => s.id).sort()).toEqual(
      activeCatalog()
        .variants.map((v) => v.id)
        .sort(),
    );
    for (const s of unavailable)
      expect(unavailableWhy(s, 'fallback'), s.id).toMatch(
        s.id === 'svc-embed' ? /web-llm \(WebGPU\) only/ : /do not fit the memory this device can give a model/,
      );
  });

  test('an engine that cannot start leaves its models unavailable saying why, requests 503 with it, and the adapter says it', async () => {
    const noGpu = { report: { available: false, reason: 'no adapter', features: [], shaderF16: false } };
    const chosen = new DeviceEngine(
      { ...DEFAULT_CONFIG },
      {
        probe: async () => noGpu,
        create: async () => {
          throw new Error('No supported storage backend found');
        },
      },
    );
    await chosen.ready();
    const statuses = chosen.status();
    expect(statuses.map((s) => s.id).sort()).toEqual(
      activeCatalog()
        .variants.map((v) => v.id)
        .sort(),
    );
    for (const s of statuses) {
      expect(s.state).toBe('unavailable');
      expect(unavailableWhy(s, 'fallback')).toBe('llama.cpp could not start in this browser: No supported storage backend found');
    }
    const request = withPlan(validateChatRequest({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'hi' }] }));
    const refused = await chosen.generate(request, new AbortController().signal).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).toData()).toMatchObject({
      code: 'engine_unavailable',
      status: 503,
      message: "'svc-model-5.2-fast' cannot run here: llama.cpp could not start in this browser: No supported storage backend found",
    });
    expect(await chosen.adapter()).toMatchObject({ available: false, reason: 'llama.cpp could not start in this browser: No supported storage backend found' });
  });
});
