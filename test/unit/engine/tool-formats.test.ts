// The web-llm engine's tool-call formats other than Qwen3's (qwen3-tools.test.ts): Llama 3.x, Mistral and
// Phi-4-mini, each against answers written as its model card documents them, streamed in any chunking (fast-check),
// with text before and after, several calls, and malformed calls left as text; their prompt rendering; their
// grammars, compiled and run by xgrammar (@mlc-ai/web-xgrammar, as web-llm 0.2.86 bundles it); and the registry.
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { prebuiltAppConfig } from '@mlc-ai/web-llm';
import type { FunctionTool, ToolCall } from '#shared/protocol/types';
import { WEBLLM_TOOL_FORMATS } from '#shared/engine-kinds/webllm';
import { TOOL_FORMATS, familyToolFormat, type ParsedPiece, type ToolFormat } from '../../../worker/engine/webllm/tool-formats/registry';
import { pythonJson } from '../../../worker/engine/webllm/tool-formats/grammar';
import { mistralCallId } from '../../../worker/engine/webllm/tool-formats/mistral';
import { CALL_HEAD, callHead } from '../../../worker/engine/common/tool-call-head';
import type { ToolPlan } from '../../../worker/engine/common/plan';
import { matches, xgrammar } from '../fakes/xgrammar';

const SLOW = 60_000;

const weather: FunctionTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};
const time: FunctionTool = { type: 'function', function: { name: 'get_time' } };
const call = (id: string, name: string, args: string): ToolCall => ({ id, type: 'function', function: { name, arguments: args } });

const llama3 = TOOL_FORMATS.llama3!;
const mistral = TOOL_FORMATS.mistral!;
const phi4 = TOOL_FORMATS['phi4-mini']!;

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

function parse(format: ToolFormat, chunks: readonly string[]): ParsedPiece[] {
  const parser = format.parser();
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

/** Every chunking of `text` into pieces of `size` characters, for a few sizes, gives `expected`. */
function expectAnyChunking(format: ToolFormat, text: string, expected: Assembled): void {
  for (const size of [1, 2, 3, 5, 7, 11, text.length]) {
    const chunks = text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];
    expect(assemble(parse(format, chunks)), `chunks of ${size}`).toEqual(expected);
  }
}

describe('the one tool-call head (llama.cpp forced call, web-llm formats)', () => {
  it('reads the name and stops where the arguments begin; Llama 3 also under "parameters"', () => {
    const head = CALL_HEAD.exec('{"name": "get_\\"w", "arguments": {"a": 1}}')!;
    expect(JSON.parse(head[1]!)).toBe('get_"w');
    expect(head[0]).toBe('{"name": "get_\\"w", "arguments": ');
    expect(CALL_HEAD.exec('{"name": "f", "arguments": ')).toBeNull(); // the value has not begun
    expect(CALL_HEAD.exec('{"name": "f", "parameters": {}}')).toBeNull();
    expect(callHead(['parameters', 'arguments']).exec('{ "name" : "f" , "parameters" : {}}')![0]).toBe('{ "name" : "f" , "parameters" : ');
  });
});

describe('Llama 3.x (JSON tool calling, <|python_tag|>)', () => {
  it('renders the tools, a call and its result as the model card does', () => {
    const system = llama3.systemWithTools('Be brief.', [weather]);
    expect(system).toBe(
      'Be brief.\n\nGiven the following functions, please respond with a JSON for a function call with its proper arguments that best answers the given prompt.\n\n' +
        'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}. Do not use variables.\n\n' +
        JSON.stringify({ type: 'function', function: weather.function }, null, 4),
    );
    expect(llama3.assistantText('', [call('c1', 'get_weather', '{"city": "Oslo"}'), call('c2', 'get_time', '')])).toBe(
      '{"name": "get_weather", "parameters": {"city": "Oslo"}}; {"name": "get_time", "parameters": {}}',
    );
    expect(llama3.toolResults([{ id: 'c1', content: 'sunny' }])).toBe('sunny');
  });

  it('reads a bare JSON call, one after <|python_tag|>, several, and text around them, in any chunking', () => {
    expectAnyChunking(llama3, '{"name": "get_weather", "parameters": {"city": "San Francisco, CA"}}', {
      content: '',
      calls: [{ name: 'get_weather', arguments: '{"city": "San Francisco, CA"}' }],
    });
    expectAnyChunking(llama3, '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Oslo"}}', {
      content: '',
      calls: [{ name: 'get_weather', arguments: '{"city": "Oslo"}' }],
    });
    expectAnyChunking(llama3, 'Let me look.\n\n{"name": "get_weather", "parameters": {"city": "Oslo"}}; {"name": "get_time", "parameters": {}}\n\nDone.', {
      content: 'Let me look.Done.',
      calls: [
        { name: 'get_weather', arguments: '{"city": "Oslo"}' },
        { name: 'get_time', arguments: '{}' },
      ],
    });
  });

  it('leaves JSON that is not a call, and a cut-off marker, as text', () => {
    expectAnyChunking(llama3, 'Use {"name": 5} here.', { content: 'Use {"name": 5} here.', calls: [] });
    expectAnyChunking(llama3, 'a <|python_tag|>print(1)', { content: 'a <|python_tag|>print(1)', calls: [] });
    expectAnyChunking(llama3, 'ends with {"na', { content: 'ends with {"na', calls: [] });
  });
});

describe('Mistral ([TOOL_CALLS])', () => {
  it('renders the tools, calls (with 9-character ids) and results as the template does', () => {
    expect(mistral.systemWithTools(null, [time])).toBe('[AVAILABLE_TOOLS][{"type": "function", "function": {"name": "get_time"}}][/AVAILABLE_TOOLS]');
    expect(mistralCallId('call_abc123XYZ789')).toBe('23XYZ789'.padStart(9, '1'));
    expect(mistral.assistantText('', [call('call_000000001', 'get_weather', '{"city": "Oslo"}')])).toBe(
      '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Oslo"}, "id": "000000001"}]',
    );
    expect(mistral.toolResults([{ id: 'call_000000001', content: 'sunny' }])).toBe('[TOOL_RESULTS]{"content": "sunny", "call_id": "000000001"}[/TOOL_RESULTS]');
  });

  it('reads the list of calls, text before and after, and several lists, in any chunking', () => {
    expectAnyChunking(mistral, '[TOOL_CALLS] [{"name": "get_current_weather", "arguments": {"location": "Paris, France", "format": "celsius"}}]', {
      content: '',
      calls: [{ name: 'get_current_weather', arguments: '{"location": "Paris, France", "format": "celsius"}' }],
    });
    expectAnyChunking(
      mistral,
      'Checking. [TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Oslo"}, "id": "abcdefghi"}, {"name": "get_time", "arguments": {}}] then[TOOL_CALLS][{"name": "f", "arguments": {"a": "}]"}}]',
      {
        content: 'Checking.then',
        calls: [
          { name: 'get_weather', arguments: '{"city": "Oslo"}' },
          { name: 'get_time', arguments: '{}' },
          { name: 'f', arguments: '{"a": "}]"}' },
        ],
      },
    );
  });

  it('reads arguments given as a JSON string, keys in another order, and a forced list left open', () => {
    expectAnyChunking(mistral, '[TOOL_CALLS][{"name": "f", "arguments": "{\\"a\\": 1}"}, {"arguments": {"b": 2}, "name": "g"}]', {
      content: '',
      calls: [
        { name: 'f', arguments: '{"a": 1}' },
        { name: 'g', arguments: '{"b":2}' },
      ],
    });
    expectAnyChunking(mistral, '[TOOL_CALLS][{"name": "f", "arguments": {}}, {"name": "g", "arguments": {"x": [1]}}', {
      content: '',
      calls: [
        { name: 'f', arguments: '{}' },
        { name: 'g', arguments: '{"x": [1]}' },
      ],
    });
  });

  it('leaves a marker not followed by a list of calls as text', () => {
    expectAnyChunking(mistral, 'x [TOOL_CALLS] nothing', { content: 'x [TOOL_CALLS] nothing', calls: [] });
    expectAnyChunking(mistral, '[TOOL_CALLS][{"nom": "f"}] y', { content: '[TOOL_CALLS][{"nom": "f"}] y', calls: [] });
  });
});

describe('Phi-4-mini (<|tool_call|>…<|/tool_call|>)', () => {
  it('renders the tools in <|tool|> of the system turn, and calls as the block the model writes', () => {
    expect(phi4.systemWithTools(null, [time])).toBe('You are a helpful assistant with some tools.<|tool|>[{"name": "get_time"}]<|/tool|>');
    expect(phi4.systemWithTools('Be brief.', [weather])).toMatch(/^Be brief\.<\|tool\|>\[\{"name": "get_weather", "description": "Weather", "parameters": /);
    expect(phi4.assistantText('Sure.', [call('c', 'get_time', '{}')])).toBe('Sure.<|tool_call|>[{"name": "get_time", "arguments": {}}]<|/tool_call|>');
  });

  it('reads a block of calls, text around it, in any chunking; a block that is not calls stays text', () => {
    expectAnyChunking(
      phi4,
      'Let me check. <|tool_call|>[{"name": "get_weather", "arguments": {"city": "Oslo"}}, {"name": "get_time", "arguments": {}}]<|/tool_call|> ok',
      {
        content: 'Let me check.ok',
        calls: [
          { name: 'get_weather', arguments: '{"city": "Oslo"}' },
          { name: 'get_time', arguments: '{}' },
        ],
      },
    );
    expectAnyChunking(phi4, '<|tool_call|>oops<|/tool_call|>', { content: '<|tool_call|>oops<|/tool_call|>', calls: [] });
  });
});

describe('every format: any chunking of an answer gives its calls and content, and markup never leaks', () => {
  const textArb = fc
    .string({ unit: fc.constantFrom('a', 'b', ' ', '\n', '<', '>', '|', '[', ']', '{', '}', '"', 't', ';'), maxLength: 24 })
    .map((s) => s.trim())
    .filter((s) => !/\[TOOL_CALLS\]|<\|tool_call\|>|<\|python_tag\|>|\{"name":/.test(s) && !/[<[{]$/.test(s) && !/^[;,\]}]/.test(s));
  const callArb = fc.record({
    name: fc.stringMatching(/^[a-zA-Z0-9_-]{1,12}$/),
    args: fc.jsonValue({ maxDepth: 3 }).map((v) => pythonJson({ v })),
  });
  const answerArb = fc.record({ pre: textArb, calls: fc.array(callArb, { minLength: 1, maxLength: 3 }), post: textArb });
  const formats: [string, ToolFormat, RegExp][] = [
    ['llama3', llama3, /<\|python_tag\|>|"parameters"/],
    ['mistral', mistral, /\[TOOL_CALLS\]/],
    ['phi4-mini', phi4, /<\|\/?tool_call\|>/],
  ];
  for (const [name, format, markup] of formats) {
    it(
      name,
      () => {
        fc.assert(
          fc.property(answerArb, fc.array(fc.nat(), { maxLength: 12 }), ({ pre, calls, post }, points) => {
            const rendered = format.assistantText(
              '',
              calls.map((c, i) => call(`call_${i}`, c.name, c.args)),
            );
            const answer = [pre, rendered, post].filter((s) => s.length > 0).join('\n');
            const pieces = parse(format, cut(answer, points));
            const result = assemble(pieces);
            expect(result.calls).toEqual(calls.map((c) => ({ name: c.name, arguments: c.args })));
            expect(result.content).toBe(pre + post);
            for (const piece of pieces) if (piece.type === 'text') expect(piece.text).not.toMatch(markup);
          }),
          { numRuns: 200 },
        );
      },
      SLOW,
    );
  }
});

// xgrammar: the grammars web-llm compiles from these formats, run on what each model writes.
let compiler: Awaited<ReturnType<typeof xgrammar>>['compiler'];
beforeAll(async () => {
  compiler = (await xgrammar()).compiler;
}, SLOW);

async function accepts(format: ToolFormat, plan: ToolPlan, text: string): Promise<boolean> {
  const tag = format.toolCallFormat(plan, false) as { structural_tag: unknown };
  return matches(await compiler.compileStructuralTag(JSON.stringify(tag.structural_tag)), text);
}

describe('grammars (xgrammar): forced calls are calls of the tools, with arguments of their schemas', () => {
  const plan = (mode: ToolPlan['mode'], parallel = true): ToolPlan => ({
    tools: [weather, time],
    mode,
    parallel,
    ...(mode === 'named' ? { name: 'get_weather' } : {}),
  });
  const cases: [string, ToolFormat][] = [
    ['llama3', llama3],
    ['mistral', mistral],
    ['phi4-mini', phi4],
  ];
  for (const [name, format] of cases) {
    it(
      name,
      async () => {
        const oslo = call('c1', 'get_weather', '{"city": "Oslo"}');
        const both = [oslo, call('c2', 'get_time', '{}')];
        // What the model writes is what the grammar holds it to (Mistral's history adds ids the model does not write).
        const written = (calls: ToolCall[]) => format.assistantText('', calls).replace(/, "id": "\w{9}"/g, '');
        // A forced answer ends with its last call: xgrammar holds nothing after a list of tags, so the list is left open.
        const forced = (calls: ToolCall[]) => written(calls).replace(/\](<\|\/tool_call\|>)?$/, '');
        expect(await accepts(format, plan('required'), forced([oslo]))).toBe(true);
        expect(await accepts(format, plan('required'), 'Just text.')).toBe(false);
        expect(await accepts(format, plan('required'), forced([call('c', 'get_weather', '{"town": "Oslo"}')]))).toBe(false);
        expect(await accepts(format, plan('named'), forced([call('c', 'get_time', '{}')]))).toBe(false);
        expect(await accepts(format, plan('named'), forced([oslo]))).toBe(true);
        expect(await accepts(format, plan('required'), forced(both))).toBe(true);
        expect(await accepts(format, plan('required', false), forced(both))).toBe(false);
        expect(await accepts(format, plan('auto'), 'Just text.')).toBe(true);
        expect(await accepts(format, plan('auto'), `Sure. ${written([oslo])}`)).toBe(true);
        expect(await accepts(format, plan('auto'), written([call('c', 'nope', '{}')]))).toBe(false);
        // Every answer the grammar lets through is read back as the calls it holds.
        expect(assemble(parse(format, [forced(both)])).calls).toEqual([
          { name: 'get_weather', arguments: '{"city": "Oslo"}' },
          { name: 'get_time', arguments: '{}' },
        ]);
      },
      SLOW,
    );
  }
});

describe('the registry', () => {
  it('has a format for every name the config accepts, and none for `none`', () => {
    expect(Object.keys(TOOL_FORMATS).sort()).toEqual([...WEBLLM_TOOL_FORMATS].sort());
    expect(TOOL_FORMATS.none).toBeNull();
  });

  it("gives web-llm's prebuilt chat models their family's format", () => {
    const ids = prebuiltAppConfig.model_list.map((r) => r.model_id);
    const of = (prefix: string) => familyToolFormat(ids.find((id) => id.startsWith(prefix))!);
    expect(
      ['Qwen3-8B', 'Qwen2.5-7B-Instruct', 'Hermes-2-Pro-Mistral-7B', 'Hermes-3-Llama-3.1-8B', 'Llama-3.1-8B', 'Llama-3.2-1B', 'Mistral-7B-Instruct-v0.3'].map(
        of,
      ),
    ).toEqual(['qwen3', 'qwen3', 'qwen3', 'qwen3', 'llama3', 'llama3', 'mistral']);
    expect(['Phi-4-mini', 'Phi-3.5-mini', 'gemma-2-2b-it', 'Llama-3-8B-Instruct', 'Qwen3.5-2B', 'SmolLM2-1.7B'].map(of)).toEqual([
      'phi4-mini',
      'none',
      'none',
      'none',
      'none',
      'none',
    ]);
  });
});
