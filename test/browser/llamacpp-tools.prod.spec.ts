// Tool calling on the real llama.cpp engine (production build, CPU, a GGUF synthesized here whose ChatML
// template renders tools): a forced choice (`required`, or a named function) is a call from the first token,
// held to the tool's schema by llama.cpp's grammar, not text the model may or may not follow with a call; and a
// history holding a call cut short by max_tokens (arguments that are not JSON), as the Agents SDK replays it,
// is rendered and answered, never a 500. The synthesized model answers random text: only the grammar can make
// its calls match the schema, so they are checked with ajv.
import { expect, test, type Page } from '@playwright/test';
import Ajv from 'ajv';
import { synthesizeGguf } from '../../scripts/gguf/synthesize';
import { chat, sseEvents } from './helpers';
import { llamaCppDeployment, ggufPath } from './llamacpp-deployment';
import { count, weather } from '../fixtures/tools';

interface ToolCall {
  id: string;
  type: string;
  function: { name: string; arguments: string };
}
interface Completion {
  object: string;
  choices: { message: { content: string | null; tool_calls?: ToolCall[] }; finish_reason: string }[];
  usage: { prompt_tokens: number; completion_tokens: number };
}
interface Chunk {
  choices: {
    delta: { content?: string | null; tool_calls?: { index: number; id?: string; function: { name?: string; arguments?: string } }[] };
    finish_reason: string | null;
  }[];
}

test.describe.configure({ mode: 'serial' });

const deployment = llamaCppDeployment({
  port: 4660,
  prefix: 'tools',
  files: (put) => put(ggufPath('qwen3-1.7b'), synthesizeGguf({ seed: 7 }).bytes),
});

const tools = [weather, count];
const ajv = new Ajv({ strict: true });
const validators = Object.fromEntries(tools.map((t) => [t.function.name, ajv.compile(t.function.parameters)]));

/** The call's arguments parse and match its tool's schema (ajv's errors in the failure message). */
function expectValidCall(call: { name: string; arguments: string }, name?: string): void {
  if (name) expect(call.name).toBe(name);
  const validate = validators[call.name];
  expect(validate, `a call of an offered tool, got ${call.name}`).toBeDefined();
  const args: unknown = JSON.parse(call.arguments);
  expect(validate!(args), `${call.arguments}: ${JSON.stringify(validate!.errors)}`).toBe(true);
}

async function streamed(
  page: Page,
  key: string,
  body: Record<string, unknown>,
): Promise<{ calls: { name: string; arguments: string }[]; finish: string | null; text: string }> {
  const answer = await chat(page, key, { ...body, stream: true });
  expect(answer.status).toBe(200);
  const chunks = sseEvents(answer.text)
    .slice(0, -1)
    .map((e) => JSON.parse(e) as Chunk);
  const calls: { name: string; arguments: string }[] = [];
  let text = '';
  for (const chunk of chunks) {
    const delta = chunk.choices[0]?.delta;
    text += delta?.content ?? '';
    for (const part of delta?.tool_calls ?? []) {
      calls[part.index] ??= { name: '', arguments: '' };
      calls[part.index]!.name += part.function.name ?? '';
      calls[part.index]!.arguments += part.function.arguments ?? '';
    }
  }
  return { calls, finish: chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason ?? null, text };
}

test('llama.cpp: tool_choice "required" and a named function give a call matching the schema from the first token, streamed or not', async () => {
  test.setTimeout(180_000);
  const { page, key } = await deployment.open();
  const prompts = ['Weather in Paris?', 'How many red ones?'];
  const choices: { tool_choice: unknown; name?: string }[] = [
    { tool_choice: 'required' },
    { tool_choice: { type: 'function', function: { name: 'count_items' } }, name: 'count_items' },
    { tool_choice: { type: 'function', function: { name: 'get_weather' } }, name: 'get_weather' },
  ];
  for (const [i, prompt] of prompts.entries()) {
    for (const { tool_choice, name } of choices) {
      for (const model of ['svc-model-5.2-short-fast', 'svc-model-5.2-short']) {
        const body = {
          model,
          messages: [{ role: 'user', content: prompt }],
          tools,
          tool_choice,
          parallel_tool_calls: false,
          temperature: 1,
          seed: 11 + i,
          max_tokens: 80,
        };
        const what = `${model} ${JSON.stringify(tool_choice)} "${prompt}"`;
        const answer = await chat(page, key, body);
        expect(answer.status, what).toBe(200);
        const choice = (answer.json as Completion).choices[0]!;
        expect(choice.finish_reason, `${what}: ${JSON.stringify(choice.message)}`).toBe('tool_calls');
        expect(choice.message.content, what).toBeNull();
        expect(choice.message.tool_calls, what).toHaveLength(1);
        expectValidCall(choice.message.tool_calls![0]!.function, name);
        const stream = await streamed(page, key, body);
        expect(stream.finish, `${what} (streamed): ${stream.text}`).toBe('tool_calls');
        expect(stream.text, what).toBe('');
        expect(stream.calls, what).toHaveLength(1);
        expectValidCall(stream.calls[0]!, name);
      }
    }
  }
  await page.context().close();
});

test('llama.cpp: a history replaying a call cut by max_tokens (arguments not JSON) is rendered and answered, as OpenAI does', async () => {
  const { page, key } = await deployment.open();
  const history = (args: string) => ({
    model: 'svc-model-5.2-short-fast',
    temperature: 0,
    max_tokens: 4,
    tools,
    messages: [
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_cut', type: 'function', function: { name: 'get_weather', arguments: args } }] },
      { role: 'user', content: 'Go on.' },
    ],
  });
  const promptTokens = async (args: string) => {
    const answer = await chat(page, key, history(args));
    expect(answer.status, `${args}: ${answer.text}`).toBe(200);
    const completion = answer.json as Completion;
    expect(completion.object).toBe('chat.completion');
    expect(typeof completion.choices[0]!.message.content).toBe('string');
    return completion.usage.prompt_tokens;
  };
  // Rendered as written: the cut call's prompt lies between the empty call's and the whole call's.
  const [empty, cut, whole] = [await promptTokens(''), await promptTokens('{"city": "Os'), await promptTokens('{"city": "Oslo", "unit": "c"}')];
  expect(cut).toBeGreaterThan(empty);
  expect(cut).toBeLessThan(whole);
  // Not JSON, not an object, or JSON llama.cpp cannot read (a lone surrogate's escape): answered all the same.
  for (const args of ['not json at all', '{"city": "Oslo"}}', '[1, 2', '"\\ud800"', '{"a": "\\udc00"}']) await promptTokens(args);
  await page.context().close();
});
