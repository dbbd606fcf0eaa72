// The small page messages of issue 51: the queue depth a page read (for the host under the same scope) and the
// service worker's clock reading (src/shared/wire/page-messages.ts).
import { describe, expect, it } from 'vitest';
import { clockAnswer, clockReading, settingsQueueDepth, settingsRead } from '#shared/wire/page-messages';

describe('page messages', () => {
  const scope = 'http://127.0.0.1:4174/';
  it("a page's queue depth is taken for its own scope only, as a whole number of at least 0", () => {
    expect(settingsQueueDepth(settingsRead(scope, 256), scope)).toBe(256);
    expect(settingsQueueDepth(settingsRead(scope, 0), scope)).toBe(0);
    expect(settingsQueueDepth(settingsRead('http://127.0.0.1:4174/app/', 256), scope)).toBeUndefined();
    for (const queueDepth of [-1, 1.5, Number.NaN, Infinity, '256', null])
      expect(settingsQueueDepth({ type: 'inpage:settings', scope, queueDepth }, scope)).toBeUndefined();
    expect(settingsQueueDepth({ type: 'inpage:other', scope, queueDepth: 4 }, scope)).toBeUndefined();
    expect(settingsQueueDepth(null, scope)).toBeUndefined();
  });

  it("the service worker's clock reading is a finite number, or nothing", () => {
    expect(clockReading(clockAnswer(1_800_000_000_000))).toBe(1_800_000_000_000);
    for (const now of [Number.NaN, Infinity, '1', null]) expect(clockReading({ type: 'inpage:clock', now })).toBeUndefined();
    expect(clockReading(undefined)).toBeUndefined();
  });
});
