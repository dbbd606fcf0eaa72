import { describe, expect, it } from 'vitest';
import { START_TIMEOUT_MS, StartBound } from '../../../src/lib/start-bound';

describe("the start's bound (installInpage's startTimeoutMs)", () => {
  it('rejects a step still running when it ends, naming the step and what to check', async () => {
    const bound = new StartBound(20);
    const never = new Promise<never>(() => undefined);
    const err = await bound.within(never, 'registering the service worker /app/inpage-sw.js', 'check it is served.').then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toBe('inpage: registering the service worker /app/inpage-sw.js did not finish within 0.02 s (startTimeoutMs): check it is served.');
    expect(bound.left()).toBe(0);
  });

  it('passes a step that settles in time, its value or its own error', async () => {
    const bound = new StartBound();
    expect(bound.ms).toBe(START_TIMEOUT_MS);
    expect(await bound.within(Promise.resolve(7), 'a step', 'x')).toBe(7);
    await expect(bound.within(Promise.reject(new Error('its own')), 'a step', 'x')).rejects.toThrow('its own');
  });

  it('refuses a bound that is not a positive number', () => {
    for (const ms of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => new StartBound(ms)).toThrow(/startTimeoutMs must be a positive number/);
  });
});
