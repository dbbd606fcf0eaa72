// Tool-call formats through /v1 (issue 49): a deployment maps ids to a Llama 3.x and a Mistral model; in the test
// build their answers come from the web-llm engine itself over the typed fake of web-llm (test/engine/
// webllm-over-the-fake.ts), its model writing the calls in its own format, so what reaches the client is what
// production's translation, grammar and parser make of them. A model without a format refuses tools; a format
// name the engine does not know stops the page, naming the field.
import { expect, test } from '@playwright/test';
import { auth, call, chat, deployConfig, makeKey, openApp, sseEvents } from './helpers';
import { expectSchema } from './schema';

const MODELS = {
  'team/llama': { webllm: 'Llama-3.2-1B-Instruct-q4f32_1-MLC' },
  'team/mistral': { webllm: 'Mistral-7B-Instruct-v0.3-q4f32_1-MLC' },
  'team/gemma': { webllm: 'gemma-2-2b-it-q4f32_1-MLC' },
};

const weather = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

interface Completion {
  system_fingerprint: string;
  choices: { message: { content: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[] }; finish_reason: string }[];
}
type Chunk = {
  choices: { delta: { tool_calls?: { index: number; id?: string; function: { name?: string; arguments: string } }[] }; finish_reason: string | null }[];
};

for (const [model, real] of [
  ['team/llama', 'Llama-3.2-1B-Instruct-q4f32_1-MLC'],
  ['team/mistral', 'Mistral-7B-Instruct-v0.3-q4f32_1-MLC'],
] as const) {
  test(`${model}: a forced tool call and a streamed one, read from its own format`, async ({ page, context }) => {
    await deployConfig(context, { models: MODELS });
    await openApp(page);
    const key = await makeKey(page);

    const forced = await chat(page, key, { model, messages: [{ role: 'user', content: 'weather?' }], tools: [weather], tool_choice: 'required' });
    expect(forced.status, forced.text).toBe(200);
    expectSchema('CreateChatCompletionResponse', forced.json);
    const completion = forced.json as Completion;
    // The web-llm engine answered (its fingerprint names the model as web-llm's does), not the deterministic one.
    expect(completion.system_fingerprint).toBe(`fp_${real}`);
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls!.map((c) => ({ name: c.function.name, arguments: JSON.parse(c.function.arguments) as unknown }))).toEqual([
      { name: 'get_weather', arguments: { city: 'a' } },
    ]);

    const streamed = await call(page, '/v1/chat/completions', {
      method: 'POST',
      headers: auth(key),
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'get_weather please' }], tools: [weather], stream: true }),
    });
    expect(streamed.status, streamed.text).toBe(200);
    const chunks = sseEvents(streamed.text)
      .slice(0, -1)
      .map((e) => JSON.parse(e) as Chunk);
    for (const chunk of chunks) expectSchema('CreateChatCompletionStreamResponse', chunk);
    const pieces = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(pieces[0]).toMatchObject({ index: 0, id: expect.stringMatching(/^call_/), function: { name: 'get_weather', arguments: '' } });
    expect(pieces.length).toBeGreaterThan(2); // the arguments in fragments, as the model wrote them
    expect(JSON.parse(pieces.map((p) => p.function.arguments).join(''))).toEqual({ city: 'a' });
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');
    // No markup of the format reaches the client.
    expect(streamed.text).not.toMatch(/TOOL_CALLS|python_tag|\\"parameters\\"/);
  });
}

test('a model without a tool format refuses tools with 400; an unknown toolFormat stops the page naming the field', async ({ page, context }) => {
  await deployConfig(context, { models: MODELS });
  await openApp(page);
  const key = await makeKey(page);
  const refused = await chat(page, key, { model: 'team/gemma', messages: [{ role: 'user', content: 'get_weather' }], tools: [weather] });
  expect(refused.status).toBe(400);
  expectSchema('ErrorResponse', refused.json);
  expect((refused.json as { error: Record<string, unknown> }).error).toMatchObject({ code: 'unsupported_parameter', param: 'tools' });
  const none = await chat(page, key, { model: 'team/gemma', messages: [{ role: 'user', content: 'count 2' }], tools: [weather], tool_choice: 'none' });
  expect(none.status).toBe(200);
  expect((none.json as Completion).choices[0]!.message.content).toBe('1 2');

  await deployConfig(context, { models: { 'team/llama': { ...MODELS['team/llama'], toolFormat: 'gorilla' } } });
  await page.goto('/');
  const failure = await page.evaluate(() =>
    window.inpageReady!.then(
      () => 'started',
      (err: Error) => err.message,
    ),
  );
  expect(failure).toMatch(/^inpage\.config\.json: models\["team\/llama"\]\.toolFormat: .*"phi4-mini"/);
});
