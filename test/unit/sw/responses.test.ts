// The Responses converter (request → chat request) and builder (engine events → response and stream events).
import { describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import schemas from '../../fixtures/openai-schemas.json' with { type: 'json' };
import { ApiError } from '#shared/protocol/errors';
import { parseResponsesRequest, referencedIds, toChatRequest } from '../../../worker/sw/responses/request';
import type { ConversationItem } from '../../../worker/sw/responses/items';
import { ResponseBuilder, initialResponse } from '../../../worker/sw/responses/events';
import { sseEvent } from '../../../worker/sw/sse';
import type { EngineEvent } from '#shared/wire/engine-port';

const ajv = new Ajv({ strict: false });
ajv.addSchema(schemas);
const valid = (name: string, value: unknown) => {
  const check = ajv.getSchema(`openai#/definitions/${name}`)!;
  const ok = check(value);
  if (!ok) throw new Error(`${name}: ${ajv.errorsText(check.errors)}\n${JSON.stringify(value)}`);
  return ok;
};

const convert = (body: Record<string, unknown>, previous: ConversationItem[] = []) => toChatRequest(parseResponsesRequest(body), previous);

function refusal(fn: () => unknown): { status: number; code: string; param: string | null } {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return { status: err.status, code: err.code, param: err.param };
    throw err;
  }
  throw new Error('expected a refusal');
}

const usage = (prompt: number, completion: number, reasoning = 0) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  prompt_tokens_details: { cached_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: reasoning },
});

describe('Responses request → chat request', () => {
  it('maps a string input, instructions and the sampling fields', () => {
    const { chat, inputItems } = convert({
      model: 'svc-model-5.2-short',
      input: 'hello',
      instructions: 'Be brief.',
      max_output_tokens: 64,
      temperature: 0.5,
      top_p: 0.9,
      reasoning: { effort: 'none' },
      text: { format: { type: 'json_schema', name: 'x', schema: { type: 'object' }, strict: true } },
      user: 'u1',
      stream: true,
    });
    expect(chat).toMatchObject({
      model: 'svc-model-5.2-short',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hello' },
      ],
      max_completion_tokens: 64,
      temperature: 0.5,
      top_p: 0.9,
      reasoning_effort: 'none',
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' }, strict: true } },
      user: 'u1',
      stream: true,
    });
    expect(inputItems).toEqual([
      { id: expect.stringMatching(/^msg_/), type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello' }], status: 'completed' },
    ]);
  });

  it('maps message items (easy and typed, parts and images) and replays a stored conversation first', () => {
    const previous: ConversationItem[] = [
      { id: 'msg_a', type: 'message', role: 'user', content: [{ type: 'input_text', text: 'first' }], status: 'completed' },
      { id: 'rs_a', type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'hmm' }], status: 'completed' },
      {
        id: 'msg_b',
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'answer', annotations: [], logprobs: [] }],
        status: 'completed',
      },
    ];
    const { chat } = convert(
      {
        model: 'svc-vision',
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'look' },
              { type: 'input_image', image_url: 'data:image/png;base64,AAAA' },
            ],
          },
        ],
      },
      previous,
    );
    expect(chat.messages).toEqual([
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'answer' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'auto' } },
        ],
      },
    ]);
  });

  it('maps function tools, tool_choice, function_call and function_call_output items onto chat tools', () => {
    const { chat } = convert({
      model: 'svc-model-5.2-fast',
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          description: 'Weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
          strict: true,
        },
      ],
      tool_choice: { type: 'function', name: 'get_weather' },
      parallel_tool_calls: false,
      input: [
        { role: 'user', content: 'weather in Paris?' },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
      ],
    });
    expect(chat.tools).toEqual([
      {
        type: 'function',
        function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: true },
      },
    ]);
    expect(chat.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
    expect(chat.parallel_tool_calls).toBe(false);
    expect(chat.messages).toEqual([
      { role: 'user', content: 'weather in Paris?' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', content: 'sunny', tool_call_id: 'call_1' },
    ]);
    // An output with no call before it names the Responses item.
    expect(
      refusal(() =>
        convert({
          model: 'svc-model-5.2-fast',
          input: [
            { role: 'user', content: 'x' },
            { type: 'function_call_output', call_id: 'nope', output: 'y' },
          ],
        }),
      ),
    ).toMatchObject({
      code: 'invalid_value',
      param: 'input[1]',
    });
  });

  describe('item_reference items', () => {
    const stored: ConversationItem[] = [
      { id: 'msg_u', type: 'message', role: 'user', content: [{ type: 'input_text', text: 'weather in Paris?' }], status: 'completed' },
      { id: 'rs_1', type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'Thinking about: weather' }], status: 'completed' },
      { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' },
      { id: 'fco_1', type: 'function_call_output', call_id: 'call_1', output: 'sunny', status: 'completed' },
      {
        id: 'msg_a',
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'It is sunny.', annotations: [], logprobs: [] }],
        status: 'completed',
      },
    ];
    const byId = new Map(stored.map((item) => [item.id, item]));
    const tools = [{ type: 'function', name: 'get_weather' }];

    it('resolves each stored kind by id, in input order; a reasoning item stays out of the prompt as a sent one does', () => {
      const body = {
        model: 'svc-model-5.2',
        tools,
        input: [
          { type: 'item_reference', id: 'msg_u' },
          { type: 'item_reference', id: 'rs_1' },
          { id: 'fc_1' },
          { type: 'item_reference', id: 'fco_1' },
          { type: null, id: 'msg_a' },
          { role: 'user', content: 'and tomorrow?' },
        ],
      };
      expect(referencedIds(parseResponsesRequest(body))).toEqual(['msg_u', 'rs_1', 'fc_1', 'fco_1', 'msg_a']);
      const { chat, inputItems, origins } = toChatRequest(parseResponsesRequest(body), [], byId);
      expect(chat.messages).toEqual([
        { role: 'user', content: 'weather in Paris?' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', content: 'sunny', tool_call_id: 'call_1' },
        { role: 'assistant', content: 'It is sunny.' },
        { role: 'user', content: 'and tomorrow?' },
      ]);
      // Stored (and listed by /input_items) as the items themselves, ids kept.
      expect(inputItems.slice(0, 4)).toEqual([stored[0], stored[2], stored[3], stored[4]]);
      expect(origins).toEqual(['input[0]', 'input[2]', 'input[3]', 'input[4]', 'input[5]']);
    });

    it("takes the AI SDK's second tool-loop step: user message, reasoning reference, function call, its output", () => {
      const { chat } = toChatRequest(
        parseResponsesRequest({
          model: 'svc-model-5.2',
          tools,
          input: [
            { role: 'user', content: [{ type: 'input_text', text: 'weather in Paris?' }] },
            { type: 'item_reference', id: 'rs_1' },
            { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
            { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
          ],
        }),
        [],
        byId,
      );
      expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    });

    it("answers an id the key cannot read as OpenAI does: 404, param 'input', code null", () => {
      let caught: unknown;
      try {
        convert({
          model: 'svc-model-5.2',
          input: [
            { role: 'user', content: 'x' },
            { type: 'item_reference', id: 'rs_gone' },
          ],
        });
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(ApiError);
      expect((caught as ApiError).status).toBe(404);
      expect((caught as ApiError).toBody()).toEqual({
        error: {
          message:
            "Item with id 'rs_gone' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.",
          type: 'invalid_request_error',
          param: 'input',
          code: null,
        },
      });
      expect(valid('ErrorResponse', (caught as ApiError).toBody())).toBe(true);
    });

    it('refuses an id given twice, or one already in the previous_response_id conversation (400, as OpenAI)', () => {
      const twice = (body: Record<string, unknown>, previous: ConversationItem[] = []) => {
        try {
          toChatRequest(parseResponsesRequest(body), previous, byId);
        } catch (err) {
          if (err instanceof ApiError) return { status: err.status, ...err.toBody().error };
        }
        return null;
      };
      const duplicate = (id: string) => ({
        status: 400,
        type: 'invalid_request_error',
        param: 'input',
        code: null,
        message: `Duplicate item found with id ${id}. Remove duplicate items from your input and try again.`,
      });
      expect(
        twice({
          model: 'svc-model-5.2',
          input: [
            { type: 'item_reference', id: 'msg_u' },
            { type: 'item_reference', id: 'msg_u' },
          ],
        }),
      ).toEqual(duplicate('msg_u'));
      expect(
        twice({
          model: 'svc-model-5.2',
          input: [
            { type: 'item_reference', id: 'msg_u' },
            { role: 'user', content: 'again', id: 'msg_u' },
          ],
        }),
      ).toEqual(duplicate('msg_u'));
      expect(
        twice(
          {
            model: 'svc-model-5.2',
            input: [
              { type: 'item_reference', id: 'msg_a' },
              { role: 'user', content: 'next' },
            ],
          },
          [stored[0]!, stored[4]!],
        ),
      ).toEqual(duplicate('msg_a'));
      // Not in that conversation: the reference adds it after it.
      const { chat } = toChatRequest(parseResponsesRequest({ model: 'svc-model-5.2', input: [{ type: 'item_reference', id: 'msg_u' }] }), [stored[4]!], byId);
      expect(chat.messages).toEqual([
        { role: 'assistant', content: 'It is sunny.' },
        { role: 'user', content: 'weather in Paris?' },
      ]);
    });
  });

  it('refuses what needs the hosted service, naming the Responses field', () => {
    const base = { model: 'svc-model-5.2-fast', input: 'x' };
    expect(refusal(() => convert({ ...base, tools: [{ type: 'function', name: 'f' }, { type: 'web_search' }] }))).toEqual({
      status: 400,
      code: 'unsupported_parameter',
      param: 'tools[1].type',
    });
    expect(refusal(() => convert({ ...base, tools: [{ type: 'code_interpreter', container: { type: 'auto' } }] }))).toMatchObject({ param: 'tools[0].type' });
    expect(refusal(() => convert({ ...base, background: true }))).toMatchObject({ code: 'unsupported_parameter', param: 'background' });
    expect(refusal(() => convert({ ...base, conversation: 'conv_1' }))).toMatchObject({ code: 'unsupported_parameter', param: 'conversation' });
    expect(refusal(() => convert({ ...base, include: ['message.output_text.logprobs', 'file_search_call.results'] }))).toMatchObject({
      code: 'unsupported_parameter',
      param: 'include[1]',
    });
    expect(refusal(() => convert({ ...base, max_output_tokens: 15 }))).toMatchObject({ status: 400, code: 'invalid_value', param: 'max_output_tokens' });
    expect(refusal(() => convert({ model: 'svc-model-5.2-fast' }))).toEqual({ status: 400, code: 'missing_required_parameter', param: 'input' });
    expect(refusal(() => convert({ ...base, input: [{ type: 'web_search_call', id: 'ws_1' }] }))).toMatchObject({
      code: 'unsupported_parameter',
      param: 'input[0].type',
    });
    expect(refusal(() => convert({ ...base, input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }] }))).toMatchObject({
      param: 'input[0].content[0]',
    });
    // Chat-level refusals come back under Responses names.
    expect(
      refusal(() => convert({ ...base, input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'data:image/png;base64,AA' }] }] })),
    ).toMatchObject({
      code: 'unsupported_parameter',
      param: 'input[0].content[0]',
    });
    expect(refusal(() => convert({ ...base, temperature: 3 }))).toMatchObject({ code: 'invalid_value', param: 'temperature' });
    expect(refusal(() => convert({ ...base, model: 'svc-nope' }))).toMatchObject({ status: 404, code: 'model_not_found', param: 'model' });
  });

  it('treats null as not set, and accepts the documented no-op fields', () => {
    const { chat } = convert({
      model: 'svc-model-5.2-fast',
      input: 'x',
      temperature: null,
      store: null,
      metadata: { a: 'b' },
      service_tier: 'auto',
      truncation: 'disabled',
      include: ['reasoning.encrypted_content'],
    });
    expect(chat.temperature).toBeUndefined();
  });
});

describe('engine events → response and stream events', () => {
  const events: EngineEvent[] = [
    { type: 'delta', reasoning: 'Thinking' },
    { type: 'delta', reasoning: ' hard' },
    { type: 'delta', content: 'Echo:' },
    { type: 'delta', content: ' hi' },
    { type: 'finish', finish_reason: 'stop', usage: usage(10, 4, 2) },
  ];

  it('emits the typed events in order, numbered from 0, each valid against OpenAI’s schema', () => {
    const builder = new ResponseBuilder(initialResponse(parseResponsesRequest({ model: 'svc-model-5.2', input: 'hi' })));
    const out = [...builder.start(), ...events.flatMap((e) => builder.next(e)), ...builder.end()];
    expect(out.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.reasoning_text.delta',
      'response.reasoning_text.delta',
      'response.reasoning_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(out.map((e) => e.data.sequence_number)).toEqual(out.map((_, i) => i));
    for (const e of out) valid('ResponseStreamEvent', e.data);
    expect(sseEvent(out[0]!.data, out[0]!.type)).toMatch(/^event: response\.created\ndata: \{"type":"response\.created",.*"sequence_number":0\}\n\n$/);
    // The created snapshot leaves out what is not known yet.
    expect(out[0]!.data.response).not.toHaveProperty('usage');
    expect(out[0]!.data.response).not.toHaveProperty('completed_at');
    const final = builder.response;
    valid('Response', final);
    expect(final).toMatchObject({
      status: 'completed',
      incomplete_details: null,
      output: [
        { type: 'reasoning', status: 'completed', summary: [], content: [{ type: 'reasoning_text', text: 'Thinking hard' }] },
        { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Echo: hi', annotations: [], logprobs: [] }] },
      ],
      usage: {
        input_tokens: 10,
        output_tokens: 4,
        output_tokens_details: { reasoning_tokens: 2 },
        total_tokens: 14,
        input_tokens_details: { cached_tokens: 0 },
      },
    });
    expect(final.completed_at).toEqual(expect.any(Number));
  });

  it('turns tool-call events into function_call items that open with empty arguments', () => {
    const builder = new ResponseBuilder(
      initialResponse(parseResponsesRequest({ model: 'svc-model-5.2-fast', input: 'hi', tools: [{ type: 'function', name: 'f' }] })),
    );
    const out = [
      ...builder.start(),
      ...builder.next({ type: 'tool_call', index: 0, id: 'call_a', name: 'f' }),
      ...builder.next({ type: 'tool_arguments', index: 0, arguments: '{"a"' }),
      ...builder.next({ type: 'tool_arguments', index: 0, arguments: ':1}' }),
      ...builder.next({ type: 'finish', finish_reason: 'tool_calls', usage: usage(5, 3) }),
      ...builder.end(),
    ];
    expect(out.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(out[2]!.data.item).toMatchObject({ type: 'function_call', call_id: 'call_a', name: 'f', arguments: '', status: 'in_progress' });
    expect(out[5]!.data).toMatchObject({ name: 'f', arguments: '{"a":1}' });
    for (const e of out) valid('ResponseStreamEvent', e.data);
    expect(builder.response.output).toEqual([
      { id: expect.stringMatching(/^fc_/), type: 'function_call', call_id: 'call_a', name: 'f', arguments: '{"a":1}', status: 'completed' },
    ]);
    expect(builder.response.status).toBe('completed');
    valid('Response', builder.response);
  });

  it('ends incomplete with incomplete_details when the output limit cut it', () => {
    const builder = new ResponseBuilder(initialResponse(parseResponsesRequest({ model: 'svc-model-5.2-fast', input: 'hi', max_output_tokens: 16 })));
    builder.start();
    builder.next({ type: 'delta', content: 'a' });
    builder.next({ type: 'finish', finish_reason: 'length', usage: usage(3, 16) });
    const [last] = builder.end();
    expect(last!.type).toBe('response.incomplete');
    expect(builder.response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [{ status: 'incomplete' }] });
    valid('Response', builder.response);
  });

  it('reports a late failure as error then response.failed', () => {
    const builder = new ResponseBuilder(initialResponse(parseResponsesRequest({ model: 'svc-model-5.2-fast', input: 'hi' })));
    const start = builder.start();
    const mid = builder.next({ type: 'delta', content: 'tick' });
    const failed = builder.fail(new ApiError('internal_error', 'boom'));
    expect(failed.map((e) => e.type)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'error',
      'response.failed',
    ]);
    expect(failed.at(-1)!.data.sequence_number).toBe(start.length + mid.length + failed.length - 1);
    for (const e of failed) valid('ResponseStreamEvent', e.data);
    expect(builder.response).toMatchObject({ status: 'failed', error: { code: 'server_error', message: 'boom' } });
  });
});
