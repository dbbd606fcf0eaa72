// Numbers JSON can hold, on real llama.cpp (issue 38): the synthesized Q4_K model's random weights write digits
// freely, and with llama.cpp's own conversion of a schema they ran on into numbers JSON.parse reads as Infinity
// (`3751414141414141e2222222222222222`). inpage's grammar (worker/engine/common/json-grammar.ts), sent to
// llama.cpp as GBNF, bounds every number and holds integer bounds: every answer here parses, every number is
// finite, and each matches its schema (ajv), over many seeds, for json_schema and for a forced tool call.
import { expect, test } from '@playwright/test';
import Ajv from 'ajv';
import { synthesizeGguf } from '../../scripts/gguf/synthesize';
import { chat } from './helpers';
import { llamaCppDeployment, ggufPath } from './llamacpp-deployment';

test.describe.configure({ mode: 'serial' });

const model = synthesizeGguf({ seed: 7 });
const deployment = llamaCppDeployment({
  port: 4599,
  prefix: 'gguf',
  files: async (put) => {
    await put(ggufPath('qwen3-1.7b'), model.bytes);
  },
});

interface Completion {
  choices: {
    message: { content: string | null; reasoning_content?: string; tool_calls?: { function: { name: string; arguments: string } }[] };
    finish_reason: string;
  }[];
}

const weather = {
  type: 'object',
  properties: {
    temperatureC: { type: 'number' },
    humidity: { type: 'integer', minimum: 0, maximum: 100 },
    pressure: { type: 'number', minimum: 870, maximum: 1085 },
    readings: { type: 'array', items: { type: 'number' }, maxItems: 3 },
  },
  required: ['temperatureC', 'humidity', 'pressure', 'readings'],
  additionalProperties: false,
};

/** Every number in a parsed JSON value. */
function numbersIn(value: unknown): number[] {
  if (typeof value === 'number') return [value];
  if (Array.isArray(value)) return value.flatMap(numbersIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(numbersIn);
  return [];
}

test('json_schema and a forced tool call on llama.cpp: every answer parses, every number is finite and within its bounds', async () => {
  test.setTimeout(600_000);
  const { page, key } = await deployment.open();
  const validate = new Ajv().compile(weather);
  const seen: string[] = [];
  for (let seed = 1; seed <= 12; seed++) {
    const answer = await chat(page, key, {
      model: 'svc-model-5.2-short-fast',
      messages: [{ role: 'user', content: 'The weather as JSON, please.' }],
      temperature: 1.5,
      seed,
      max_tokens: 400,
      response_format: { type: 'json_schema', json_schema: { name: 'weather', schema: weather, strict: true } },
    });
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    const choice = (answer.json as Completion).choices[0]!;
    const text = choice.message.content ?? '';
    seen.push(text);
    // The grammar bounds every production but whitespace between tokens: the answer ends well inside 400 tokens.
    expect(choice.finish_reason, text).toBe('stop');
    const value = JSON.parse(text) as unknown;
    expect(validate(value), `${text}: ${JSON.stringify(validate.errors)}`).toBe(true);
    for (const n of numbersIn(value)) expect(Number.isFinite(n), text).toBe(true);
  }
  // Random weights write digits: the answers carry numbers of several lengths, not one memorised value.
  expect(new Set(seen).size).toBeGreaterThan(6);

  // A variant that thinks thinks first (the grammar lets the block come before the answer; llama.cpp splits it off
  // as reasoning), then answers within the schema.
  for (let seed = 1; seed <= 3; seed++) {
    const answer = await chat(page, key, {
      model: 'svc-model-5.2-short',
      messages: [{ role: 'user', content: 'The weather as JSON, please.' }],
      temperature: 0,
      seed,
      max_tokens: 400,
      response_format: { type: 'json_schema', json_schema: { name: 'weather', schema: weather, strict: true } },
    });
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    const choice = (answer.json as Completion).choices[0]!;
    expect(choice.message.reasoning_content).toBe('Let me think.');
    expect(choice.finish_reason, choice.message.content ?? '').toBe('stop');
    const value = JSON.parse(choice.message.content ?? '') as unknown;
    expect(validate(value), `${choice.message.content}: ${JSON.stringify(validate.errors)}`).toBe(true);
  }

  // A forced call: its arguments are held by the same grammar (the call object's schema).
  const tool = { type: 'function', function: { name: 'report', parameters: weather } };
  for (let seed = 1; seed <= 4; seed++) {
    const answer = await chat(page, key, {
      model: 'svc-model-5.2-short-fast',
      messages: [{ role: 'user', content: 'Report the weather.' }],
      tools: [tool],
      tool_choice: 'required',
      temperature: 1.5,
      seed,
      max_tokens: 400,
    });
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    const choice = (answer.json as Completion).choices[0]!;
    expect(choice.finish_reason, JSON.stringify(choice.message)).toBe('tool_calls');
    const args = JSON.parse(choice.message.tool_calls![0]!.function.arguments) as unknown;
    expect(validate(args), `${choice.message.tool_calls![0]!.function.arguments}: ${JSON.stringify(validate.errors)}`).toBe(true);
    for (const n of numbersIn(args)) expect(Number.isFinite(n)).toBe(true);
  }
});

test('a schema keyword the grammar cannot hold is refused before llama.cpp is asked, naming it', async () => {
  const { page, key } = await deployment.open();
  const answer = await chat(page, key, {
    model: 'svc-model-5.2-short-fast',
    messages: [{ role: 'user', content: 'x' }],
    response_format: { type: 'json_schema', json_schema: { name: 'n', schema: { type: 'object', properties: { n: { type: 'number', minimum: 0.5 } } } } },
  });
  expect(answer.status).toBe(400);
  expect((answer.json as { error: { code: string; param: string } }).error).toMatchObject({
    code: 'unsupported_parameter',
    param: 'response_format.json_schema.schema.properties.n.minimum',
  });
});
