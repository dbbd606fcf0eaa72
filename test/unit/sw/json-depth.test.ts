import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ApiError } from '#shared/protocol/errors';
import { assertJsonDepth, MAX_JSON_DEPTH, nestedTooDeep } from '../../../worker/sw/json-depth';

const arrays = (depth: number) => JSON.parse('['.repeat(depth) + ']'.repeat(depth)) as unknown;
const objects = (depth: number) => JSON.parse('{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1)) as unknown;

/** Depth by plain recursion, for small values: the reference the iterative check must agree with. */
function depthOf(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0;
  const children = Array.isArray(v) ? v : Object.values(v);
  return 1 + Math.max(0, ...children.map(depthOf));
}

describe('request nesting depth', () => {
  it('accepts exactly MAX_JSON_DEPTH levels and refuses one more, arrays and objects alike', () => {
    expect(MAX_JSON_DEPTH).toBe(64);
    expect(nestedTooDeep(arrays(64))).toBeNull();
    expect(nestedTooDeep(arrays(65))).toEqual({ field: null });
    expect(nestedTooDeep(objects(64))).toBeNull();
    expect(nestedTooDeep(objects(65))).toEqual({ field: 'a' });
    expect(nestedTooDeep('text')).toBeNull();
    expect(nestedTooDeep(null)).toBeNull();
  });

  it('names the top-level field the deep part is under', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }], x_extension: arrays(64) };
    expect(nestedTooDeep(body)).toEqual({ field: 'x_extension' });
    const schema = { model: 'm', response_format: { type: 'json_schema', json_schema: { name: 's', schema: objects(5000) } } };
    try {
      assertJsonDepth(schema);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ status: 400, code: 'invalid_value', param: 'response_format' });
      expect((err as Error).message).toContain('64');
    }
    expect(() => assertJsonDepth({ model: 'm', x: arrays(63) })).not.toThrow();
  });

  it('does not overflow on 100,000 levels (iterative), and is quick on a wide body', () => {
    expect(nestedTooDeep(arrays(100_000))).toEqual({ field: null });
    const wide = { messages: Array.from({ length: 50_000 }, (_, i) => ({ role: 'user', content: [{ type: 'text', text: String(i) }] })) };
    expect(nestedTooDeep(wide)).toBeNull();
  });

  it('agrees with a recursive depth on any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 1, max: 8 }), (value, limit) => {
        expect(nestedTooDeep(value, limit) !== null).toBe(depthOf(value) > limit);
      }),
    );
  });
});
