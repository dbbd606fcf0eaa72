// The service worker's asks for events while it answers (worker/sw/stay-awake.ts): every STAY_AWAKE_MS while
// some work is in progress, none once the last piece has settled (fulfilled or rejected); and a fetch event held
// for its work at most EVENT_HOLD_MS (Chromium ends an event at 5 minutes), while the asks go on.
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { EVENT_HOLD_MS, STAY_AWAKE_MS, StayAwake } from '../../../worker/sw/stay-awake';

function deferred(): { promise: Promise<void>; resolve(): void; reject(err: Error): void } {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('StayAwake', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  test('asks every STAY_AWAKE_MS while work is in progress, and stops when the last piece settles', async () => {
    const ask = vi.fn(() => Promise.resolve());
    const awake = new StayAwake(ask);
    expect(STAY_AWAKE_MS).toBe(10_000);
    vi.advanceTimersByTime(3 * STAY_AWAKE_MS);
    expect(ask).toHaveBeenCalledTimes(0); // idle: nothing to keep alive

    const first = deferred();
    const second = deferred();
    const held = awake.hold(first.promise);
    awake.hold(second.promise).catch(() => undefined);
    expect(awake.inProgress).toBe(2);
    vi.advanceTimersByTime(STAY_AWAKE_MS - 1);
    expect(ask).toHaveBeenCalledTimes(0);
    vi.advanceTimersByTime(1);
    expect(ask).toHaveBeenCalledTimes(1); // one ask per period, however many requests

    first.resolve();
    await held;
    expect(awake.inProgress).toBe(1);
    vi.advanceTimersByTime(2 * STAY_AWAKE_MS);
    expect(ask).toHaveBeenCalledTimes(3); // the second still runs

    second.reject(new Error('aborted'));
    await vi.waitFor(() => expect(awake.inProgress).toBe(0));
    vi.advanceTimersByTime(5 * STAY_AWAKE_MS);
    expect(ask).toHaveBeenCalledTimes(3);

    // Busy again: the asks start again.
    const third = deferred();
    awake.hold(third.promise);
    vi.advanceTimersByTime(STAY_AWAKE_MS);
    expect(ask).toHaveBeenCalledTimes(4);
    third.resolve();
  });

  test('hold returns the work itself, and an ask that fails does not stop the next', async () => {
    const ask = vi.fn(() => Promise.reject(new Error('no pages')));
    const awake = new StayAwake(ask);
    const work = deferred();
    const held = awake.hold(work.promise);
    expect(held).toBe(work.promise);
    vi.advanceTimersByTime(2 * STAY_AWAKE_MS);
    expect(ask).toHaveBeenCalledTimes(2);
    work.resolve();
    await held;
  });

  test('an event is held until its work settles, or EVENT_HOLD_MS; the asks go on until the work settles', async () => {
    expect(EVENT_HOLD_MS).toBeLessThan(5 * 60_000);
    const ask = vi.fn(() => Promise.resolve());
    const awake = new StayAwake(ask);
    const settled = (promise: Promise<void>) => {
      let done = false;
      void promise.then(() => (done = true));
      return () => done;
    };

    const short = deferred();
    const shortHeld = settled(awake.forEvent(short.promise));
    short.reject(new Error('failed')); // a failed piece of work lets the event go too, without a rejection
    await vi.waitFor(() => expect(shortHeld()).toBe(true));
    expect(awake.inProgress).toBe(0);

    const long = deferred();
    const longHeld = settled(awake.forEvent(long.promise));
    await vi.advanceTimersByTimeAsync(EVENT_HOLD_MS - 1);
    expect(longHeld()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(longHeld()).toBe(true); // the event is let go
    expect(awake.inProgress).toBe(1); // the work is still counted
    const asked = ask.mock.calls.length;
    expect(asked).toBe(Math.floor(EVENT_HOLD_MS / STAY_AWAKE_MS));
    await vi.advanceTimersByTimeAsync(3 * STAY_AWAKE_MS);
    expect(ask).toHaveBeenCalledTimes(asked + 3);
    long.resolve();
    await vi.waitFor(() => expect(awake.inProgress).toBe(0));
    await vi.advanceTimersByTimeAsync(3 * STAY_AWAKE_MS);
    expect(ask).toHaveBeenCalledTimes(asked + 3);
  });
});
