// The one answer path (worker/sw/answer.ts): the use of a finished answer is journaled before the client reads its
// usage, so a service worker stopped from then on (an update's old version, the browser stopping it) loses none of
// what an answer reported (issue 51).
import { describe, expect, it } from 'vitest';
import { runAnswer, type Accounting, type AnswerFormat } from '../../worker/sw/answer';
import { EngineRun } from '#shared/wire/engine-run';
import type { EngineLink } from '#shared/wire/engine-link';
import type { EngineEvent, EngineRequest } from '#shared/wire/engine-port';
import type { Usage } from '#shared/protocol/types';

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
