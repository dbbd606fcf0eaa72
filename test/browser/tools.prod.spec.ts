// The production build (real web-llm on SwiftShader) with tools and structured output. No model can be fetched
// here, so a request that passes every check fails at loading: its 503 proves the checks let it through.
import { expect, test } from '@playwright/test';
import { chat, deployConfig, makeKey, openApp } from './helpers';

const NOWHERE = 'http://127.0.0.1:9';

test.beforeEach(async ({ context }) => {
  await deployConfig(context, { modelBaseUrl: `${NOWHERE}/models`, modelLibBaseUrl: `${NOWHERE}/libs` });
});

interface ErrorBody {
  error: { message: string; code: string | null; param: string | null };
}

const weather = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

test('tools and json_schema requests get past validation to loading (503 model_load_failed, not 400); svc-vision with tools is 400', async ({ page }) => {
  await openApp(page);
  const key = await makeKey(page);
  const messages = [
    { role: 'user', content: 'weather?' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
  ];
  for (const body of [
    { model: 'svc-model-5.2-short-fast', messages, tools: [weather], tool_choice: 'required' },
    { model: 'svc-model-5.2-short', messages: messages.slice(0, 1), tools: [weather], stream: true },
    {
      model: 'svc-model-5.2-short',
      messages: messages.slice(0, 1),
      response_format: { type: 'json_schema', json_schema: { name: 'w', strict: true, schema: weather.function.parameters } },
    },
  ]) {
    const answer = await chat(page, key, body);
    expect(answer.status, answer.text).toBe(503);
    expect((answer.json as ErrorBody).error.code).toBe('model_load_failed');
  }
  const vision = await chat(page, key, { model: 'svc-vision', messages: messages.slice(0, 1), tools: [weather] });
  expect(vision.status).toBe(400);
  expect((vision.json as ErrorBody).error).toMatchObject({ code: 'unsupported_parameter', param: 'tools' });
  const keyword = await chat(page, key, {
    model: 'svc-model-5.2-short',
    messages: messages.slice(0, 1),
    response_format: { type: 'json_schema', json_schema: { name: 'w', schema: { type: 'array', items: { type: 'string' }, uniqueItems: true } } },
  });
  expect(keyword.status).toBe(400);
  expect((keyword.json as ErrorBody).error).toMatchObject({ code: 'unsupported_parameter', param: 'response_format.json_schema.schema.uniqueItems' });
});
