// The generation queue: one at a time, first come first served, bounded, abortable.
import { describe, expect, it, vi } from 'vitest';
import type { EngineEvent, ModelStatus } from '#shared/wire/engine-port';
import { ApiError } from '#shared/protocol/errors';
import type { ChatCompletionRequest } from '#shared/protocol/types';
import { resolved } from '../fakes/requests';
import type { Engine, Generation } from '../../../worker/engine/engine';
import { Scheduler, type RequestSink } from '../../../worker/engine/scheduler';
import { DeviceEngine } from '../../../worker/engine/device-engine';
import { HybridEngine } from '../../../worker/engine/hybrid';
import { DEFAULT_CONFIG } from '#shared/config';
import { DEFAULT_CATALOG } from '#shared/model-config';
import { buildUpstreamPlan } from '#shared/upstreams';
import { fakeWllama, llamaEngineWith } from '../fakes/wllama-fake';

/** An engine whose generations each wait for the test to let them go, one token at a time. */
class GatedEngine implements Engine {
  readonly started: string[] = [];
  readonly signals = new Map<string, AbortSignal>();
  private readonly gates = new Map<string, () => void>();
  running = 0;
  maxRunning = 0;

  /** Lets the generation of `text` finish. */
  release(text: string): void {
    this.gates.get(text)?.();
  }

  async whenStarted(text: string): Promise<void> {
    while (!this.started.includes(text)) await new Promise((resolve) => setTimeout(resolve, 1));
  }

  async generate(request: ChatCompletionRequest, signal: AbortSignal): Promise<Generation> {
    const text = String(request.messages[0]!.content);
    this.started.push(text);
    this.signals.set(text, signal);
    this.running++;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    const gate = new Promise<void>((resolve) => this.gates.set(text, resolve));
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- a generator function has no arrow form to keep `this`
    const self = this;
    async function* events(): AsyncGenerator<EngineEvent> {
      try {
        yield { type: 'delta', content: `${text}-1` };
        await Promise.race([gate, new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))]);
        if (signal.aborted) throw new ApiError('internal_error', 'aborted');
        yield { type: 'delta', content: `${text}-2` };
        yield {
          type: 'finish',
          finish_reason: 'stop',
          usage: {
            prompt_tokens: 1,
            completion_tokens: 2,
            total_tokens: 3,
            prompt_tokens_details: { cached_tokens: 0 },
            completion_tokens_details: { reasoning_tokens: 0 },
          },
        };
      } finally {
        self.running--;
      }
    }
    return { fingerprint: 'fp_test', events: events() };
  }
  status(): ModelStatus[] {
    return [];
  }
  onStatus(): void {}
  async adapter() {
    return { available: true, features: [], shaderF16: false };
  }
  async load(): Promise<void> {}
  async unload(): Promise<void> {}
  async deleteFromCache(): Promise<void> {}
}

interface Recorded {
  log: string[];
  errors: ApiError[];
  done: Promise<void>;
  sink: RequestSink;
}

function record(): Recorded {
  const log: string[] = [];
  const errors: ApiError[] = [];
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return {
    log,
    errors,
    done,
    sink: {
      accepted: () => log.push('accepted'),
      start: (fp) => log.push(`start:${fp}`),
      event: (e) => log.push(e.type === 'delta' ? `delta:${e.content}` : e.type === 'finish' ? `finish:${e.finish_reason}` : e.type),
      end: () => {
        log.push('end');
        finish();
      },
      error: (err) => {
        log.push(`error:${err.code}`);
        errors.push(err);
        finish();
      },
    },
  };
}

const req = (text: string): ChatCompletionRequest => resolved({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: text }] });

describe('Scheduler', () => {
  it('runs one generation at a time, in the order they came', async () => {
    const engine = new GatedEngine();
    const scheduler = new Scheduler(engine, 16);
    const jobs = ['a', 'b', 'c'].map((id) => {
      const r = record();
      scheduler.submit(id, req(id), r.sink);
      return r;
    });
    expect(scheduler.queued).toBe(2);
    expect(scheduler.busy).toBe(true);
    for (const id of ['a', 'b', 'c']) {
      await engine.whenStarted(id);
      engine.release(id);
    }
    await Promise.all(jobs.map((j) => j.done));
    expect(engine.started).toEqual(['a', 'b', 'c']);
    expect(engine.maxRunning).toBe(1);
    expect(jobs[1]!.log).toEqual(['accepted', 'start:fp_test', 'delta:b-1', 'delta:b-2', 'finish:stop', 'end']);
  });

  it('answers beyond the queue depth with 429 queue_full and a retry-after', async () => {
    const engine = new GatedEngine();
    const scheduler = new Scheduler(engine, 2);
    const running = record();
    scheduler.submit('run', req('run'), running.sink);
    await engine.whenStarted('run');
    const waiting = [record(), record()];
    waiting.forEach((w, i) => scheduler.submit(`w${i}`, req(`w${i}`), w.sink));
    const refused = record();
    scheduler.submit('over', req('over'), refused.sink);
    await refused.done;
    expect(refused.log).toEqual(['error:queue_full']);
    const err = refused.errors[0]!;
    expect(err).toMatchObject({ status: 429, type: 'rate_limit_exceeded', code: 'queue_full' });
    expect(err.retryAfter).toBeGreaterThanOrEqual(1);
    expect(Number.isInteger(err.retryAfter)).toBe(true);
    expect(err.toData().retryAfter).toBe(err.retryAfter);
    // Once one finishes there is room again.
    engine.release('run');
    await running.done;
    await engine.whenStarted('w0');
    const later = record();
    scheduler.submit('later', req('later'), later.sink);
    expect(later.log).toEqual(['accepted']);
    for (const id of ['w0', 'w1', 'later']) {
      await engine.whenStarted(id);
      engine.release(id);
    }
    await later.done;
    expect(later.log.at(-1)).toBe('end');
  });

  it('resize: a new depth is in force for the next request; those waiting beyond it keep their place', async () => {
    const engine = new GatedEngine();
    const scheduler = new Scheduler(engine, 1);
    const running = record();
    scheduler.submit('run', req('run'), running.sink);
    await engine.whenStarted('run');
    const [w0, w1, w1b, w2] = [record(), record(), record(), record()];
    scheduler.submit('w0', req('w0'), w0.sink);
    scheduler.submit('w1', req('w1'), w1.sink);
    await w1.done;
    expect(w1.log).toEqual(['error:queue_full']);
    scheduler.resize(3);
    scheduler.submit('w1b', req('w1b'), w1b.sink);
    scheduler.submit('w2', req('w2'), w2.sink);
    expect(scheduler.queued).toBe(3);
    scheduler.resize(1);
    // Three wait, over the new depth of 1: they stay; the next is refused.
    expect(scheduler.queued).toBe(3);
    const over = record();
    scheduler.submit('over', req('over'), over.sink);
    await over.done;
    expect(over.log).toEqual(['error:queue_full']);
    for (const id of ['run', 'w0', 'w1b', 'w2']) {
      await engine.whenStarted(id);
      engine.release(id);
    }
    await w2.done;
    expect([w0, w1b, w2].map((w) => w.log.at(-1))).toEqual(['end', 'end', 'end']);
    expect(engine.started).toEqual(['run', 'w0', 'w1b', 'w2']);
  });

  it('takes an aborted waiting request out of the queue: it never reaches the engine and hears nothing more', async () => {
    const engine = new GatedEngine();
    const scheduler = new Scheduler(engine, 16);
    const first = record();
    const dropped = record();
    const third = record();
    scheduler.submit('a', req('a'), first.sink);
    scheduler.submit('b', req('b'), dropped.sink);
    scheduler.submit('c', req('c'), third.sink);
    scheduler.abort('b');
    expect(scheduler.queued).toBe(1);
    engine.release('a');
    await engine.whenStarted('c');
    engine.release('c');
    await Promise.all([first.done, third.done]);
    expect(engine.started).toEqual(['a', 'c']);
    expect(dropped.log).toEqual(['accepted']);
  });

  it('interrupts an aborted running request: its signal fires, nothing more is sent, the next one starts', async () => {
    const engine = new GatedEngine();
    const scheduler = new Scheduler(engine, 16);
    const running = record();
    const next = record();
    scheduler.submit('a', req('a'), running.sink);
    scheduler.submit('b', req('b'), next.sink);
    await engine.whenStarted('a');
    await new Promise((resolve) => setTimeout(resolve, 5));
    scheduler.abort('a');
    expect(engine.signals.get('a')!.aborted).toBe(true);
    await engine.whenStarted('b');
    engine.release('b');
    await next.done;
    expect(running.log).toEqual(['accepted', 'start:fp_test', 'delta:a-1']);
    expect(next.log.at(-1)).toBe('end');
  });

  it('reports an engine failure before start as the error, with its status', async () => {
    const engine = new GatedEngine();
    engine.generate = async () => {
      throw new ApiError('model_load_failed', 'Loading failed: Failed to fetch');
    };
    const scheduler = new Scheduler(engine, 16);
    const r = record();
    scheduler.submit('a', req('a'), r.sink);
    await r.done;
    expect(r.log).toEqual(['accepted', 'error:model_load_failed']);
    expect(r.errors[0]!.status).toBe(503);
  });

  it('after an abort or a failure part-way, the sink learns what the generation cost, once the engine has stopped', async () => {
    const usage = (prompt: number, completion: number) => ({
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
    let generated = 0;
    let stopped = false;
    const engine = new GatedEngine();
    engine.generate = async (request, signal) => {
      const fail = String(request.messages[0]!.content) === 'fail';
      generated = 0;
      stopped = false;
      async function* events(): AsyncGenerator<EngineEvent> {
        try {
          for (;;) {
            await new Promise((resolve) => setTimeout(resolve, 1));
            if (signal.aborted) throw new ApiError('internal_error', 'aborted');
            generated++;
            if (fail && generated === 4) throw new ApiError('internal_error', 'broke');
            yield { type: 'delta', content: 'x' };
          }
        } finally {
          stopped = true;
        }
      }
      return { fingerprint: 'fp', events: events(), spent: async () => (stopped ? usage(7, generated) : null) };
    };
    const scheduler = new Scheduler(engine, 4);
    const seen: string[] = [];
    let resolveCost!: (u: unknown) => void;
    const cost = new Promise((resolve) => (resolveCost = resolve));
    scheduler.submit('a', req('go'), {
      accepted: () => undefined,
      start: () => undefined,
      event: () => {
        seen.push('x');
        if (seen.length === 5) scheduler.abort('a');
      },
      end: () => resolveCost('ended'),
      error: () => resolveCost('error'),
      aborted: (spent) => resolveCost(spent),
    });
    expect(await cost).toEqual(usage(7, generated));
    expect(generated).toBeGreaterThanOrEqual(5);

    const failed = record();
    let failedSpent: unknown;
    scheduler.submit('b', req('fail'), { ...failed.sink, error: (err, spent) => ((failedSpent = spent), failed.sink.error(err)) });
    await failed.done;
    expect(failed.errors[0]!.message).toBe('broke');
    expect(failedSpent).toEqual(usage(7, 4));
  });
});

describe('supports(): asked once per request, by the scheduler, before it queues', () => {
  /** The llama.cpp engine over a fake wllama (its own supports and generate), counting every supports() it answers. */
  function countedLlama() {
    const llama = llamaEngineWith({}, fakeWllama());
    const supports = vi.spyOn(llama, 'supports');
    return { llama, supports };
  }
  const noGpu = { report: { available: false, reason: 'no adapter', features: [], shaderF16: false } };
  const device = (llama: Engine) =>
    new DeviceEngine({ ...DEFAULT_CONFIG, engineChoice: 'llamacpp' }, { probe: async () => noGpu, create: async () => llama }, DEFAULT_CATALOG);
  const tools = () =>
    resolved({
      model: 'svc-model-5.2-short-fast',
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
    });

  const compositions: [string, (llama: Engine) => Promise<Engine>][] = [
    ['the engine alone', async (llama) => llama],
    [
      "the device's engine",
      async (llama) => {
        const engine = device(llama);
        await engine.ready();
        return engine;
      },
    ],
    [
      'the hybrid composite around it (mode local)',
      async (llama) => {
        const engine = device(llama);
        await engine.ready();
        return new HybridEngine(engine, buildUpstreamPlan({}, DEFAULT_CATALOG, 'https://app.example'), DEFAULT_CATALOG);
      },
    ],
  ];
  for (const [name, compose] of compositions) {
    it(`${name}: one supports() for an answered request, one for a refused one (and no generate)`, async () => {
      const { llama, supports } = countedLlama();
      const generate = vi.spyOn(llama, 'generate');
      const scheduler = new Scheduler(await compose(llama), 4);
      const answered = record();
      scheduler.submit('a', tools(), answered.sink);
      await answered.done;
      expect(answered.log.at(-1)).toBe('end');
      expect(supports).toHaveBeenCalledTimes(1);
      expect(generate).toHaveBeenCalledTimes(1);

      const refused = record();
      scheduler.submit('b', resolved({ model: 'svc-model-5.2-short-fast', messages: [{ role: 'user', content: 'hi' }], n: 2 }), refused.sink);
      await refused.done;
      expect(refused.log).toEqual(['error:unsupported_parameter']);
      expect(supports).toHaveBeenCalledTimes(2);
      expect(generate).toHaveBeenCalledTimes(1);
    });
  }

  it("the device's engine asked before its choice is made: generate asks supports, once", async () => {
    const { llama, supports } = countedLlama();
    const scheduler = new Scheduler(device(llama), 4);
    const refused = record();
    scheduler.submit('b', resolved({ model: 'svc-model-5.2-short-fast', messages: [{ role: 'user', content: 'hi' }], n: 2 }), refused.sink);
    await refused.done;
    expect(refused.log).toEqual(['accepted', 'error:unsupported_parameter']);
    expect(supports).toHaveBeenCalledTimes(1);
  });
});
