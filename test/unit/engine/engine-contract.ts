// The contract every Engine meets, as one suite: `engineContract(name, makeEngine, supports)` runs it against an
// implementation. test/unit/engine/engine-contract.test.ts runs it on the deterministic test engine and on the web-llm
// engine over the typed fake of web-llm (whose model follows the deterministic engine's rules, so both give the
// same answers); test/unit/engine/llamacpp-contract.browser.test.ts runs it on the real llama.cpp engine (wllama in
// Chromium) with a synthesized random-weight GGUF.
// Every check holds for any model: answers are compared with the same engine's own answer to the same request
// (every request is at temperature 0). What only a model following the deterministic rules can do (exact texts:
// "count N" → "1 2 … N", "Echo: …", "Thinking about: …") is checked where `supports.rules` says so.
import { describe, expect, it as vitestIt } from 'vitest';
import type { EngineEvent } from '#shared/wire/engine-port';
import { ApiError } from '#shared/protocol/errors';
import { validateChatRequest } from '#shared/protocol/validate';
import { VARIANT_IDS } from '#shared/variants';
import type { Engine } from '../../../worker/engine/engine';
import { complete } from '../../../worker/engine/capabilities';
import { Scheduler, type RequestSink } from '../../../worker/engine/scheduler';
import { withPlan, type PlannedRequest } from '../../../worker/engine/common/plan';

type Delta = Extract<EngineEvent, { type: 'delta' }>;
type Finish = Extract<EngineEvent, { type: 'finish' }>;

/** A request as a client would send it, checked and resolved as the service worker does. */
const ask = (body: Record<string, unknown>): PlannedRequest => withPlan(validateChatRequest({ temperature: 0, ...body }));
const say = (model: string, content: string, extra: Record<string, unknown> = {}) => ask({ model, messages: [{ role: 'user', content }], ...extra });

async function collect(engine: Engine, request: PlannedRequest, signal = new AbortController().signal) {
  const generation = await engine.generate(request, signal);
  const events: EngineEvent[] = [];
  for await (const event of generation.events) events.push(event);
  const deltas = events.filter((e): e is Delta => e.type === 'delta');
  return {
    fingerprint: generation.fingerprint,
    events,
    content: deltas.map((d) => d.content ?? '').join(''),
    reasoning: deltas.map((d) => d.reasoning ?? '').join(''),
    finish: events.at(-1) as Finish,
  };
}

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected the engine to refuse');
}

/** Records what a scheduler sends for one request. */
function sink(log: string[], id: string, settled?: () => void): RequestSink {
  return {
    accepted: () => log.push(`${id}:accepted`),
    start: () => log.push(`${id}:start`),
    event: (e) => log.push(`${id}:${e.type}`),
    end: () => (log.push(`${id}:end`), settled?.()),
    error: (err) => (log.push(`${id}:error:${err.code}`), settled?.()),
  };
}

/** A stop sequence from the middle of an answer (its first occurrence is past the answer's start). */
function middleOf(text: string, what: string): string {
  for (let at = Math.floor(text.length / 2); at + 3 <= text.length; at++) {
    const candidate = text.slice(at, at + 3);
    if (text.indexOf(candidate) > 0) return candidate;
  }
  throw new Error(`${what}: the answer (${JSON.stringify(text)}) is too short to take a stop sequence from`);
}

const count = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1)).join(' ');

/** What the engine's model can do beyond the contract every engine meets. */
export interface ContractSupport {
  /**
   * The model answers by the deterministic engine's rules (test/engine/deterministic-engine.ts), so the exact
   * texts are checked too. A real model (random weights) does not: its answers are checked against its own.
   */
  rules: boolean;
  /** Cases this engine skips, by title, each with the reason (shown in the suite's output as skipped). */
  skip?: Record<string, string>;
}

export function engineContract(name: string, make: () => Engine, supports: ContractSupport): void {
  // As the engine worker sees it: its own methods, and the seam's defaults for the capabilities it lacks.
  const makeEngine = () => complete(make());
  const it = (title: string, body: () => Promise<void>) => {
    const why = supports.skip?.[title];
    if (why) vitestIt.skip(`${title} (skipped: ${why})`, body);
    else vitestIt(title, body);
  };
  /** The exact-text checks of a rule-following model; a no-op for others (declared by `supports.rules`). */
  const rules = (check: () => void) => {
    if (supports.rules) check();
  };
  const rulesOr = <T>(byRules: T, otherwise: T): T => (supports.rules ? byRules : otherwise);
  describe(`engine contract: ${name}${supports.rules ? '' : ' (answers checked against its own)'}`, () => {
    it('streams deltas, then exactly one finish (last) with usage that adds up; names its weights', async () => {
      const engine = makeEngine();
      const out = await collect(engine, say('svc-model-5.2-fast', 'count 5', { max_tokens: 40 }));
      rules(() => expect(out.content).toBe(count(5)));
      expect(out.content.length).toBeGreaterThan(0);
      expect(out.reasoning).toBe('');
      expect(out.events.filter((e) => e.type === 'finish')).toHaveLength(1);
      expect(out.events.slice(0, -1).every((e) => e.type === 'delta')).toBe(true);
      expect(['stop', 'length']).toContain(out.finish.finish_reason);
      rules(() => expect(out.finish.finish_reason).toBe('stop'));
      const { usage } = out.finish;
      expect(usage.prompt_tokens).toBeGreaterThan(0);
      expect(usage.completion_tokens).toBeGreaterThanOrEqual(rulesOr(5, 1));
      if (out.finish.finish_reason === 'length') expect(usage.completion_tokens).toBe(40);
      expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
      expect(usage.completion_tokens_details.reasoning_tokens).toBe(0);
      expect(out.fingerprint).toMatch(/^fp_\S+$/);
      // The same request again (temperature 0): the same answer, the same usage.
      const again = await collect(engine, say('svc-model-5.2-fast', 'count 5', { max_tokens: 40 }));
      expect(again.content).toBe(out.content);
      expect(again.finish.usage.completion_tokens).toBe(usage.completion_tokens);
    });

    it('thinking: reasoning first, never in content, counted in reasoning_tokens; reasoning_effort "none" switches it off', async () => {
      const engine = makeEngine();
      const thought = await collect(engine, say('svc-model-5.2', 'hello', { max_tokens: 40 }));
      rules(() => expect(thought.reasoning.trim()).toBe('Thinking about: hello'));
      rules(() => expect(thought.content.trim()).toBe('Echo: hello'));
      expect(thought.reasoning.trim().length).toBeGreaterThan(0);
      expect(thought.content.trim().length).toBeGreaterThan(0);
      // The thinking block's tags are never text; after it, a random model may still write a literal "</think>".
      expect(thought.content).not.toContain('<think>');
      rules(() => expect(thought.content).not.toContain('think>'));
      expect(thought.reasoning).not.toContain('think>');
      const kinds = thought.events.filter((e): e is Delta => e.type === 'delta').map((d) => (d.reasoning ? 'r' : d.content ? 'c' : '-'));
      expect(kinds.join('').replace(/-/g, '')).toMatch(/^r+c+$/);
      const reasoningTokens = thought.finish.usage.completion_tokens_details.reasoning_tokens;
      expect(reasoningTokens).toBeGreaterThan(0);
      expect(reasoningTokens).toBeLessThan(thought.finish.usage.completion_tokens);

      const off = await collect(engine, say('svc-model-5.2', 'hello', { reasoning_effort: 'none', max_tokens: 40 }));
      expect(off.reasoning).toBe('');
      rules(() => expect(off.content.trim()).toBe('Echo: hello'));
      expect(off.content.trim().length).toBeGreaterThan(0);
      expect(off.finish.usage.completion_tokens_details.reasoning_tokens).toBe(0);
    });

    it('stop: the answer ends before the first stop sequence, finish "stop", on thinking and fast variants alike', async () => {
      const engine = makeEngine();
      for (const model of ['svc-model-5.2-fast', 'svc-model-5.2']) {
        // The answer without stop sequences; a stop taken from its middle must cut it there.
        const whole = await collect(engine, say(model, 'count 9', { max_tokens: 40 }));
        const stop = rulesOr(' 5', middleOf(whole.content, model));
        const out = await collect(engine, say(model, 'count 9', { stop: [stop, 'never'], max_tokens: 40 }));
        rules(() => expect(out.content.trim(), model).toBe(count(4)));
        expect(out.content, model).toBe(whole.content.slice(0, whole.content.indexOf(stop)));
        expect(out.content).not.toContain(stop);
        expect(out.reasoning, model).toBe(whole.reasoning);
        expect(out.finish.finish_reason).toBe('stop');
      }
    });

    it('max_tokens: generation ends at the limit with finish "length", the tokens asked for and no more', async () => {
      const engine = makeEngine();
      const whole = await collect(engine, say('svc-model-5.2-fast', 'count 40', { max_tokens: 60 }));
      const out = await collect(engine, say('svc-model-5.2-fast', 'count 40', { max_tokens: 3 }));
      expect(out.finish.finish_reason).toBe('length');
      expect(out.finish.usage.completion_tokens).toBe(3);
      expect(out.content.length).toBeGreaterThan(0);
      rules(() => expect(count(40).startsWith(out.content.trim())).toBe(true));
      expect(whole.content.startsWith(out.content)).toBe(true);
      // max_completion_tokens wins over max_tokens, thinking included.
      const thinking = await collect(engine, say('svc-model-5.2', 'count 40', { max_tokens: 50, max_completion_tokens: 2 }));
      expect(thinking.finish.finish_reason).toBe('length');
      expect(thinking.finish.usage.completion_tokens).toBe(2);
      expect(thinking.content).toBe('');
    });

    it('refuses what it cannot honour with 400 unsupported_parameter naming the field, before it generates', async () => {
      const engine = makeEngine();
      // The engine worker serves requests once ready() has settled (init); the composite knows only then which
      // engine it asks.
      await engine.ready();
      const cases: [PlannedRequest, string][] = [
        [say('svc-model-5.2-fast', 'hi', { n: 2 }), 'n'],
        [say('svc-model-5.2-fast', 'hi', { reasoning_effort: 'high' }), 'reasoning_effort'],
        [
          ask({
            model: 'svc-model-5.2',
            messages: [
              { role: 'user', content: 'a' },
              { role: 'assistant', content: 'b' },
            ],
          }),
          'messages[1].role',
        ],
      ];
      // The scheduler asks supports() once, before it queues; generate is not asked to check again.
      const scheduler = new Scheduler(engine, 4);
      for (const [request, param] of cases) {
        expect(() => engine.supports(request)).toThrow(expect.objectContaining({ status: 400, code: 'unsupported_parameter', param }));
        const said: ApiError[] = [];
        scheduler.submit(param, request, {
          accepted: () => undefined,
          start: () => undefined,
          event: () => undefined,
          end: () => undefined,
          error: (e) => said.push(e),
        });
        expect(said).toEqual([expect.objectContaining({ status: 400, code: 'unsupported_parameter', param })]);
      }
    });

    it('refuses prompt plus max_tokens over the context with 400 context_length_exceeded, in the one shared wording', async () => {
      const engine = makeEngine();
      const err = await refusal(engine.generate(say('svc-model-5.2-fast', 'hi', { max_tokens: 10_000_000 }), new AbortController().signal));
      expect(err).toMatchObject({ status: 400, code: 'context_length_exceeded', param: 'messages' });
      expect(err.message).toMatch(
        /^This model's maximum context length is \d+ tokens\. However, you requested \d+ tokens \(\d+ in the messages, 10000000 in the completion\)\. Please reduce the length of the messages or completion\.$/,
      );
    });

    it('an abort in flight ends the events promptly with no finish, in the shared wording; the next request runs', async () => {
      const engine = makeEngine();
      const controller = new AbortController();
      const generation = await engine.generate(say('svc-model-5.2-fast', 'count 400', { max_tokens: 400 }), controller.signal);
      const events: EngineEvent[] = [];
      let error: unknown = null;
      try {
        for await (const event of generation.events) {
          events.push(event);
          if (events.length === 2) controller.abort();
        }
      } catch (err) {
        error = err;
      }
      expect(events.some((e) => e.type === 'finish')).toBe(false);
      expect(events.length).toBeLessThan(50);
      if (error !== null) expect((error as ApiError).message).toBe('The client aborted the request.');
      const next = await collect(engine, say('svc-model-5.2-fast', 'count 3', { max_tokens: 20 }));
      rules(() => expect(next.content).toBe(count(3)));
      expect(next.content.length).toBeGreaterThan(0);
      expect(next.finish.type).toBe('finish');
    });

    it('through the scheduler: one at a time in order; aborted in the queue it never starts, in flight it stops', async () => {
      const engine = makeEngine();
      const scheduler = new Scheduler(engine, 16);
      const log: string[] = [];
      const settled: Record<string, Promise<void>> = {};
      for (const id of ['a', 'b', 'c']) {
        settled[id] = new Promise<void>((resolve) =>
          scheduler.submit(id, say('svc-model-5.2-fast', `count ${id === 'a' ? 30 : 3}`, { max_tokens: 40 }), sink(log, id, resolve)),
        );
      }
      scheduler.abort('b');
      await Promise.all([settled.a, settled.c]);
      expect(log.filter((l) => l.endsWith(':end'))).toEqual(['a:end', 'c:end']);
      expect(log.filter((l) => l.startsWith('b:'))).toEqual(['b:accepted']);
      // c starts only after a ended.
      expect(log.indexOf('c:start')).toBeGreaterThan(log.indexOf('a:end'));

      // A request refused by supports() is answered at once, without waiting its turn.
      const refused: string[] = [];
      scheduler.submit('d', say('svc-model-5.2-fast', 'hi', { n: 3 }), sink(refused, 'd'));
      expect(refused).toEqual(['d:error:unsupported_parameter']);
    });

    it('status lists the five ids with a context; load makes a group ready, unload leaves it cached', async () => {
      const engine = makeEngine();
      await engine.ready?.();
      const before = engine.status();
      expect(before.map((s) => s.id)).toEqual([...VARIANT_IDS]);
      for (const s of before) expect(s.context_length).toBeGreaterThan(0);
      await engine.load('svc-model-5.2-short');
      const loaded = engine.status();
      expect(loaded.find((s) => s.id === 'svc-model-5.2-short')!.state).toBe('ready');
      // Variants sharing weights share the loaded model.
      expect(loaded.find((s) => s.id === 'svc-model-5.2-short-fast')!.state).toBe('ready');
      await engine.unload();
      expect(engine.status().find((s) => s.id === 'svc-model-5.2-short')!.state).toBe('cached');
    });
  });
}
