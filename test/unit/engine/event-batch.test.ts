import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { carriesText, packEvents, TextDelta, unpackEvents, type EngineEvent } from '#shared/wire/engine-port';
import type { TokenLogprob } from '#shared/protocol/types';
import { EventBatch, nextTurn } from '../../../worker/engine/common/event-batch';

const delta = (content: string): EngineEvent => ({ type: 'delta', content });
const finish: EngineEvent = {
  type: 'finish',
  finish_reason: 'stop',
  usage: {
    prompt_tokens: 1,
    completion_tokens: 3,
    total_tokens: 4,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  },
};

/** A batch whose turns end when the test says so, and what it sent. */
function batchWithTurns() {
  const tasks: (() => void)[] = [];
  const sent: EngineEvent[][] = [];
  const batch = new EventBatch(
    (events) => sent.push(events),
    (task) => void tasks.push(task),
  );
  return { batch, sent, endTurn: () => tasks.splice(0).forEach((t) => t()) };
}

describe('EventBatch', () => {
  it('sends the events of one turn as one message when the turn ends', () => {
    const { batch, sent, endTurn } = batchWithTurns();
    batch.push(delta('a'));
    batch.push(delta('b'));
    batch.push(delta('c'));
    expect(sent).toEqual([]);
    endTurn();
    expect(sent).toEqual([[delta('a'), delta('b'), delta('c')]]);
    // A paced engine: one event a turn, one message each.
    batch.push(delta('d'));
    endTurn();
    batch.push(delta('e'));
    endTurn();
    expect(sent).toEqual([[delta('a'), delta('b'), delta('c')], [delta('d')], [delta('e')]]);
    endTurn();
    expect(sent).toHaveLength(3);
  });

  it('flush sends what is held, so end can follow every event; order is kept', () => {
    const { batch, sent, endTurn } = batchWithTurns();
    batch.push(delta('a'));
    batch.push(delta('b'));
    batch.push(finish);
    batch.flush();
    expect(sent.flat()).toEqual([delta('a'), delta('b'), finish]);
    endTurn();
    expect(sent.flat()).toEqual([delta('a'), delta('b'), finish]);
  });

  it('drop forgets held events', () => {
    const { batch, sent, endTurn } = batchWithTurns();
    batch.push(delta('a'));
    batch.push(delta('b'));
    batch.drop();
    endTurn();
    expect(sent).toEqual([]);
    batch.push(delta('c'));
    endTurn();
    expect(sent).toEqual([[delta('c')]]);
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

describe('packEvents / unpackEvents', () => {
  /** An unpacked event as the plain object JSON would give (a TextDelta read through its `content`). */
  const plain = (e: EngineEvent) => (e instanceof TextDelta ? { type: 'delta', content: e.content } : e);

  it('gives back every event as JSON would, text-only deltas travelling as bare strings, one event a line', () => {
    const text = fc.string({ unit: 'binary' });
    const event: fc.Arbitrary<EngineEvent> = fc.oneof(
      fc.record({ type: fc.constant('delta' as const), content: text }),
      fc.record({ type: fc.constant('delta' as const), content: text, reasoning: text }, { requiredKeys: ['type'] }),
      fc.record({
        type: fc.constant('delta' as const),
        content: text,
        logprobs: fc.constant<TokenLogprob[]>([{ token: 'a', logprob: -1, bytes: [97], top_logprobs: [] }]),
      }),
      fc.record({ type: fc.constant('tool_call' as const), index: fc.nat(3), id: fc.constant('call_1'), name: text }),
      fc.record({ type: fc.constant('tool_arguments' as const), index: fc.nat(3), arguments: text }),
    );
    fc.assert(
      fc.property(fc.array(event), (events) => {
        const back = unpackEvents(packEvents(events));
        expect(back.map(plain)).toEqual(JSON.parse(JSON.stringify(events)));
        // Packing what was unpacked gives the same text (a TextDelta keeps its JSON).
        expect(packEvents(back)).toBe(packEvents(events));
        // Text is told without parsing, and told alike.
        expect(back.map(carriesText)).toEqual(events.map((e) => e.type === 'delta' && !!(e.content || e.reasoning)));
      }),
      { numRuns: 500 },
    );
    // The short form is what crosses the port for a plain delta (a line holding its JSON string); anything else
    // keeps its object. Line breaks inside the text are escaped by JSON, so they never split a line.
    expect(
      packEvents([
        { type: 'delta', content: ' 1\n' },
        { type: 'delta', content: 'x', reasoning: 'y' },
      ]),
    ).toBe('" 1\\n"\n{"type":"delta","content":"x","reasoning":"y"}');
    expect(unpackEvents(packEvents([]))).toEqual([]);
  });

  it('leaves a text delta unparsed until its content is read', () => {
    const [first] = unpackEvents(packEvents([{ type: 'delta', content: 'h\u00e9 "x"' }]));
    expect(first).toBeInstanceOf(TextDelta);
    expect((first as TextDelta).json).toBe('"h\u00e9 \\"x\\""');
    expect(first!.type === 'delta' && first!.content).toBe('h\u00e9 "x"');
  });
});
