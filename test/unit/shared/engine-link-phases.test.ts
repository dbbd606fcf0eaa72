// The request's life in the engine link, phase by phase: what each message of the engine moves it to, and what
// losing its engine (closed or silent) does to it.
import { describe, expect, it } from 'vitest';
import { advance, begun, movesWhenLost, type LossReason, type Phase } from '#shared/wire/engine-link';

const phases: Phase[] = ['sent', 'accepted', 'started', 'answering'];
const words = ['accepted', 'start', 'events', 'end', 'error', 'aborted', 'status'] as const;

/** Each phase, the phase each message moves it to, and whether it moves to the next engine when its port is lost. */
const table: Record<Phase, { next: Record<(typeof words)[number], Phase>; moves: Record<LossReason, boolean>; begun: boolean }> = {
  sent: {
    next: { accepted: 'accepted', start: 'started', events: 'sent', end: 'sent', error: 'sent', aborted: 'sent', status: 'sent' },
    moves: { closed: true, silent: false },
    begun: false,
  },
  accepted: {
    next: { accepted: 'accepted', start: 'started', events: 'accepted', end: 'accepted', error: 'accepted', aborted: 'accepted', status: 'accepted' },
    moves: { closed: true, silent: true },
    begun: false,
  },
  started: {
    next: { accepted: 'started', start: 'started', events: 'answering', end: 'started', error: 'started', aborted: 'started', status: 'started' },
    moves: { closed: true, silent: false },
    begun: true,
  },
  answering: {
    next: { accepted: 'answering', start: 'answering', events: 'answering', end: 'answering', error: 'answering', aborted: 'answering', status: 'answering' },
    moves: { closed: false, silent: false },
    begun: true,
  },
};

describe('engine link: a request’s phases', () => {
  for (const phase of phases) {
    const row = table[phase];
    it(`${phase}: moves on the engine's messages as the protocol orders them`, () => {
      for (const word of words) expect([word, advance(phase, word)]).toEqual([word, row.next[word]]);
    });
    it(`${phase}: ${row.moves.closed ? 'moves' : 'fails'} when its engine closes, ${row.moves.silent ? 'moves' : 'fails'} when it goes silent`, () => {
      for (const reason of ['closed', 'silent'] as const) {
        expect([reason, movesWhenLost(true, phase, reason)]).toEqual([reason, row.moves[reason]]);
        // A request that is not movable (a status ask) never moves.
        expect(movesWhenLost(false, phase, reason)).toBe(false);
      }
      expect(begun(phase)).toBe(row.begun);
    });
  }

  it('walks a generation’s life: sent → accepted → started → answering, and stays answering to its end', () => {
    const walk: Phase[] = ['sent'];
    for (const word of ['accepted', 'start', 'events', 'events', 'end'] as const) walk.push(advance(walk.at(-1)!, word));
    expect(walk).toEqual(['sent', 'accepted', 'started', 'answering', 'answering', 'answering']);
  });
});
