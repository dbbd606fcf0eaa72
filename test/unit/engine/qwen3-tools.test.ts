// Qwen3's tool format on web-llm (issue 10): the prompt rendering, the streaming parser (fast-check: any chunking
// gives the same calls and content, and markup never leaks) and the grammars, compiled and run by xgrammar
// (@mlc-ai/web-xgrammar, the version web-llm 0.2.86 bundles).
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ToolCallParser, type ParsedPiece } from '../../../worker/engine/webllm/tool-formats/qwen3-parser';
import { assistantText, renderCall, systemWithTools, toolCallFormat, toolResponses } from '../../../worker/engine/webllm/tool-formats/qwen3';
import { jsonFormat, pythonJson } from '../../../worker/engine/webllm/tool-formats/grammar';
import type { FunctionTool } from '#shared/protocol/types';
import { checkSchema } from '../../../worker/engine/common/json-grammar';
import { z } from 'zod';
import { matches, xgrammar } from '../fakes/xgrammar';

// Compiling grammars and the property runs take seconds on a loaded machine: these tests get room.
const SLOW = 60_000;

const weather: FunctionTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

describe('rendering in Qwen3 chat template format', () => {
  it('lists the tools in the system turn as the template does', () => {
    expect(systemWithTools('Be brief.', [weather])).toBe(
      'Be brief.\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
        'You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n' +
        '{"type": "function", "function": {"name": "get_weather", "description": "Weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}\n' +
        '</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n' +
        '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>',
    );
    expect(systemWithTools(null, [weather]).startsWith('# Tools\n\n')).toBe(true);
    expect(pythonJson({ a: [1, 'x', null, { b: true }], u: undefined })).toBe('{"a": [1, "x", null, {"b": true}]}');
  });

  it('writes an assistant turn with calls and tool results as the template does', () => {
    const call = (name: string, args: string) => ({ id: 'c', type: 'function' as const, function: { name, arguments: args } });
    expect(assistantText('', [call('get_weather', '{"city": "Oslo"}')])).toBe(
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>',
    );
    expect(assistantText('Looking.', [call('a', '{}'), call('b', '')])).toBe(
      'Looking.\n<tool_call>\n{"name": "a", "arguments": {}}\n</tool_call>\n<tool_call>\n{"name": "b", "arguments": {}}\n</tool_call>',
    );
    expect(toolResponses(['sunny', '12:00'])).toBe('<tool_response>\nsunny\n</tool_response>\n<tool_response>\n12:00\n</tool_response>');
  });
});

interface Assembled {
  content: string;
  calls: { name: string; arguments: string }[];
}

function assemble(pieces: ParsedPiece[]): Assembled {
  const out: Assembled = { content: '', calls: [] };
  for (const piece of pieces) {
    if (piece.type === 'text') out.content += piece.text;
    else if (piece.type === 'call') out.calls[piece.index] = { name: piece.name, arguments: '' };
    else out.calls[piece.index]!.arguments += piece.arguments;
  }
  return out;
}

function parseChunks(chunks: readonly string[]): ParsedPiece[] {
  const parser = new ToolCallParser();
  return [...chunks.flatMap((c) => parser.push(c)), ...parser.end()];
}

/** Splits `text` at the given cut points. */
function cut(text: string, points: number[]): string[] {
  const at = [...new Set(points.map((p) => p % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const p of at) {
    out.push(text.slice(from, p));
    from = p;
  }
  out.push(text.slice(from));
  return out;
}

describe('the streaming tool-call parser', () => {
  it('parses text, then calls, into pieces; a call opens with its name before its arguments', () => {
    const answer = `Let me check.\n${renderCall('get_weather', '{"city": "Oslo"}')}\n${renderCall('get_time', '{}')}`;
    const pieces = parseChunks([answer]);
    expect(pieces[0]).toEqual({ type: 'text', text: 'Let me check.' });
    expect(pieces[1]).toEqual({ type: 'call', index: 0, name: 'get_weather' });
    expect(assemble(pieces)).toEqual({
      content: 'Let me check.',
      calls: [
        { name: 'get_weather', arguments: '{"city": "Oslo"}' },
        { name: 'get_time', arguments: '{}' },
      ],
    });
  });

  it('streams arguments in fragments as they arrive', () => {
    const parser = new ToolCallParser();
    const seen = ['<tool_call>\n{"name": "f", "arguments": {"a"', ': [1, {"b": 2}', ']}', '}\n</tool', '_call>'].map((c) => parser.push(c));
    expect(seen[0]).toEqual([
      { type: 'call', index: 0, name: 'f' },
      { type: 'arguments', index: 0, arguments: '{"a"' },
    ]);
    expect(seen[1]).toEqual([{ type: 'arguments', index: 0, arguments: ': [1, {"b": 2' }]);
    expect(seen[2]).toEqual([{ type: 'arguments', index: 0, arguments: '}]' }]);
    expect(seen[3]).toEqual([{ type: 'arguments', index: 0, arguments: '}' }]);
    expect(seen[4]).toEqual([]);
  });

  it('keeps text that only looks like the start of a block, and reads a block of another shape whole', () => {
    expect(assemble(parseChunks(['a <tool', ' b <tool_c']))).toEqual({ content: 'a <tool b <tool_c', calls: [] });
    expect(assemble(parseChunks(['<tool_call>{"arguments": {"x": 1}, "name": "g"}</tool_call>']))).toEqual({
      content: '',
      calls: [{ name: 'g', arguments: '{"x":1}' }],
    });
  });

  const textArb = fc
    .string({ unit: fc.constantFrom('a', 'b', ' ', '\n', '<', '>', '/', '{', '}', '"', 't', 'o', 'l', '_', 'c'), maxLength: 30 })
    .map((s) => s.trim())
    .filter((s) => !s.includes('<tool_call>'));
  const callArb = fc.record({
    name: fc.stringMatching(/^[a-zA-Z0-9_-]{1,12}$/),
    args: fc.jsonValue({ maxDepth: 3 }).map((v) => pythonJson({ v })),
  });
  const answerArb = fc.record({ pre: textArb, calls: fc.array(callArb, { maxLength: 3 }), post: textArb });

  it(
    'property: any chunking gives the calls and content of the whole answer, and markup never leaks',
    () => {
      fc.assert(
        fc.property(answerArb, fc.array(fc.nat(), { maxLength: 12 }), ({ pre, calls, post }, points) => {
          const blocks = calls.map((c) => renderCall(c.name, c.args));
          const answer = [pre, ...blocks, post].filter((s, i, all) => s.length > 0 || (i > 0 && i < all.length - 1)).join('\n');
          const pieces = parseChunks(cut(answer, points));
          const result = assemble(pieces);
          expect(result).toEqual(assemble(parseChunks([answer])));
          expect(result.calls).toEqual(calls.map((c) => ({ name: c.name, arguments: c.args })));
          expect(result.content).toBe(calls.length > 0 ? pre + post : answer);
          for (const piece of pieces) {
            if (piece.type === 'text') expect(piece.text).not.toMatch(/<\/?tool_call>/);
          }
        }),
        { numRuns: 300 },
      );
    },
    SLOW,
  );
});

// xgrammar: the grammars web-llm compiles from these formats, run on the strings Qwen3 would write.
let compiler: Awaited<ReturnType<typeof xgrammar>>['compiler'];
beforeAll(async () => {
  compiler = (await xgrammar()).compiler;
}, SLOW);

async function accepts(format: ReturnType<typeof toolCallFormat>, text: string): Promise<boolean> {
  const grammar =
    format.type === 'structural_tag'
      ? await compiler.compileStructuralTag(JSON.stringify(format.structural_tag))
      : format.type === 'grammar'
        ? await compiler.compileGrammar(format.grammar!)
        : await compiler.compileJSONSchema(format.schema ?? '{"type": "object"}');
  return matches(grammar, text);
}

describe('grammars (xgrammar, as web-llm 0.2.86 compiles them)', () => {
  const time: FunctionTool = { type: 'function', function: { name: 'get_time' } };
  const plan = (mode: 'auto' | 'required' | 'named', parallel = true) => ({
    tools: [weather, time],
    mode,
    parallel,
    ...(mode === 'named' ? { name: 'get_weather' } : {}),
  });
  const oslo = renderCall('get_weather', '{"city": "Oslo"}');

  it(
    'auto: free text, or calls whose arguments match their schema',
    async () => {
      const auto = toolCallFormat(plan('auto'), false);
      expect(await accepts(auto, 'Just text.')).toBe(true);
      expect(await accepts(auto, `Sure.\n${oslo}`)).toBe(true);
      expect(await accepts(auto, `${oslo}\n${renderCall('get_time', '{}')}`)).toBe(true);
      expect(await accepts(auto, renderCall('get_weather', '{"town": "Oslo"}'))).toBe(false);
      expect(await accepts(auto, renderCall('nope', '{}'))).toBe(false);
      expect(await accepts(toolCallFormat(plan('auto'), true), `<think>\nhm\n</think>\n\n${oslo}`)).toBe(true);
    },
    SLOW,
  );

  it(
    'required and named: only calls (after thinking); one when parallel calls are off',
    async () => {
      const required = toolCallFormat(plan('required'), false);
      expect(await accepts(required, oslo)).toBe(true);
      expect(await accepts(required, 'Just text.')).toBe(false);
      expect(await accepts(required, `${oslo}\n${renderCall('get_time', '{}')}`)).toBe(true);
      expect(await accepts(toolCallFormat(plan('required', false), false), `${oslo}\n${renderCall('get_time', '{}')}`)).toBe(false);
      const named = toolCallFormat(plan('named'), false);
      expect(await accepts(named, oslo)).toBe(true);
      expect(await accepts(named, renderCall('get_time', '{}'))).toBe(false);
      const thinking = toolCallFormat(plan('required'), true);
      expect(await accepts(thinking, `<think>\nLet me see.\n</think>\n\n${oslo}`)).toBe(true);
      expect(await accepts(thinking, '<think>\nLet me see.\n</think>\n\nNo.')).toBe(false);
    },
    SLOW,
  );

  it(
    'json_schema: the schema, after thinking on thinking variants',
    async () => {
      const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false };
      expect(await accepts(jsonFormat(schema, false), '{"n": 3}')).toBe(true);
      expect(await accepts(jsonFormat(schema, false), '{"m": 3}')).toBe(false);
      expect(await accepts(jsonFormat(schema, true), '<think>\nok\n</think>\n\n{"n": 3}')).toBe(true);
      expect(await accepts(jsonFormat(schema, true), '<think>\nok\n</think>\n\nthree')).toBe(false);
    },
    SLOW,
  );
});

describe('schema keywords the grammar engine holds output to', () => {
  const compiles = async (schema: unknown) => {
    const grammar = await compiler.compileJSONSchema(JSON.stringify(schema));
    return grammar !== undefined;
  };
  const refusal = (schema: unknown): string | null => {
    try {
      checkSchema(schema, 's');
      return null;
    } catch (err) {
      expect(err).toMatchObject({ code: 'unsupported_parameter' });
      return (err as { param: string }).param;
    }
  };

  it(
    'accepts schemas as zod, the AI SDK and LangChain emit them ($schema, title, additionalProperties, $defs/$ref, anyOf, enums), and xgrammar compiles them',
    async () => {
      const address = z.object({ street: z.string().min(1), zip: z.string().regex(/^\d{5}$/) });
      const schemas = [
        z.toJSONSchema(
          z.object({
            name: z.string(),
            age: z.number().int(),
            tags: z.array(z.string()).max(3),
            kind: z.enum(['a', 'b']),
            note: z.string().nullable(),
            at: address.optional(),
          }),
        ),
        z.toJSONSchema(z.object({ home: address, work: address }), { reused: 'ref' }),
        {
          title: 'T',
          description: 'd',
          type: 'object',
          properties: { x: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null } },
          required: ['x'],
          additionalProperties: false,
          $schema: 'http://json-schema.org/draft-07/schema#',
        },
        {
          type: 'object',
          properties: { n: { $ref: '#/definitions/N' } },
          definitions: { N: { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 } },
        },
      ];
      for (const schema of schemas) {
        expect(refusal(schema), JSON.stringify(schema)).toBeNull();
        expect(await compiles(schema)).toBe(true);
      }
    },
    SLOW,
  );

  it(
    'refuses, naming the keyword, what xgrammar would leave unenforced (shown here: it accepts invalid output)',
    async () => {
      const cases: [Record<string, unknown>, string, string][] = [
        [{ type: 'object', properties: { n: { type: 'integer', multipleOf: 3 } } }, 's.properties.n.multipleOf', '{"n": 4}'],
        [{ type: 'array', items: { type: 'string' }, uniqueItems: true }, 's.uniqueItems', '["a", "a"]'],
        [{ not: { type: 'string' } }, 's.not', '"x"'],
        [{ type: 'number', minimum: 2.5 }, 's.minimum', '1.5'],
        [{ allOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { required: ['a'] }] }, 's.allOf', '{}'],
        [
          { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, dependentRequired: { a: ['b'] } },
          's.dependentRequired',
          '{"a": "x"}',
        ],
        [{ $ref: 'https://example.com/s.json' }, 's.$ref', '5'],
      ];
      for (const [schema, param, invalid] of cases) {
        expect(refusal(schema)).toBe(param);
        expect(await accepts({ type: 'json_object', schema: JSON.stringify(schema) }, invalid), `${param} unenforced`).toBe(true);
      }
      // Would abort xgrammar's compiler: refused before it gets there.
      expect(refusal({ type: 'strang' })).toBe('s.type');
      expect(refusal({ type: 'object', minProperties: 1 })).toBe('s.minProperties');
    },
    SLOW,
  );
});
