// Hybrid (docs/hybrid.md): the `upstreams` setting (a literal key refused, naming the field), the per-request decision
// of each mode, the upstream lane beside the local queue and its limit, and fall-over before the first token. The
// upstream here is a fetch that answers as a test says; the wire itself is upstream-wire.test.ts's, a real server
// upstream-contract.test.ts's.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '#shared/config';
import { buildCatalog, DEFAULT_CATALOG } from '#shared/model-config';
import { buildUpstreamPlan, type UpstreamPlan } from '#shared/upstreams';
import { validateChatRequest } from '#shared/protocol/validate';
import type { ModelStatus } from '#shared/wire/engine-port';
import { DeterministicEngine } from '../../engine/deterministic-engine';
import { HybridEngine, RECENT_FAILURE_MS } from '../../../worker/engine/hybrid';
import type { Engine } from '../../../worker/engine/engine';
import { Scheduler, type RequestSink } from '../../../worker/engine/scheduler';
import { withPlan } from '../../../worker/engine/common/plan';

const ORIGIN = 'https://app.example.com';
const plan = (upstreams: unknown, models: unknown) => buildUpstreamPlan(upstreams, buildCatalog(models), ORIGIN);

describe('the upstreams setting', () => {
  it('a literal credential is refused at start-up, naming the field', () => {
    for (const [upstreams, field] of [
      [{ gpu: { url: 'https://llm.example.com/v1', apiKey: 'abc' } }, 'upstreams.gpu.apiKey'],
      [{ gpu: { url: 'https://llm.example.com/v1', headers: { Authorization: 'Bearer x' } } }, 'upstreams.gpu.headers'],
      [{ gpu: { url: 'https://llm.example.com/v1', note: 'sk-proj-abcdef' } }, 'upstreams.gpu.note'],
      [{ gpu: { url: 'https://user:pass@llm.example.com/v1' } }, 'upstreams["gpu"].url'],
      [{ gpu: { url: 'https://llm.example.com/v1?api_key=abc' } }, 'upstreams["gpu"].url'],
    ] as const) {
      expect(() => plan(upstreams, {}), field).toThrow(
        expect.objectContaining({
          name: 'ModelConfigError',
          message: expect.stringContaining(`${field}: a literal credential in inpage.config.json is refused`),
        }),
      );
    }
  });
  it('routes resolve against the upstreams: via may be left out with one; an unknown one, or a mode without an upstream, is named', () => {
    const p = plan({ gpu: { url: '/llm/v1', dialect: 'vllm', credentials: 'include' } }, { 'svc-model-5.2': { upstream: { model: 'Qwen/Qwen3-8B-FP8' } } });
    expect(p.routes['svc-model-5.2']).toEqual({ mode: 'prefer-local', upstream: 'gpu', model: 'Qwen/Qwen3-8B-FP8' });
    expect(p.upstreams.gpu).toMatchObject({
      url: 'https://app.example.com/llm/v1',
      dialect: 'vllm',
      credentials: 'include',
      concurrency: 4,
      timeoutMs: 15_000,
    });
    expect(() => plan({ gpu: { url: 'https://a.example/v1' } }, { 'svc-model-5.2': { mode: 'upstream', upstream: { via: 'cpu', model: 'x' } } })).toThrow(
      /models\["svc-model-5.2"\]\.upstream\.via: no upstream 'cpu'/,
    );
    expect(() => buildCatalog({ 'svc-model-5.2': { mode: 'upstream' } })).toThrow(/models\["svc-model-5.2"\]\.mode: 'upstream' needs 'upstream'/);
    expect(() => plan({ gpu: { url: 'https://a.example/v1', dialect: 'tgi' } }, {})).toThrow(/upstreams\["gpu"\]\.dialect: must be one of/);
  });
  it("an id of the deployment's own that only an upstream answers: mode upstream without a local model; any other mode needs one", () => {
    const catalog = buildCatalog({ 'big-model': { mode: 'upstream', upstream: { model: 'Qwen/Qwen3-235B' }, thinks: true, contextLength: 131072 } });
    const big = catalog.variants.find((v) => v.id === 'big-model');
    expect(big).toMatchObject({ engine: 'upstream', weightGroup: 'upstream:big-model', thinks: true, vision: false, trainedContext: 131072 });
    expect(catalog.groups['upstream:big-model']).toMatchObject({ engine: 'upstream', configuredBy: 'big-model' });
    expect(catalog.routes['big-model']).toEqual({ mode: 'upstream', upstream: { model: 'Qwen/Qwen3-235B' } });
    // The five stay this device's.
    expect(catalog.variants.filter((v) => v.engine === 'upstream').map((v) => v.id)).toEqual(['big-model']);
    for (const mode of ['prefer-local', 'prefer-upstream', 'local']) {
      expect(() => buildCatalog({ 'big-model': { mode, upstream: { model: 'Qwen/Qwen3-235B' } } }), mode).toThrow(
        /models\["big-model"\]: a model id of the deployment's own needs .*'mode': 'upstream' with 'upstream'/,
      );
    }
    expect(() => buildCatalog({ 'big-model': { mode: 'upstream', upstream: { model: 'x' }, integrity: {} } })).toThrow(
      /models\["big-model"\]\.integrity: 'big-model' has no local model/,
    );
  });
  it('the composite reports an id only an upstream answers: unavailable here, served upstream; offline, nobody', () => {
    const models = { 'big-model': { mode: 'upstream', upstream: { model: 'Qwen/Qwen3-235B' } } };
    const p = plan(GPU, models);
    const local = localWith({});
    let online = true;
    // The deployment's catalog: the status and the request's check read it.
    const catalog = buildCatalog(models);
    const engine = new HybridEngine(local, p, catalog, { fetch: async () => new Response(''), online: () => online, now: () => 0 });
    const status = () => engine.status().find((s) => s.id === 'big-model');
    expect(status()).toMatchObject({
      state: 'unavailable',
      serving: { mode: 'upstream', engine: 'upstream', upstream: { name: 'gpu', model: 'Qwen/Qwen3-235B' } },
    });
    online = false;
    expect(() => engine.route(withPlan(validateChatRequest({ model: 'big-model', messages: [{ role: 'user', content: 'hi' }] }, catalog)))).toThrow(/offline/);
  });
});

/** A local engine whose statuses a test sets. */
function localWith(states: Partial<Record<string, ModelStatus['state']>>): Engine & { loads: string[] } {
  const inner = new DeterministicEngine({ ...DEFAULT_CONFIG });
  const loads: string[] = [];
  return Object.assign(Object.create(inner) as DeterministicEngine, {
    loads,
    status: () => inner.status().map((s) => (states[s.id] ? { ...s, state: states[s.id]! } : s)),
    load: async (id: string) => void loads.push(id),
  });
}

const GPU = { gpu: { url: 'https://llm.example.com/v1', dialect: 'vllm', concurrency: 2, timeoutMs: 1000 } };
function hybrid(mode: string, local: Engine, world: { online?: boolean; now?: number; fetch?: typeof fetch } = {}) {
  const p: UpstreamPlan = plan(GPU, { 'svc-model-5.2-fast': { mode, upstream: { model: 'Qwen/Qwen3-8B-FP8' } } });
  const clock = { now: world.now ?? 1_000_000 };
  const engine = new HybridEngine(local, p, DEFAULT_CATALOG, {
    fetch:
      world.fetch ??
      (async () =>
        new Response('data: {"choices":[{"index":0,"delta":{"content":"from upstream"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n', {
          headers: { 'content-type': 'text/event-stream' },
        })),
    online: () => world.online ?? true,
    now: () => clock.now,
  });
  return { engine, clock };
}
const fast = (content = 'hi') => withPlan(validateChatRequest({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content }] }));
const kinds = (sides: readonly { kind: string }[]) => sides.map((s) => s.kind);
/** The upstream side the route gives for `fast()`: its name and limit, and what runs it. */
const upstreamSide = (engine: HybridEngine) => engine.route(fast()).find((s) => s.kind === 'upstream')!;

describe('the decision, per request, before anything is sent', () => {
  it('prefer-local: local when the weights are here (loaded or downloaded), else upstream while they download in the background', () => {
    expect(kinds(hybrid('prefer-local', localWith({ 'svc-model-5.2-fast': 'ready' })).engine.route(fast()))).toEqual(['local', 'upstream']);
    expect(kinds(hybrid('prefer-local', localWith({ 'svc-model-5.2-fast': 'cached' })).engine.route(fast()))).toEqual(['local', 'upstream']);
    const local = localWith({ 'svc-model-5.2-fast': 'not_downloaded' });
    const { engine } = hybrid('prefer-local', local);
    expect(kinds(engine.route(fast()))).toEqual(['upstream', 'local']);
    expect(local.loads).toEqual(['svc-model-5.2-fast']);
    // Too large for this device: only the upstream, and the status says why.
    const { engine: big } = hybrid('prefer-local', localWith({ 'svc-model-5.2-fast': 'unavailable' }));
    expect(kinds(big.route(fast()))).toEqual(['upstream']);
    expect(big.status().find((s) => s.id === 'svc-model-5.2-fast')!.serving).toMatchObject({
      mode: 'prefer-local',
      engine: 'upstream',
      upstream: { name: 'gpu', host: 'llm.example.com', model: 'Qwen/Qwen3-8B-FP8' },
    });
  });
  it('offline: prefer-* use local without a wasted request; upstream is 503 upstream_unavailable saying so', () => {
    for (const mode of ['prefer-local', 'prefer-upstream'])
      expect(kinds(hybrid(mode, localWith({}), { online: false }).engine.route(fast()))).toEqual(['local']);
    const { engine } = hybrid('upstream', localWith({}), { online: false });
    expect(() => engine.route(fast())).toThrow(
      expect.objectContaining({ code: 'upstream_unavailable', status: 503, message: expect.stringContaining('offline') }),
    );
    expect(engine.status().find((s) => s.id === 'svc-model-5.2-fast')!.serving!.why).toContain('offline');
  });
  it('prefer-upstream: upstream then local; after an out-of-reach failure, local first for a while', async () => {
    const failing = hybrid('prefer-upstream', localWith({}), { fetch: async () => Promise.reject(new TypeError('Failed to fetch')) });
    expect(kinds(failing.engine.route(fast()))).toEqual(['upstream', 'local']);
    expect(upstreamSide(failing.engine)).toMatchObject({ kind: 'upstream', name: 'gpu', limit: 2 });
    await expect(upstreamSide(failing.engine).generate(fast(), new AbortController().signal)).rejects.toMatchObject({
      code: 'upstream_unavailable',
    });
    expect(kinds(failing.engine.route(fast()))).toEqual(['local', 'upstream']);
    failing.clock.now += RECENT_FAILURE_MS + 1;
    expect(kinds(failing.engine.route(fast()))).toEqual(['upstream', 'local']);
  });
  it('local mode (and an id without a route) never asks the upstream', () => {
    const { engine } = hybrid('local', localWith({}));
    expect(kinds(engine.route(fast()))).toEqual(['local']);
    expect(kinds(engine.route(validateChatRequest({ model: 'svc-model-5.2', messages: [{ role: 'user', content: 'x' }] })))).toEqual(['local']);
  });
});

/** Logs what the scheduler says for one request; the answer's text as one entry when it ends. */
function sink(log: string[], id: string, done?: () => void): RequestSink {
  let text = '';
  return {
    accepted: () => log.push(`${id}:accepted`),
    start: (_fp, servedBy) => log.push(`${id}:start:${servedBy ?? 'local'}`),
    event: (e) => void (e.type === 'delta' && e.content ? (text += e.content) : undefined),
    end: () => (log.push(`${id}:${text}`, `${id}:end`), done?.()),
    error: (err) => (log.push(`${id}:error:${err.code}`), done?.()),
  };
}

describe('through the scheduler', () => {
  it('upstream requests run at once beside the local queue, up to the limit; one more is 429 queue_full (mode upstream)', async () => {
    const release: (() => void)[] = [];
    const slow: typeof fetch = () =>
      new Promise((resolve) =>
        release.push(() =>
          resolve(
            new Response('data: {"choices":[{"index":0,"delta":{"content":"up"},"finish_reason":"stop"}]}\n\n', {
              headers: { 'content-type': 'text/event-stream' },
            }),
          ),
        ),
      );
    const { engine } = hybrid('upstream', localWith({}), { fetch: slow });
    const scheduler = new Scheduler(engine, 16);
    const log: string[] = [];
    const done = ['a', 'b'].map((id) => new Promise<void>((r) => scheduler.submit(id, fast(), sink(log, id, r))));
    scheduler.submit('c', fast(), sink(log, 'c'));
    expect(log).toContain('c:error:queue_full');
    // The local queue is free meanwhile.
    const local = new Promise<void>((r) =>
      scheduler.submit('l', validateChatRequest({ model: 'svc-model-5.2-short-fast', messages: [{ role: 'user', content: 'count 2' }] }), sink(log, 'l', r)),
    );
    await local;
    expect(log).toContain('l:1 2');
    expect(log).toContain('l:start:local');
    while (release.length < 2) await new Promise((r) => setTimeout(r, 5));
    release.forEach((r) => r());
    await Promise.all(done);
    expect(log.filter((l) => l.endsWith(':start:upstream; host=llm.example.com'))).toHaveLength(2);
  });
  it('a failure before the first token falls over to local where the mode allows (prefer-upstream); the answer says local', async () => {
    const { engine } = hybrid('prefer-upstream', localWith({}), { fetch: async () => new Response('{"error":"boom"}', { status: 500 }) });
    const scheduler = new Scheduler(engine, 16);
    const log: string[] = [];
    await new Promise<void>((r) => scheduler.submit('a', fast('count 3'), sink(log, 'a', r)));
    expect(log).toEqual(['a:accepted', 'a:start:local', 'a:1 2 3', 'a:end']);
  });
  it('mode upstream does not fall over: the upstream failure is the answer (401 → 503 upstream_unavailable)', async () => {
    const { engine } = hybrid('upstream', localWith({}), { fetch: async () => new Response('{"error":"Unauthorized"}', { status: 401 }) });
    const scheduler = new Scheduler(engine, 16);
    const log: string[] = [];
    await new Promise<void>((r) => scheduler.submit('a', fast(), sink(log, 'a', r)));
    expect(log).toEqual(['a:accepted', 'a:error:upstream_unavailable']);
  });
});

describe('never a hang', () => {
  it('headers, then silence: 504 upstream_timeout once timeoutMs passes without a first token', async () => {
    const silent: typeof fetch = async (_input, init) =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(c) {
            init?.signal?.addEventListener('abort', () => c.error(new DOMException('aborted', 'AbortError')));
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      );
    const p = plan({ gpu: { url: 'https://llm.example.com/v1', timeoutMs: 100 } }, { 'svc-model-5.2-fast': { mode: 'upstream', upstream: { model: 'm' } } });
    const engine = new HybridEngine(localWith({}), p, DEFAULT_CATALOG, { fetch: silent, online: () => true, now: () => Date.now() });
    await expect(upstreamSide(engine).generate(fast(), new AbortController().signal)).rejects.toMatchObject({
      code: 'upstream_timeout',
      status: 504,
    });
  });
});
