import { afterEach, describe, expect, it } from 'vitest';
import { EngineLink } from '#shared/wire/engine-link';
import { ApiError } from '#shared/protocol/errors';
import { packEvents, type FromEngine, type ToEngine } from '#shared/wire/engine-port';
import type { ChatCompletionRequest } from '#shared/protocol/types';
import { resolved } from '../fakes/requests';
import { engineFailed, engineFailure } from '#shared/wire/page-messages';

const request: ChatCompletionRequest = resolved({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'hi' }] });
const usage = {
  prompt_tokens: 1,
  completion_tokens: 1,
  total_tokens: 2,
  prompt_tokens_details: { cached_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0 },
};
const channels: MessageChannel[] = [];

/** A scripted engine on the far end of a real MessageChannel. */
function engine(script: (message: ToEngine, reply: (m: FromEngine) => void) => void) {
  const channel = new MessageChannel();
  channels.push(channel);
  const seen: ToEngine[] = [];
  channel.port2.onmessage = (e: MessageEvent<ToEngine>) => {
    seen.push(e.data);
    script(e.data, (m) => channel.port2.postMessage(m));
  };
  return { port: channel.port1, far: channel.port2, seen };
}

const happy = (message: ToEngine, reply: (m: FromEngine) => void) => {
  if (message.type !== 'generate') return;
  const { id } = message;
  reply({ type: 'accepted', id });
  reply({ type: 'start', id, fingerprint: 'fp_1' });
  reply({ type: 'events', id, events: packEvents([{ type: 'delta', content: 'Hi' }]) });
  reply({ type: 'events', id, events: packEvents([{ type: 'finish', finish_reason: 'stop', usage }]) });
  reply({ type: 'end', id });
};

async function rejection(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

afterEach(() => {
  for (const c of channels.splice(0)) {
    c.port1.close();
    c.port2.close();
  }
});

describe('EngineLink', () => {
  it('answers 503 engine_unavailable when no page hands over a port in time', async () => {
    let asked = 0;
    const link = new EngineLink({ requestPort: async () => void asked++, connectTimeoutMs: 30 });
    const err = await rejection(link.generate(request, new AbortController().signal));
    expect(err.code).toBe('engine_unavailable');
    expect(err.status).toBe(503);
    expect(asked).toBe(1);
  });

  it('names why the engine could not start, as its page said, until an engine connects', async () => {
    const link = new EngineLink({ requestPort: async () => undefined, connectTimeoutMs: 30 });
    const why =
      'The engine worker failed to start: its script https://x.example/app/inpage-engine-worker-AbC12345.js could not be loaded (HTTP 404 Not Found); check …';
    link.failure = engineFailure(engineFailed(why)) ?? null;
    const err = await rejection(link.generate(request, new AbortController().signal));
    expect([err.status, err.code, err.message]).toEqual([
      503,
      'engine_unavailable',
      `No inference engine is connected: the page that was to host it could not start it. ${why}`,
    ]);
    // A port adopted clears it: the engine is there.
    link.adopt(engine(happy).port);
    expect(link.failure).toBeNull();
    expect(engineFailure({ type: 'inpage:engine-port' })).toBeUndefined();
  });

  it('waits for the port a page offers after being asked, then runs the request', async () => {
    const { port } = engine(happy);
    const link = new EngineLink({ requestPort: async () => void setTimeout(() => link.adopt(port), 5), connectTimeoutMs: 500 });
    const run = await link.generate(request, new AbortController().signal);
    const events = [];
    // A text delta arrives unparsed (a TextDelta); read as JSON would give it.
    for await (const e of run) events.push(e.type === 'delta' ? { type: 'delta', content: e.content } : e);
    expect(run.fingerprint).toBe('fp_1');
    expect(events).toEqual([
      { type: 'delta', content: 'Hi' },
      { type: 'finish', finish_reason: 'stop', usage },
    ]);
  });

  it('rejects with the engine’s own error when it fails before starting', async () => {
    const { port } = engine((m, reply) => {
      if (m.type === 'generate')
        reply({ type: 'error', id: m.id, error: new ApiError('context_length_exceeded', 'Too long.', { param: 'messages' }).toData() });
    });
    const link = new EngineLink({ requestPort: async () => undefined });
    link.adopt(port);
    const err = await rejection(link.generate(request, new AbortController().signal));
    expect(err.toBody()).toEqual({ error: { message: 'Too long.', type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } });
  });

  it('fails a running request with engine_unavailable when the engine’s end closes', async () => {
    const { port, far } = engine((m, reply) => {
      if (m.type !== 'generate') return;
      reply({ type: 'accepted', id: m.id });
      reply({ type: 'start', id: m.id, fingerprint: 'fp' });
      reply({ type: 'events', id: m.id, events: packEvents([{ type: 'delta', content: 'partial' }]) });
      setTimeout(() => far.close(), 10);
    });
    const link = new EngineLink({ requestPort: async () => undefined, connectTimeoutMs: 20 });
    link.adopt(port);
    const run = await link.generate(request, new AbortController().signal);
    const seen: string[] = [];
    const err = await rejection(
      (async () => {
        for await (const e of run) if (e.type === 'delta') seen.push(e.content ?? '');
      })(),
    );
    expect(seen).toEqual(['partial']);
    expect(err.code).toBe('engine_unavailable');
    expect(link.connected).toBe(false);
  });

  it('treats an engine that never acknowledges as gone', async () => {
    const { port } = engine(() => undefined);
    const link = new EngineLink({ requestPort: async () => undefined, ackTimeoutMs: 30, connectTimeoutMs: 20 });
    link.adopt(port);
    const err = await rejection(link.generate(request, new AbortController().signal));
    expect(err.code).toBe('engine_unavailable');
    expect(link.connected).toBe(false);
  });

  /**
   * The silence bound in the two tests below: a status ask goes out after a quarter of it (100 ms), so a live engine's
   * answer has 300 ms to arrive (with 80 ms, one came too late once, under a loaded CI run's timers).
   */
  const SILENCE_MS = 400;

  it('fails a request whose engine stops answering altogether (its worker stuck) after silenceTimeoutMs, saying so', async () => {
    const { port, seen } = engine((m, reply) => {
      if (m.type !== 'generate') return;
      reply({ type: 'accepted', id: m.id });
      reply({ type: 'start', id: m.id, fingerprint: 'fp' });
      // Then nothing, status asks included: a worker blocked in a call that never returns.
    });
    const link = new EngineLink({ requestPort: async () => undefined, silenceTimeoutMs: SILENCE_MS });
    link.adopt(port);
    const run = await link.generate(request, new AbortController().signal);
    const err = await rejection(
      (async () => {
        for await (const _ of run) void _;
      })(),
    );
    expect(err.code).toBe('engine_unavailable');
    expect(err.message).toBe(
      'The inference engine stopped answering during the request (its worker is stuck): reload the inpage page that hosts it, then retry.',
    );
    // It was asked for its status before it was given up.
    expect(seen.some((m) => m.type === 'status')).toBe(true);
    expect(link.connected).toBe(false);
  });

  it('keeps a request whose engine sends nothing for longer than silenceTimeoutMs but answers its status asks (a long prefill)', async () => {
    const { port } = engine((m, reply) => {
      if (m.type === 'status') reply({ type: 'status', id: m.id, models: [] });
      if (m.type !== 'generate') return;
      const { id } = m;
      reply({ type: 'accepted', id });
      reply({ type: 'start', id, fingerprint: 'fp' });
      setTimeout(() => {
        reply({
          type: 'events',
          id,
          events: packEvents([
            { type: 'delta', content: 'late' },
            { type: 'finish', finish_reason: 'stop', usage },
          ]),
        });
        reply({ type: 'end', id });
      }, 3 * SILENCE_MS);
    });
    const link = new EngineLink({ requestPort: async () => undefined, silenceTimeoutMs: SILENCE_MS });
    link.adopt(port);
    const run = await link.generate(request, new AbortController().signal);
    const seen: string[] = [];
    for await (const e of run) if (e.type === 'delta') seen.push(e.content ?? '');
    expect(seen).toEqual(['late']);
    expect(link.connected).toBe(true);
  });

  it('tells the engine to stop when the caller aborts, before or after start', async () => {
    const { port, seen } = engine((m, reply) => {
      if (m.type !== 'generate') return;
      reply({ type: 'accepted', id: m.id });
      if (m.request.messages[0]!.content === 'start') reply({ type: 'start', id: m.id, fingerprint: 'fp' });
    });
    const link = new EngineLink({ requestPort: async () => undefined });
    link.adopt(port);

    const queued = new AbortController();
    const pending = link.generate(request, queued.signal);
    await new Promise((r) => setTimeout(r, 10));
    queued.abort();
    await rejection(pending);

    const running = new AbortController();
    const run = await link.generate({ ...request, messages: [{ role: 'user', content: 'start' }] }, running.signal);
    const iterating = rejection(
      (async () => {
        for await (const _ of run) void _;
      })(),
    );
    running.abort();
    await iterating;
    await new Promise((r) => setTimeout(r, 10));
    const aborts = seen.filter((m) => m.type === 'abort').map((m) => m.id);
    const generates = seen.filter((m) => m.type === 'generate').map((m) => m.id);
    expect(aborts).toEqual(generates);
  });

  it("learns what a cancelled or failed generation cost: the engine's report after an abort, or with its error", async () => {
    const spent = { ...usage, prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 };
    const { port } = engine((m, reply) => {
      if (m.type === 'generate') {
        reply({ type: 'accepted', id: m.id });
        reply({ type: 'start', id: m.id, fingerprint: 'fp' });
        reply({ type: 'events', id: m.id, events: packEvents([{ type: 'delta', content: 'a' }]) });
        const failing = (m.request as ChatCompletionRequest).messages[0]!.content === 'fail';
        if (failing) reply({ type: 'error', id: m.id, error: new ApiError('internal_error', 'broke').toData(), spent });
      }
      // Reported once the engine has stopped, after the abort.
      if (m.type === 'abort') setTimeout(() => reply({ type: 'aborted', id: m.id, spent }), 20);
    });
    const link = new EngineLink({ requestPort: async () => undefined });
    link.adopt(port);
    const controller = new AbortController();
    const run = await link.generate(request, controller.signal);
    controller.abort();
    expect(await run.spent).toEqual(spent);

    const failed = await link.generate(resolved({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'fail' }] }), new AbortController().signal);
    await rejection(
      (async () => {
        for await (const _ of failed) void _;
      })(),
    );
    expect(await failed.spent).toEqual(spent);

    // A finished generation's cost is in its finish event: nothing more to wait for.
    const { port: happyPort } = engine(happy);
    const other = new EngineLink({ requestPort: async () => undefined });
    other.adopt(happyPort);
    const done = await other.generate(request, new AbortController().signal);
    for await (const _ of done) void _;
    expect(await done.spent).toBeNull();
  });

  it('asks the engine for model status', async () => {
    const { port } = engine((m, reply) => {
      if (m.type === 'status') reply({ type: 'status', id: m.id, models: [{ id: 'svc-vision', state: 'cached', context_length: 8192 }] });
    });
    const link = new EngineLink({ requestPort: async () => undefined });
    link.adopt(port);
    expect((await link.status()).models).toEqual([{ id: 'svc-vision', state: 'cached', context_length: 8192 }]);
  });
});
