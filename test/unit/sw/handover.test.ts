// An old service worker's handover to a newer, waiting version (worker/sw/handover.ts): refusing new requests from
// the moment it begins, for HANDOVER_MS + HANDOVER_GIVE_UP_MS at most; ending what it holds at HANDOVER_MS; and
// sending every refused request back at the same instants (slots of HANDOVER_SLOT_MS, at least HANDOVER_MIN_WAIT_MS on).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HANDOVER_GIVE_UP_MS, HANDOVER_MIN_WAIT_MS, HANDOVER_MS, HANDOVER_SLOT_MS, Handover } from '../../../worker/sw/handover';

describe('Handover', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('refuses from its beginning until HANDOVER_MS + HANDOVER_GIVE_UP_MS, and ends what is held at HANDOVER_MS', () => {
    expect([HANDOVER_MS, HANDOVER_GIVE_UP_MS]).toEqual([20_000, 10_000]);
    const handover = new Handover();
    expect(handover.refusing).toBe(false);
    handover.begin();
    expect(handover.refusing).toBe(true);
    expect(handover.forNewAnswer).toBe(handover.signal);
    vi.advanceTimersByTime(HANDOVER_MS - 1);
    expect(handover.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(handover.signal.aborted).toBe(true);
    expect(handover.refusing).toBe(true);
    handover.begin(); // once only: the clock does not start again
    vi.advanceTimersByTime(HANDOVER_GIVE_UP_MS - 1);
    expect(handover.refusing).toBe(true);
    vi.advanceTimersByTime(1);
    expect(handover.refusing).toBe(false);
    // Answering again after the give-up: a new answer gets no ending signal (the fired one would end it at once).
    expect(handover.forNewAnswer).toBeUndefined();
  });

  it('sends every refused request back at the same slots, never sooner than the minimum wait', () => {
    const handover = new Handover();
    handover.begin();
    const begun = Date.now();
    for (const at of [0, 1, 300, 749, 750, 751, 999, 1000, 1500, 4321]) {
      vi.setSystemTime(begun + at);
      const wait = handover.retryAfterMs();
      expect(wait).toBeGreaterThanOrEqual(HANDOVER_MIN_WAIT_MS);
      expect(wait).toBeLessThan(HANDOVER_MIN_WAIT_MS + HANDOVER_SLOT_MS);
      expect((at + wait) % HANDOVER_SLOT_MS).toBe(0); // a slot boundary: everyone comes back together
    }
  });
});
