import { describe, expect, it } from 'vitest';
import { ApiError } from '#shared/protocol/errors';
import { paramName, validateChatRequest } from '#shared/protocol/validate';

const ok = { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'hi' }] };

function rejection(body: unknown): ApiError {
  try {
    validateChatRequest(body);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error(`accepted: ${JSON.stringify(body)}`);
}

describe('validateChatRequest: every rule of docs/contract.md', () => {
  const cases: [string, unknown, { code: string; param: string | null; status?: number }][] = [
    ['body not an object', [1, 2], { code: 'invalid_type', param: null }],
    ['body a string', 'hello', { code: 'invalid_type', param: null }],
    ['model absent', { messages: ok.messages }, { code: 'missing_required_parameter', param: 'model' }],
    ['messages absent', { model: ok.model }, { code: 'missing_required_parameter', param: 'messages' }],
    ['model not a string', { ...ok, model: 5 }, { code: 'invalid_type', param: 'model' }],
    ['model null', { ...ok, model: null }, { code: 'invalid_type', param: 'model' }],
    ['unknown model', { ...ok, model: 'gpt-4o' }, { code: 'model_not_found', param: 'model', status: 404 }],
    ['messages not an array', { ...ok, messages: 'hi' }, { code: 'invalid_type', param: 'messages' }],
    ['messages empty', { ...ok, messages: [] }, { code: 'invalid_value', param: 'messages' }],
    ['message not an object', { ...ok, messages: ['hi'] }, { code: 'invalid_type', param: 'messages[0]' }],
    ['role absent', { ...ok, messages: [{ content: 'hi' }] }, { code: 'missing_required_parameter', param: 'messages[0].role' }],
    ['role unknown', { ...ok, messages: [{ role: 'robot', content: 'hi' }] }, { code: 'invalid_value', param: 'messages[0].role' }],
    ['content absent', { ...ok, messages: [{ role: 'user' }] }, { code: 'missing_required_parameter', param: 'messages[0].content' }],
    ['content a number', { ...ok, messages: [{ role: 'user', content: 3 }] }, { code: 'invalid_type', param: 'messages[0].content' }],
    [
      'part of unknown type',
      { ...ok, messages: [{ role: 'user', content: [{ type: 'audio', data: 'x' }] }] },
      { code: 'invalid_value', param: 'messages[0].content[0].type' },
    ],
    [
      'text part without text',
      { ...ok, messages: [{ role: 'user', content: [{ type: 'text' }] }] },
      { code: 'missing_required_parameter', param: 'messages[0].content[0].text' },
    ],
    [
      'image part on a text model',
      { ...ok, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }] },
      { code: 'unsupported_parameter', param: 'messages[0].content[0]' },
    ],
    [
      'image url not a URL',
      { model: 'svc-vision', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'file:///etc/passwd' } }] }] },
      { code: 'invalid_value', param: 'messages[0].content[0].image_url.url' },
    ],
    [
      'image part in a system message',
      { model: 'svc-vision', messages: [{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }] },
      { code: 'invalid_value', param: 'messages[0].content[0]' },
    ],
    ['stream not boolean', { ...ok, stream: 'yes' }, { code: 'invalid_type', param: 'stream' }],
    ['stream_options without stream', { ...ok, stream_options: { include_usage: true } }, { code: 'invalid_value', param: 'stream_options' }],
    [
      'include_usage not boolean',
      { ...ok, stream: true, stream_options: { include_usage: 1 } },
      { code: 'invalid_type', param: 'stream_options.include_usage' },
    ],
    ['temperature a string', { ...ok, temperature: 'hot' }, { code: 'invalid_type', param: 'temperature' }],
    ['temperature over 2', { ...ok, temperature: 2.5 }, { code: 'invalid_value', param: 'temperature' }],
    ['temperature under 0', { ...ok, temperature: -0.1 }, { code: 'invalid_value', param: 'temperature' }],
    ['top_p over 1', { ...ok, top_p: 1.01 }, { code: 'invalid_value', param: 'top_p' }],
    ['max_tokens zero', { ...ok, max_tokens: 0 }, { code: 'invalid_value', param: 'max_tokens' }],
    ['max_tokens fractional', { ...ok, max_tokens: 1.5 }, { code: 'invalid_value', param: 'max_tokens' }],
    ['max_tokens a string', { ...ok, max_tokens: '10' }, { code: 'invalid_type', param: 'max_tokens' }],
    ['max_completion_tokens negative', { ...ok, max_completion_tokens: -3 }, { code: 'invalid_value', param: 'max_completion_tokens' }],
    ['stop a number', { ...ok, stop: 7 }, { code: 'invalid_type', param: 'stop' }],
    ['stop of five', { ...ok, stop: ['a', 'b', 'c', 'd', 'e'] }, { code: 'invalid_value', param: 'stop' }],
    ['seed fractional', { ...ok, seed: 0.5 }, { code: 'invalid_value', param: 'seed' }],
    ['presence_penalty over 2', { ...ok, presence_penalty: 3 }, { code: 'invalid_value', param: 'presence_penalty' }],
    ['frequency_penalty under -2', { ...ok, frequency_penalty: -2.5 }, { code: 'invalid_value', param: 'frequency_penalty' }],
    ['n zero', { ...ok, n: 0 }, { code: 'invalid_value', param: 'n' }],
    ['logprobs not boolean', { ...ok, logprobs: 'yes' }, { code: 'invalid_type', param: 'logprobs' }],
    ['top_logprobs over 5', { ...ok, logprobs: true, top_logprobs: 6 }, { code: 'invalid_value', param: 'top_logprobs' }],
    ['top_logprobs without logprobs', { ...ok, top_logprobs: 2 }, { code: 'invalid_value', param: 'top_logprobs' }],
    ['response_format unknown type', { ...ok, response_format: { type: 'yaml' } }, { code: 'invalid_value', param: 'response_format.type' }],
    [
      'json_schema without schema name',
      { ...ok, response_format: { type: 'json_schema', json_schema: {} } },
      { code: 'missing_required_parameter', param: 'response_format.json_schema.name' },
    ],
    ['reasoning_effort unknown', { ...ok, reasoning_effort: 'max' }, { code: 'invalid_value', param: 'reasoning_effort' }],
    ['user not a string', { ...ok, user: 42 }, { code: 'invalid_type', param: 'user' }],
  ];

  it.each(cases)('%s', (_name, body, expected) => {
    const err = rejection(body);
    expect(err.code).toBe(expected.code);
    expect(err.param).toBe(expected.param);
    expect(err.status).toBe(expected.status ?? 400);
    expect(err.type).toBe('invalid_request_error');
    expect(err.message.length).toBeGreaterThan(10);
  });

  it('accepts every field of docs/contract.md at its bounds', () => {
    const body = {
      model: 'svc-model-5.2',
      messages: [
        { role: 'developer', content: 'be brief' },
        { role: 'system', content: [{ type: 'text', text: 'really' }] },
        { role: 'user', content: 'hi', name: 'ann' },
        { role: 'assistant', content: null },
      ],
      stream: true,
      stream_options: { include_usage: true },
      temperature: 2,
      top_p: 0,
      max_tokens: 1,
      max_completion_tokens: 9,
      stop: ['a', 'b', 'c', 'd'],
      seed: -4,
      presence_penalty: -2,
      frequency_penalty: 2,
      n: 1,
      logprobs: true,
      top_logprobs: 5,
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' }, strict: true } },
      reasoning_effort: 'none',
      user: 'u-1',
    };
    const req = validateChatRequest(body);
    expect(req.messages[3]!.content).toBe('');
    expect(req.max_completion_tokens).toBe(9);
    expect(req.response_format).toEqual(body.response_format);
  });

  it('accepts image parts for svc-vision, as data: and http(s) URLs', () => {
    const req = validateChatRequest({
      model: 'svc-vision',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.test/cat.jpg', detail: 'low' } },
          ],
        },
      ],
    });
    expect(Array.isArray(req.messages[0]!.content) && req.messages[0]!.content.length).toBe(3);
  });

  it('treats null optional fields as absent and ignores unknown fields', () => {
    const req = validateChatRequest({ ...ok, stop: null, temperature: null, n: null, tools: [], frobnicate: { a: 1 } });
    expect(req.stop).toBeUndefined();
    expect(req.temperature).toBeUndefined();
    expect(req).not.toHaveProperty('n');
  });
});

describe('paramName', () => {
  it('writes paths the way the error param shows them', () => {
    expect(paramName(['messages', 0, 'content', 2, 'image_url', 'url'])).toBe('messages[0].content[2].image_url.url');
    expect(paramName(['temperature'])).toBe('temperature');
    expect(paramName([])).toBe('');
  });
});
