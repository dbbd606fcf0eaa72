// The one answer path (worker/sw/answer.ts): the use of a finished answer is journaled before the client reads its
// usage, so a service worker stopped from then on (an update's old version, the browser stopping it) loses none of
// what an answer reported (issue 51).
import { describe, expect, it } from 'vitest';
import { runAnswer, type Accounting, type AnswerFormat } from '../../../worker/sw/answer';
import { EngineRun } from '#shared/wire/engine-run';
import type { EngineLink } from '#shared/wire/engine-link';
import type { EngineEvent, EngineRequest } from '#shared/wire/engine-port';
import type { Usage } from '#shared/protocol/types';
import { ApiError } from '#shared/protocol/errors';

const usage: Usage = {
  prompt_tokens: 4,
  completion_tokens: 2,
  total_tokens: 6,
  prompt_tokens_details: { cached_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0 },
};

/** A stream format that writes each delta's text and, at the finish, `usage=<total>`. */
const format: AnswerFormat = {
  stream: true,
  open: () => [],
  event: (e: EngineEvent) => (e.type === 'delta' && e.content ? [e.content] : e.type === 'finish' ? [`usage=${e.usage.total_tokens}`] : []),
  close: () => ['[DONE]'],
  fail: () => ['failed'],
};

function accounting() {
  const booked: number[] = [];
  let journal!: () => void;
  const journaled = new Promise<void>((resolve) => (journal = resolve));
  const a: Accounting = {
    book: (tokens) => {
      booked.push(tokens);
      return { journaled, booked: journaled };
    },
    keepAlive: () => undefined,
  };
  return { a, booked, journal };
}

/** Reads `body` to its end in the background; `text()` is what has arrived so far. */
function collect(body: ReadableStream<Uint8Array>): { text(): string; ended: Promise<void> } {
  const decoder = new TextDecoder();
  let text = '';
  const ended = (async () => {
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      text += decoder.decode(value, { stream: true });
    }
  })();
  return { text: () => text, ended };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('runAnswer: booking before the usage is told', () => {
  it("holds the finish's usage until the use is journaled, then sends it; books once", async () => {
    const run = new EngineRun();
    const link = { generate: async () => run } as unknown as EngineLink;
    const { a, booked, journal } = accounting();
    const response = await runAnswer(link, {} as EngineRequest, new AbortController().signal, a, () => format);
    const body = collect(response.body!);
    run.push({ type: 'delta', content: 'one ' });
    await sleep(50);
    expect(body.text()).toBe('one ');
    run.push({ type: 'finish', finish_reason: 'stop', usage });
    run.settleSpent(null);
    run.end();
    await sleep(200);
    // Not journaled yet: the usage has not gone out.
    expect(body.text()).toBe('one ');
    expect(booked).toEqual([6]);
    journal();
    await body.ended;
    expect(body.text()).toBe('one usage=6[DONE]');
    expect(booked).toEqual([6]);
  });
});

describe('runAnswer: ended by the handover to a new version (worker/sw/handover.ts)', () => {
  /** A link whose run fails as the real one does when the request's signal aborts. */
  function abortableLink(run: EngineRun): EngineLink {
    return {
      generate: async (_req: EngineRequest, signal: AbortSignal) => {
        signal.addEventListener('abort', () => run.fail(new ApiError('invalid_value', 'aborted')), { once: true });
        return run;
      },
    } as unknown as EngineLink;
  }

  it('a stream in progress ends with an in-band service_unavailable, closed, and what was delivered is booked', async () => {
    const run = new EngineRun();
    const ending = new AbortController();
    const { a, booked, journal } = accounting();
    journal();
    const failed: ApiError[] = [];
    const withFail: AnswerFormat = { ...format, fail: (e) => (failed.push(e), [`failed ${e.code}`]) };
    const response = await runAnswer(abortableLink(run), {} as EngineRequest, new AbortController().signal, { ...a, ending: ending.signal }, () => withFail);
    const body = collect(response.body!);
    run.push({ type: 'delta', content: 'one ' });
    run.push({ type: 'delta', content: 'two ' });
    await sleep(50);
    run.settleSpent(null);
    ending.abort();
    await body.ended;
    expect(body.text()).toBe('one two failed service_unavailable');
    expect(failed[0]?.status).toBe(503);
    expect(failed[0]?.retryAfter).toBe(1);
    expect(booked).toEqual([2]); // one token per delivered piece: the engine could not tell
  });

  it('a request not begun yet when the handover ends it is refused with the same 503', async () => {
    const ending = new AbortController();
    ending.abort();
    const { a } = accounting();
    const link = {
      generate: async (_req: EngineRequest, signal: AbortSignal) => {
        if (signal.aborted) throw new ApiError('invalid_value', 'aborted');
        return new EngineRun();
      },
    } as unknown as EngineLink;
    const refused = await runAnswer(link, {} as EngineRequest, new AbortController().signal, { ...a, ending: ending.signal }, () => format).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).code).toBe('service_unavailable');
  });

  it("a client's own abort is not the handover's: no in-band error", async () => {
    const run = new EngineRun();
    const client = new AbortController();
    const ending = new AbortController();
    const { a, journal } = accounting();
    journal();
    const response = await runAnswer(abortableLink(run), {} as EngineRequest, client.signal, { ...a, ending: ending.signal }, () => format);
    const body = collect(response.body!);
    run.push({ type: 'delta', content: 'one ' });
    await sleep(20);
    run.settleSpent(null);
    client.abort();
    await sleep(50);
    expect(body.text()).toBe('one ');
  });
});
