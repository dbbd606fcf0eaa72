import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../src/engine-protocol';
import { EventBatch, nextTurn } from '../../worker/engine/event-batch';

const delta = (content: string): EngineEvent => ({ type: 'delta', content });
const finish: EngineEvent = {
  type: 'finish',
  finish_reason: 'stop',
  usage: { prompt_tokens: 1, completion_tokens: 3, total_tokens: 4, completion_tokens_details: { reasoning_tokens: 0 } },
};

/** A `later` whose tasks run when the test says the turn is over. */
function manualTurns() {
  const tasks: (() => void)[] = [];
  return { later: (task: () => void) => void tasks.push(task), endTurn: () => tasks.splice(0).forEach((t) => t()) };
}

describe('EventBatch', () => {
  it('sends the first event of a turn at once and the rest of that turn as one message', () => {
    const sent: EngineEvent[][] = [];
    const turns = manualTurns();
    const batch = new EventBatch((events) => sent.push(events), turns.later);
    batch.push(delta('a'));
    expect(sent).toEqual([[delta('a')]]);
    batch.push(delta('b'));
    batch.push(delta('c'));
    expect(sent).toHaveLength(1);
    turns.endTurn();
    expect(sent).toEqual([[delta('a')], [delta('b'), delta('c')]]);
    // A new turn: its first event goes at once again.
    batch.push(delta('d'));
    expect(sent.at(-1)).toEqual([delta('d')]);
  });

  it('flush sends what is held, so end can follow every event; order is kept', () => {
    const sent: EngineEvent[][] = [];
    const turns = manualTurns();
    const batch = new EventBatch((events) => sent.push(events), turns.later);
    batch.push(delta('a'));
    batch.push(delta('b'));
    batch.push(finish);
    batch.flush();
    expect(sent.flat()).toEqual([delta('a'), delta('b'), finish]);
    turns.endTurn();
    expect(sent.flat()).toEqual([delta('a'), delta('b'), finish]);
  });

  it('drop forgets held events', () => {
    const sent: EngineEvent[][] = [];
    const turns = manualTurns();
    const batch = new EventBatch((events) => sent.push(events), turns.later);
    batch.push(delta('a'));
    batch.push(delta('b'));
    batch.drop();
    turns.endTurn();
    expect(sent).toEqual([[delta('a')]]);
  });

  it('nextTurn runs tasks in order, after the current task', async () => {
    const later = nextTurn();
    const order: string[] = [];
    const both = new Promise<void>((resolve) => {
      later(() => order.push('first'));
      later(() => (order.push('second'), resolve()));
    });
    order.push('now');
    await both;
    expect(order).toEqual(['now', 'first', 'second']);
  });
});
