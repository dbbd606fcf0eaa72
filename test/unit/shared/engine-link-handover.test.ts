// When the tab hosting the engine closes, what had begun answering there fails; what was queued, or begun with
// nothing sent yet, moves to the next engine.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EngineLink } from '#shared/wire/engine-link';
import { ApiError } from '#shared/protocol/errors';
import { packEvents, type EngineEvent, type FromEngine, type ToEngine } from '#shared/wire/engine-port';
import type { ChatCompletionRequest } from '#shared/protocol/types';
import { resolved } from '../fakes/requests';

const usage = {
  prompt_tokens: 1,
  completion_tokens: 1,
  total_tokens: 2,
  prompt_tokens_details: { cached_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0 },
};
const ask = (content: string): ChatCompletionRequest => resolved({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content }] });
const channels: MessageChannel[] = [];

/**
 * An engine on the far end of a real MessageChannel that runs one request at a time: it accepts everything,
 * starts the first, and finishes a started request only when told (`finish`), then starts the next.
 */
function engine(name: string) {
  const channel = new MessageChannel();
  channels.push(channel);
  const far = channel.port2;
  const seen: ToEngine[] = [];
  const queue: string[] = [];
  let running: string | null = null;
  const reply = (m: FromEngine) => far.postMessage(m);
  const next = () => {
    if (running || queue.length === 0) return;
    running = queue.shift()!;
    reply({ type: 'start', id: running, fingerprint: name });
    reply({ type: 'events', id: running, events: packEvents([{ type: 'delta', content: `from ${name}` }]) });
  };
  far.onmessage = (e: MessageEvent<ToEngine>) => {
    seen.push(e.data);
    if (e.data.type === 'generate') {
      reply({ type: 'accepted', id: e.data.id });
      queue.push(e.data.id);
      next();
    } else if (e.data.type === 'abort') {
      const at = queue.indexOf(e.data.id);
      if (at >= 0) queue.splice(at, 1);
    }
  };
  return {
    port: channel.port1,
    seen,
    generated: () => seen.flatMap((m) => (m.type === 'generate' ? [m.request.messages[0]!.content as string] : [])),
    finish() {
      if (!running) throw new Error('nothing running');
      reply({ type: 'events', id: running, events: packEvents([{ type: 'finish', finish_reason: 'stop', usage }]) });
      reply({ type: 'end', id: running });
      running = null;
      next();
    },
    /** The tab closes: its realm and with it this end of the channel go away. */
    die: () => far.close(),
    /** The engine worker now holds the Web Lock of its port's offer. */
    holding: (lock: string) => reply({ type: 'holding', lock }),
  };
}

async function drain(run: AsyncIterable<EngineEvent>): Promise<string[]> {
  const out: string[] = [];
  for await (const e of run) if (e.type === 'delta') out.push(e.content ?? '');
  return out;
}

async function failure(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

const tick = (ms = 10) => new Promise((r) => setTimeout(r, ms));

afterEach(() => {
  for (const c of channels.splice(0)) {
    c.port1.close();
    c.port2.close();
  }
});

describe('EngineLink handover', () => {
  it('fails the running request, and sends the queued ones, in order, to the engine that takes over', async () => {
    let asked = 0;
    const link = new EngineLink({ requestPort: async () => void asked++, handoverTimeoutMs: 2000 });
    const first = engine('A');
    link.adopt(first.port);
    const running = await link.generate(ask('one'), new AbortController().signal);
    const second = link.generate(ask('two'), new AbortController().signal);
    const third = link.generate(ask('three'), new AbortController().signal);
    await tick();
    expect(first.generated()).toEqual(['one', 'two', 'three']);

    const runningOutcome = failure(drain(running));
    first.die();
    expect((await runningOutcome).code).toBe('engine_unavailable');
    await tick();
    expect(link.waitingForHandover).toBe(2);
    expect(asked).toBe(1); // the pages were asked for a new engine

    const next = engine('B');
    link.adopt(next.port);
    const secondRun = await second;
    expect(secondRun.fingerprint).toBe('B');
    next.finish();
    expect(await drain(secondRun)).toEqual(['from B']);
    const thirdRun = await third;
    next.finish();
    expect(await drain(thirdRun)).toEqual(['from B']);
    expect(next.generated()).toEqual(['two', 'three']);
  });

  it('moves a request its engine began but sent nothing of when that engine dies: the next engine answers it whole', async () => {
    const link = new EngineLink({ requestPort: async () => undefined, handoverTimeoutMs: 2000 });
    const channel = new MessageChannel();
    channels.push(channel);
    // An engine that begins every request and dies before it sends any of the answer (its tab closing).
    channel.port2.onmessage = (e: MessageEvent<ToEngine>) => {
      if (e.data.type !== 'generate') return;
      channel.port2.postMessage({ type: 'accepted', id: e.data.id } satisfies FromEngine);
      channel.port2.postMessage({ type: 'start', id: e.data.id, fingerprint: 'A' } satisfies FromEngine);
    };
    link.adopt(channel.port1);
    const run = await link.generate(ask('one'), new AbortController().signal);
    expect(run.fingerprint).toBe('A');
    channel.port2.close();
    await tick();
    expect(link.waitingForHandover).toBe(1);
    const next = engine('B');
    link.adopt(next.port);
    await tick();
    next.finish();
    expect(await drain(run)).toEqual(['from B']);
    expect(next.generated()).toEqual(['one']);
  });

  it('moves them at once when the new engine arrived before the old one’s close was noticed', async () => {
    const link = new EngineLink({ requestPort: async () => undefined });
    const first = engine('A');
    link.adopt(first.port);
    const running = await link.generate(ask('one'), new AbortController().signal);
    const queued = link.generate(ask('two'), new AbortController().signal);
    await tick();
    const next = engine('B');
    link.adopt(next.port);
    const runningOutcome = failure(drain(running));
    first.die();
    expect((await runningOutcome).code).toBe('engine_unavailable');
    const moved = await queued;
    expect(moved.fingerprint).toBe('B');
  });

  it('ends queued requests with 503 engine_unavailable when no engine takes over in time', async () => {
    const link = new EngineLink({ requestPort: async () => undefined, handoverTimeoutMs: 50 });
    const first = engine('A');
    link.adopt(first.port);
    const running = await link.generate(ask('one'), new AbortController().signal);
    const queued = link.generate(ask('two'), new AbortController().signal);
    await tick();
    const runningOutcome = failure(drain(running));
    first.die();
    await runningOutcome;
    const err = await failure(queued);
    expect(err.code).toBe('engine_unavailable');
    expect(err.status).toBe(503);
    expect(link.waitingForHandover).toBe(0);
  });

  it('drops a waiting request its client aborted: the next engine never sees it', async () => {
    const link = new EngineLink({ requestPort: async () => undefined, handoverTimeoutMs: 2000 });
    const first = engine('A');
    link.adopt(first.port);
    const running = await link.generate(ask('one'), new AbortController().signal);
    const client = new AbortController();
    const queued = link.generate(ask('two'), client.signal);
    const kept = link.generate(ask('three'), new AbortController().signal);
    await tick();
    const runningOutcome = failure(drain(running));
    first.die();
    await runningOutcome;
    await tick();
    client.abort();
    await failure(queued);
    const next = engine('B');
    link.adopt(next.port);
    expect((await kept).fingerprint).toBe('B');
    expect(next.generated()).toEqual(['three']);
  });

  it('gives a port up when its engine’s lock frees, even with no close event (Chromium sends none)', async () => {
    const freed = new Map<string, () => void>();
    const link = new EngineLink({
      requestPort: async () => undefined,
      handoverTimeoutMs: 2000,
      whenLockFree: (name) => new Promise<void>((resolve) => freed.set(name, resolve)),
    });
    const first = engine('A');
    link.adopt(first.port, 'lock-A');
    const running = await link.generate(ask('one'), new AbortController().signal);
    const queued = link.generate(ask('two'), new AbortController().signal);
    await tick();
    const runningOutcome = failure(drain(running));
    freed.get('lock-A')!(); // the engine worker ended; its port stays open on this side
    expect((await runningOutcome).code).toBe('engine_unavailable');
    expect(link.connected).toBe(false);
    const next = engine('B');
    link.adopt(next.port, 'lock-B');
    expect((await queued).fingerprint).toBe('B');
  });

  it('a port offered before its engine holds the lock: the lock is watched from the engine’s `holding` on, not before', async () => {
    const watched: string[] = [];
    const freed = new Map<string, () => void>();
    const link = new EngineLink({
      requestPort: async () => undefined,
      whenLockFree: (name) => {
        watched.push(name);
        return new Promise<void>((resolve) => freed.set(name, resolve));
      },
    });
    const first = engine('A');
    link.adopt(first.port, 'lock-A', true);
    // Requests go through at once, before the engine holds its lock.
    const running = await link.generate(ask('one'), new AbortController().signal);
    expect(watched).toEqual([]);
    first.holding('lock-B'); // not this port's lock: ignored
    first.holding('lock-A');
    await vi.waitFor(() => expect(watched).toEqual(['lock-A']), { timeout: 5000 });
    const outcome = failure(drain(running));
    freed.get('lock-A')!();
    expect((await outcome).code).toBe('engine_unavailable');
    expect(link.connected).toBe(false);
  });

  it('names its own life lock to every engine it adopts, so the engine can tell when this service worker is gone', async () => {
    const link = new EngineLink({ requestPort: async () => undefined, lifeLock: Promise.resolve('inpage-sw:test') });
    const first = engine('A');
    link.adopt(first.port, 'lock-A');
    const next = engine('B');
    link.adopt(next.port, 'lock-B');
    // Message delivery across a MessageChannel takes an event-loop turn or more; under load more than 10 ms.
    await vi.waitFor(() => expect(first.seen.length + next.seen.length).toBeGreaterThanOrEqual(2), { timeout: 5000 });
    expect(first.seen).toEqual([{ type: 'watch', lock: 'inpage-sw:test' }]);
    expect(next.seen).toEqual([{ type: 'watch', lock: 'inpage-sw:test' }]);
  });

  it('an engine that stops acknowledging: the unacknowledged request fails, a queued one is withdrawn there and moves', async () => {
    const channel = new MessageChannel();
    channels.push(channel);
    const seen: ToEngine[] = [];
    channel.port2.onmessage = (e: MessageEvent<ToEngine>) => {
      seen.push(e.data);
      const m = e.data;
      if (m.type !== 'generate') return;
      const text = m.request.messages[0]!.content;
      if (text === 'three') return; // hung: no acknowledgement
      channel.port2.postMessage({ type: 'accepted', id: m.id } satisfies FromEngine);
      if (text === 'one') channel.port2.postMessage({ type: 'start', id: m.id, fingerprint: 'A' } satisfies FromEngine);
    };
    // The acknowledgement timeout is what declares 'three' hung; 'one' and 'two' are acknowledged at once, and
    // 'three' is sent only once 'two' has been, so a loaded machine cannot make them miss it (100 ms did, in CI).
    const link = new EngineLink({ requestPort: async () => undefined, ackTimeoutMs: 1000, handoverTimeoutMs: 4000 });
    link.adopt(channel.port1);
    const running = await link.generate(ask('one'), new AbortController().signal);
    const runningOutcome = failure(drain(running));
    const queued = link.generate(ask('two'), new AbortController().signal);
    await vi.waitFor(() => expect(seen.some((m) => m.type === 'generate' && m.request.messages[0]!.content === 'two')).toBe(true));
    await tick();
    const hung = failure(link.generate(ask('three'), new AbortController().signal));
    expect((await hung).code).toBe('engine_unavailable');
    expect((await runningOutcome).code).toBe('engine_unavailable');
    await tick();
    const two = seen.find((m) => m.type === 'generate' && m.request.messages[0]!.content === 'two')!;
    expect(seen).toContainEqual({ type: 'abort', id: (two as { id: string }).id });
    const next = engine('B');
    link.adopt(next.port);
    expect((await queued).fingerprint).toBe('B');
    expect(next.generated()).toEqual(['two']);
  });
});
