// Weights the browser evicted: the model reads as not_downloaded again and its next use downloads it, with no
// error left behind; files imported into the cache read as cached. Against the web-llm adapter and its fake.
import { describe, expect, it } from 'vitest';
import { resolved } from '../fakes/requests';
import { DEFAULT_CONFIG } from '#shared/config';
import type { ModelStatus } from '#shared/wire/engine-port';
import { WebLlmEngine } from '../../../worker/engine/webllm/adapter';
import { rig } from '../fakes/webllm-fake';

// SwiftShader has no shader-f16: the fake's adapter runs the q4f32 weights.
const SHORT = 'Qwen3-1.7B-q4f32_1-MLC';
const state = (engine: WebLlmEngine, id: ModelStatus['id']) => engine.status().find((s) => s.id === id)!;

describe('cache changes behind the engine’s back', () => {
  it('after an eviction, a new visit sees not_downloaded; the next use downloads again and leaves no error', async () => {
    const r = rig();
    r.cache.ids.add(SHORT);
    const before = new WebLlmEngine(DEFAULT_CONFIG, r.deps);
    await before.ready();
    expect(state(before, 'svc-model-5.2-short').state).toBe('cached');

    r.cache.ids.clear(); // the browser evicted the origin's storage while no tab was open
    const after = new WebLlmEngine(DEFAULT_CONFIG, r.deps);
    await after.ready();
    expect(state(after, 'svc-model-5.2-short')).toMatchObject({ state: 'not_downloaded' });
    const seen: string[] = [];
    after.onStatus(() => seen.push(state(after, 'svc-model-5.2-short').state));
    await after.load('svc-model-5.2-short');
    expect(seen).toContain('downloading');
    expect(state(after, 'svc-model-5.2-short')).toMatchObject({ state: 'ready' });
    expect(state(after, 'svc-model-5.2-short').error).toBeUndefined();
  });

  it('rescan: an eviction while the engine runs turns cached into not_downloaded; the next request downloads again', async () => {
    const r = rig();
    r.cache.ids.add(SHORT);
    const engine = new WebLlmEngine(DEFAULT_CONFIG, r.deps);
    await engine.ready();
    expect(state(engine, 'svc-model-5.2-short-fast').state).toBe('cached');
    r.cache.ids.clear();
    await engine.rescan();
    expect(state(engine, 'svc-model-5.2-short-fast').state).toBe('not_downloaded');
    expect(state(engine, 'svc-model-5.2-short').sizeOnDisk).toBeUndefined();

    const seen: string[] = [];
    engine.onStatus(() => seen.push(state(engine, 'svc-model-5.2-short-fast').state));
    const generation = await engine.generate(
      resolved({ model: 'svc-model-5.2-short-fast', messages: [{ role: 'user', content: 'hi' }] }),
      new AbortController().signal,
    );
    for await (const event of generation.events) void event;
    expect(seen).toContain('downloading');
    expect(state(engine, 'svc-model-5.2-short-fast')).toMatchObject({ state: 'ready' });
    expect(state(engine, 'svc-model-5.2-short-fast').error).toBeUndefined();
    expect(r.cache.ids.has(SHORT)).toBe(true);
  });

  it('rescan: files imported into the cache turn not_downloaded into cached; a loaded model is left alone', async () => {
    const r = rig();
    const engine = new WebLlmEngine(DEFAULT_CONFIG, r.deps);
    await engine.load('svc-model-5.2-fast');
    expect(state(engine, 'svc-model-5.2-short').state).toBe('not_downloaded');
    r.cache.ids.clear(); // even with its files gone, the loaded model stays ready: it is in GPU memory
    r.cache.ids.add(SHORT); // imported from a folder
    await engine.rescan();
    expect(state(engine, 'svc-model-5.2-short').state).toBe('cached');
    expect(state(engine, 'svc-model-5.2').state).toBe('ready');
    const seen: string[] = [];
    engine.onStatus(() => seen.push(state(engine, 'svc-model-5.2-short').state));
    await engine.load('svc-model-5.2-short');
    expect(seen).not.toContain('downloading');
  });
});
