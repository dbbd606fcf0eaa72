// The schema fixture itself must reject what OpenAI's schema rejects, or the browser checks prove nothing.
import { describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import schemas from '../../fixtures/openai-schemas.json' with { type: 'json' };

const ajv = new Ajv({ strict: false });
ajv.addSchema(schemas);
const check = (name: string, value: unknown) => ajv.getSchema(`openai#/definitions/${name}`)!(value);

const completion = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'x', refusal: null }, logprobs: null, finish_reason: 'stop' }],
};

describe('OpenAI schema fixture', () => {
  it('accepts a minimal valid completion and rejects one without the nullable-but-required fields', () => {
    expect(check('CreateChatCompletionResponse', completion)).toBe(true);
    const noRefusal = structuredClone(completion) as { choices: { message: Record<string, unknown> }[] };
    delete noRefusal.choices[0]!.message.refusal;
    expect(check('CreateChatCompletionResponse', noRefusal)).toBe(false);
    const noLogprobs = structuredClone(completion) as { choices: Record<string, unknown>[] };
    delete noLogprobs.choices[0]!.logprobs;
    expect(check('CreateChatCompletionResponse', noLogprobs)).toBe(false);
    expect(check('CreateChatCompletionResponse', { ...completion, choices: [{ ...completion.choices[0], finish_reason: 'abort' }] })).toBe(false);
    expect(check('CreateChatCompletionResponse', { ...completion, created: 1.5 })).toBe(false);
  });

  it('checks chunks, model lists and errors', () => {
    const chunk = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: null }] };
    expect(check('CreateChatCompletionStreamResponse', chunk)).toBe(true);
    expect(check('CreateChatCompletionStreamResponse', { ...chunk, object: 'chat.completion' })).toBe(false);
    expect(check('ListModelsResponse', { object: 'list', data: [{ id: 'a', object: 'model', created: 1, owned_by: 'org-x' }] })).toBe(true);
    expect(check('ListModelsResponse', { object: 'list', data: [{ id: 'a', object: 'model', created: 1 }] })).toBe(false);
    expect(check('ErrorResponse', { error: { message: 'm', type: 't', param: null, code: null } })).toBe(true);
    expect(check('ErrorResponse', { error: { message: 'm', type: 't', code: null } })).toBe(false);
  });
});

describe('OpenAI schema fixture: Responses, completions, embeddings', () => {
  const response = {
    id: 'resp_1',
    object: 'response',
    created_at: 1,
    status: 'completed',
    error: null,
    incomplete_details: null,
    instructions: null,
    model: 'm',
    tools: [],
    output: [],
    parallel_tool_calls: true,
    metadata: {},
    tool_choice: 'auto',
    temperature: null,
    top_p: null,
  };
  it('requires what the spec requires', () => {
    expect(check('Response', response)).toBe(true);
    const { tools: _, ...noTools } = response;
    expect(check('Response', noTools)).toBe(false);
    expect(check('Response', { ...response, usage: null })).toBe(false);
    expect(check('ResponseStreamEvent', { type: 'response.created', response, sequence_number: 0 })).toBe(true);
    expect(check('ResponseStreamEvent', { type: 'response.created', response })).toBe(false);
    expect(
      check('ResponseStreamEvent', { type: 'response.output_text.delta', item_id: 'm', output_index: 0, content_index: 0, delta: 'x', sequence_number: 3 }),
    ).toBe(false);
    expect(
      check('CreateEmbeddingResponse', {
        object: 'list',
        model: 'm',
        data: [{ index: 0, object: 'embedding', embedding: [0.5] }],
        usage: { prompt_tokens: 1, total_tokens: 1 },
      }),
    ).toBe(true);
    expect(
      check('CreateEmbeddingResponse', { object: 'list', model: 'm', data: [{ index: 0, embedding: [0.5] }], usage: { prompt_tokens: 1, total_tokens: 1 } }),
    ).toBe(false);
    expect(
      check('CreateCompletionResponse', {
        id: 'c',
        object: 'text_completion',
        created: 1,
        model: 'm',
        choices: [{ index: 0, text: 'x', logprobs: null, finish_reason: 'stop' }],
      }),
    ).toBe(true);
    expect(
      check('CreateCompletionResponse', {
        id: 'c',
        object: 'text_completion',
        created: 1,
        model: 'm',
        choices: [{ index: 0, text: 'x', finish_reason: 'stop' }],
      }),
    ).toBe(false);
  });
});
