// inpage's JSON grammars (worker/engine/common/json-grammar.ts, number-grammar.ts, regex-grammar.ts), run by
// xgrammar (web-llm's grammar engine) on strings: numbers bounded so JSON.parse never gives Infinity (issue 38:
// llama.cpp's own conversion let a model write 3751414141414141e2222222222222222), integer bounds held exactly,
// and the schema keywords zod, the AI SDK and LangChain emit. The same text runs on llama.cpp as GBNF
// (test/browser/llamacpp-json-numbers.prod.spec.ts).
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError } from '#shared/protocol/errors';
import { jsonObjectGrammar, jsonSchemaGrammar, thinkingFirst } from '../../../worker/engine/common/json-grammar';
import { INTEGER_LIMIT, NUMBER_EXPONENT_DIGITS, NUMBER_FRACTION_DIGITS, NUMBER_INTEGER_DIGITS } from '../../../worker/engine/common/number-grammar';
import { jsonFormat } from '../../../worker/engine/webllm/tool-formats/grammar';
import { matches, xgrammar } from '../fakes/xgrammar';

const SLOW = 120_000;
let compile: (ebnf: string) => Promise<unknown>;
beforeAll(async () => {
  const { compiler } = await xgrammar();
  compile = (ebnf) => compiler.compileGrammar(ebnf);
}, SLOW);

/** A matcher of the schema's grammar: `accepts(text)`. */
async function grammarOf(schema: unknown): Promise<(text: string) => Promise<boolean>> {
  const compiled = await compile(jsonSchemaGrammar(schema, 's'));
  return (text) => matches(compiled, text);
}

function refusal(schema: unknown): { param: string | null; message: string } | null {
  try {
    jsonSchemaGrammar(schema, 's');
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'unsupported_parameter', status: 400 });
    return { param: (err as ApiError).param, message: (err as ApiError).message };
  }
}

const weather = { type: 'object', properties: { temperatureC: { type: 'number' } }, required: ['temperatureC'], additionalProperties: false };

describe('numbers JSON can hold', () => {
  it(
    'the number of issue 38 cannot be written; bounded ones can, on both engines’ formats',
    async () => {
      const accepts = await grammarOf(weather);
      expect(await accepts('{"temperatureC": 3751414141414141e2222222222222222}')).toBe(false);
      for (const n of ['21.5', '-1.25e-7', '0', '-0.5', '1e99', '1E+99', '9999999999999999', '9999999999999999.9999999999999999999999e99']) {
        expect(await accepts(`{"temperatureC": ${n}}`), n).toBe(true);
        expect(Number.isFinite(JSON.parse(`{"temperatureC": ${n}}`).temperatureC)).toBe(true);
      }
      // One digit more than each limit: refused.
      for (const n of [
        '1'.repeat(NUMBER_INTEGER_DIGITS + 1),
        `1.${'1'.repeat(NUMBER_FRACTION_DIGITS + 1)}`,
        `1e${'1'.repeat(NUMBER_EXPONENT_DIGITS + 1)}`,
        '01',
        '1.',
        '.5',
        '+1',
        'Infinity',
        'NaN',
      ]) {
        expect(await accepts(`{"temperatureC": ${n}}`), n).toBe(false);
      }
      // What web-llm ran before: xgrammar's own conversion of the schema lets the issue's number through.
      const { compiler } = await xgrammar();
      expect(await matches(await compiler.compileJSONSchema(JSON.stringify(weather)), '{"temperatureC": 3751414141414141e2222222222222222}')).toBe(true);
      // web-llm's formats now: the grammar as it is, and after Qwen3's thinking block (a structural tag).
      const plain = jsonFormat(weather, false);
      expect(plain.type).toBe('grammar');
      const thinking = jsonFormat(weather, true);
      const compiledPlain = await compiler.compileGrammar(plain.grammar!);
      const compiledThinking = await compiler.compileStructuralTag(JSON.stringify(thinking.structural_tag));
      expect(await matches(compiledPlain, '{"temperatureC": 3751414141414141e2222222222222222}')).toBe(false);
      expect(await matches(compiledPlain, '{"temperatureC": 3751414141414141e22}')).toBe(true);
      expect(await matches(compiledThinking, '<think>\nhot\n</think>\n\n{"temperatureC": 3751414141414141e2222222222222222}')).toBe(false);
      expect(await matches(compiledThinking, '<think>\nhot\n</think>\n\n{"temperatureC": 37.5}')).toBe(true);
      // json_object: any object, its numbers bounded too.
      const object = await compile(jsonObjectGrammar());
      expect(await matches(object, '{"a": [1, {"b": -2.5e10}], "c": "x", "d": null}')).toBe(true);
      expect(await matches(object, '{"a": 1e999}')).toBe(false);
      expect(await matches(object, '[1]')).toBe(false);
    },
    SLOW,
  );

  it(
    'property: every number the grammar accepts parses to a finite double; every double of ordinary size is accepted as JSON writes it',
    async () => {
      const accepts = await grammarOf({ type: 'number' });
      await fc.assert(
        fc.asyncProperty(fc.stringMatching(/^-?[0-9]{1,24}(\.[0-9]{1,20})?([eE][-+]?[0-9]{1,4})?$/), async (text) => {
          if (await accepts(text)) expect(Number.isFinite(JSON.parse(text))).toBe(true);
          else
            expect(text.replace(/^-/, '').split(/[.eE]/)[0]!.length > NUMBER_INTEGER_DIGITS || /[.][0-9]{23}|[eE][-+]?[0-9]{3}|^-?0[0-9]/.test(text)).toBe(
              true,
            );
        }),
        { numRuns: 400 },
      );
      await fc.assert(
        fc.asyncProperty(
          fc.double({ min: -1e15, max: 1e15, noNaN: true }).filter((d) => d === 0 || Math.abs(d) >= 1e-99),
          async (d) => {
            expect(await accepts(JSON.stringify(d)), JSON.stringify(d)).toBe(true);
          },
        ),
        { numRuns: 300 },
      );
    },
    SLOW,
  );

  it(
    'an integer without bounds is held to the integers a double holds exactly (±(2^53 − 1)), zod’s default bounds the same',
    async () => {
      for (const schema of [{ type: 'integer' }, z.toJSONSchema(z.number().int())]) {
        const accepts = await grammarOf(schema);
        expect(String(INTEGER_LIMIT)).toBe('9007199254740991');
        for (const n of ['0', '7', '-7', '9007199254740991', '-9007199254740991']) expect(await accepts(n), n).toBe(true);
        for (const n of ['9007199254740992', '-9007199254740992', '10000000000000000', '1.5', '1e3', '-0', '007']) expect(await accepts(n), n).toBe(false);
      }
    },
    SLOW,
  );
});

describe('thinking first (llama.cpp’s thinking variants)', () => {
  it(
    'a free thinking block that never holds </think>, then the answer; or the answer alone',
    async () => {
      const compiled = await compile(thinkingFirst(jsonSchemaGrammar(weather, 's')));
      const accepts = (text: string) => matches(compiled, text);
      const answer = '{"temperatureC": 21.5}';
      for (const text of [
        answer,
        `<think>\nLet me think.\n</think>\n\n${answer}`,
        `<think></think>${answer}`,
        `<think>a < b, </thin k, <</think>\n${answer}`,
        `<think>x </think </think>${answer}`,
      ]) {
        expect(await accepts(text), text).toBe(true);
      }
      for (const text of [
        `<think>a</think>b</think>${answer}`,
        `<think>a</think>`,
        '<think>a',
        `<think>ok</think>\n{"temperatureC": 3751414141414141e2222222222222222}`,
        `Sure: ${answer}`,
      ]) {
        expect(await accepts(text), text).toBe(false);
      }
    },
    SLOW,
  );
});

describe('minimum and maximum', () => {
  it(
    'an integer range, exhaustively: exactly the integers within (fractional bounds move inward)',
    async () => {
      const cases: [Record<string, number>, (n: number) => boolean][] = [
        [{ minimum: 0, maximum: 120 }, (n) => n >= 0 && n <= 120],
        [{ exclusiveMinimum: -13, exclusiveMaximum: 7 }, (n) => n > -13 && n < 7],
        [{ minimum: -100, maximum: -3 }, (n) => n >= -100 && n <= -3],
        [{ minimum: 2.5, maximum: 99.9 }, (n) => n >= 3 && n <= 99],
        [{ minimum: 199 }, (n) => n >= 199],
        [{ maximum: -199 }, (n) => n <= -199],
      ];
      for (const [bounds, within] of cases) {
        const accepts = await grammarOf({ type: 'integer', ...bounds });
        for (let n = -250; n <= 250; n++) expect(await accepts(String(n)), `${n} in ${JSON.stringify(bounds)}`).toBe(within(n));
      }
    },
    SLOW,
  );

  it(
    'property: random integer ranges hold exactly what is inside',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: -100_000, max: 100_000 }),
          fc.integer({ min: 0, max: 200_000 }),
          fc.array(fc.integer({ min: -300_000, max: 300_000 }), { minLength: 20, maxLength: 20 }),
          async (lo, width, probes) => {
            const hi = lo + width;
            const accepts = await grammarOf({ type: 'integer', minimum: lo, maximum: hi });
            for (const n of [...probes, lo, hi, lo - 1, hi + 1]) expect(await accepts(String(n)), `${n} in [${lo}, ${hi}]`).toBe(n >= lo && n <= hi);
          },
        ),
        { numRuns: 40 },
      );
    },
    SLOW,
  );

  it(
    'a number between whole bounds: exactly the decimals within, inclusive or exclusive',
    async () => {
      const decimals = fc
        .tuple(fc.integer({ min: -130, max: 130 }), fc.option(fc.stringMatching(/^[0-9]{1,5}$/), { nil: undefined }))
        .map(([i, f]) => (f === undefined ? String(i) : `${i < 0 ? '-' : ''}${Math.abs(i)}.${f}`));
      const cases: [Record<string, number>, (x: number) => boolean][] = [
        [{ minimum: -50, maximum: 60 }, (x) => x >= -50 && x <= 60],
        [{ exclusiveMinimum: 0, exclusiveMaximum: 100 }, (x) => x > 0 && x < 100],
        [{ minimum: 0 }, (x) => x >= 0],
        [{ exclusiveMaximum: -1 }, (x) => x < -1],
        [{ minimum: 5, maximum: 5 }, (x) => x === 5],
      ];
      for (const [bounds, within] of cases) {
        const accepts = await grammarOf({ type: 'number', ...bounds });
        const edges = ['-50', '-50.0', '-50.01', '60', '60.000', '60.001', '0', '0.0', '0.001', '100', '99.999', '-1', '-1.0001', '5', '5.0', '5.01', '4.99'];
        await fc.assert(
          fc.asyncProperty(decimals, async (text) => {
            // "-0" is never written; JSON has it, the grammar writes 0.
            if (/^-0(\.0+)?$/.test(text)) return;
            expect(await accepts(text), `${text} in ${JSON.stringify(bounds)}`).toBe(within(Number(text)));
          }),
          { numRuns: 150, examples: edges.map((e) => [e]) },
        );
      }
    },
    SLOW,
  );

  it('refuses what it cannot hold, naming the keyword: a number’s fractional bound, an empty range, bounds that are not numbers', () => {
    expect(refusal({ type: 'number', minimum: 0.5 })?.param).toBe('s.minimum');
    expect(refusal({ type: 'number', exclusiveMaximum: 2.25 })?.param).toBe('s.exclusiveMaximum');
    expect(refusal({ type: 'integer', minimum: 5, maximum: 4 })?.param).toBe('s.maximum');
    expect(refusal({ type: 'number', exclusiveMinimum: 3, maximum: 3 })?.param).toBe('s.maximum');
    expect(refusal({ type: 'integer', minimum: '1' })?.param).toBe('s.minimum');
    expect(refusal({ type: 'number', minimum: -50, maximum: 60 })).toBeNull();
  });
});

describe('schemas as clients write them', () => {
  it(
    'zod / the AI SDK: required, optional and nullable properties, enums, bounded arrays, $ref recursion; valid instances in, invalid out',
    async () => {
      const address = z.object({ street: z.string().min(1).max(40), zip: z.string().regex(/^\d{5}$/) });
      const schema = z.toJSONSchema(
        z.object({
          name: z.string(),
          age: z.number().int().min(0).max(150),
          score: z.number(),
          tags: z.array(z.string()).max(3),
          kind: z.enum(['a', 'b']),
          note: z.string().nullable(),
          at: address.optional(),
          when: z.iso.datetime(),
        }),
      );
      const accepts = await grammarOf(schema);
      const valid = {
        name: 'Ann "A"',
        age: 42,
        score: -3.5,
        tags: ['x', 'y'],
        kind: 'b',
        note: null,
        at: { street: 'Main St', zip: '12345' },
        when: '2026-11-28T00:30:00Z',
      };
      expect(await accepts(JSON.stringify(valid))).toBe(true);
      expect(await accepts(JSON.stringify(valid, null, 2))).toBe(true);
      const { at: _, ...withoutOptional } = valid;
      expect(await accepts(JSON.stringify(withoutOptional))).toBe(true);
      for (const invalid of [
        { ...valid, age: 151 },
        { ...valid, age: 4.5 },
        { ...valid, tags: ['a', 'b', 'c', 'd'] },
        { ...valid, kind: 'c' },
        { ...valid, at: { street: 'Main St', zip: '1234' } },
        { ...valid, at: { street: '', zip: '12345' } },
        { ...valid, when: '2026-13-01T00:00:00Z' },
        { ...valid, extra: 1 },
        { name: 'x' },
      ]) {
        expect(await accepts(JSON.stringify(invalid)), JSON.stringify(invalid)).toBe(false);
      }
      // Recursion through $ref, and zod's email (a pattern that looks ahead, held by its format).
      const node: z.ZodType = z.lazy(() => z.object({ value: z.number(), children: z.array(node) }));
      const tree = await grammarOf(z.toJSONSchema(z.object({ root: node, contact: z.email() }), { reused: 'ref' }));
      expect(await tree(JSON.stringify({ root: { value: 1, children: [{ value: 2, children: [] }] }, contact: 'ann@example.com' }))).toBe(true);
      expect(await tree('{"root": {"value": 1, "children": [{"value": 1e400, "children": []}]}, "contact": "ann@example.com"}')).toBe(false);
      expect(await tree(JSON.stringify({ root: { value: 1, children: [] }, contact: 'not an address' }))).toBe(false);
    },
    SLOW,
  );

  it(
    'property: any object the grammar accepts is valid against its schema (no duplicate, unknown or missing member; values in bounds)',
    async () => {
      const schema = {
        type: 'object',
        properties: {
          a: { type: 'number' },
          b: { type: 'integer', minimum: 0, maximum: 99 },
          c: { type: 'boolean' },
          d: { type: 'array', items: { type: 'integer', minimum: 0, maximum: 9 }, minItems: 1, maxItems: 3 },
        },
        required: ['b'],
        additionalProperties: false,
      };
      const accepts = await grammarOf(schema);
      const validate = (v: Record<string, unknown>, keys: string[]) =>
        new Set(keys).size === keys.length &&
        keys.every((k) => 'abcd'.includes(k)) &&
        Number.isInteger(v.b) &&
        (v.b as number) >= 0 &&
        (v.b as number) <= 99 &&
        (!('a' in v) || typeof v.a === 'number') &&
        (!('c' in v) || typeof v.c === 'boolean') &&
        (!('d' in v) || (Array.isArray(v.d) && v.d.length >= 1 && v.d.length <= 3 && v.d.every((n: number) => Number.isInteger(n) && n >= 0 && n <= 9)));
      let accepted = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'x'), fc.constantFrom('1', '150', 'true', '[1]', '[1,2,3,4]', '[]', '-3', '12')), {
            maxLength: 5,
          }),
          async (members) => {
            const text = `{${members.map(([k, v]) => `"${k}": ${v}`).join(', ')}}`;
            if (!(await accepts(text))) return;
            accepted++;
            expect(
              validate(
                JSON.parse(text) as Record<string, unknown>,
                members.map(([k]) => k),
              ),
              text,
            ).toBe(true);
          },
        ),
        {
          numRuns: 2000,
          examples: [
            [
              [
                ['b', '12'],
                ['c', 'true'],
                ['d', '[1]'],
              ],
            ],
          ],
        },
      );
      // Not a property that holds by accepting nothing.
      expect(accepted).toBeGreaterThan(5);
    },
    SLOW,
  );

  it(
    'patterns: anchored or free at either end, JSON’s escapes for quotes; what a grammar cannot hold is refused',
    async () => {
      expect(await (await grammarOf({ type: 'string', pattern: '^[A-Z]{2}-\\d+$' }))('"AB-12"')).toBe(true);
      expect(await (await grammarOf({ type: 'string', pattern: '^[A-Z]{2}-\\d+$' }))('"ab-12"')).toBe(false);
      expect(await (await grammarOf({ type: 'string', pattern: 'abc' }))('"xxabcyy"')).toBe(true);
      expect(await (await grammarOf({ type: 'string', pattern: '^a"b$' }))('"a\\"b"')).toBe(true);
      expect(await (await grammarOf({ type: 'string', pattern: '^(cat|dog)s?$' }))('"dogs"')).toBe(true);
      expect(await (await grammarOf({ type: 'string', pattern: '^(cat|dog)s?$' }))('"cow"')).toBe(false);
      expect(refusal({ type: 'string', pattern: '^(?!x)a$' })?.param).toBe('s.pattern');
      expect(refusal({ type: 'string', pattern: '^(a)\\1$' })?.param).toBe('s.pattern');
      expect(refusal({ type: 'string', pattern: '\\bword' })?.param).toBe('s.pattern');
    },
    SLOW,
  );

  it('refuses, naming the path, each keyword the grammar cannot hold', () => {
    for (const key of ['not', 'if', 'uniqueItems', 'multipleOf', 'dependentRequired', 'contains', 'minProperties', 'patternProperties', 'propertyNames']) {
      expect(refusal({ type: 'object', properties: { a: { type: 'array', [key]: key === 'uniqueItems' ? true : {} } } })?.param, key).toBe(
        `s.properties.a.${key}`,
      );
    }
    expect(refusal({ allOf: [{ type: 'object' }, { required: ['a'] }] })?.param).toBe('s.allOf');
    expect(refusal({ $ref: 'https://example.com/s.json' })?.param).toBe('s.$ref');
    expect(refusal({ $ref: '#/$defs/missing' })?.param).toBe('s.$ref');
    expect(refusal({ type: 'strang' })?.param).toBe('s.type');
    expect(refusal({ type: 'object', properties: {}, required: ['a'] })?.param).toBe('s.required');
    expect(refusal(false)?.param).toBe('s');
  });
});
