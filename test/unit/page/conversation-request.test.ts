import { describe, expect, it } from 'vitest';
import { DEFAULT_PARAMS, type Conversation, type Turn } from '../../../src/page/ui/areas/playground/state/conversation-db';
import {
  conversationRequest,
  exportJson,
  exportName,
  paramsProblem,
  requestBody,
  requestCode,
  responsesBody,
  toMessages,
} from '../../../src/page/ui/areas/playground/state/conversation-request';
import type { McpServer } from '../../../src/page/ui/areas/playground/state/mcp-servers';
import { parseExport } from '../../../src/page/ui/areas/playground/state/chat-import';

const turns: Turn[] = [
  { id: '1', role: 'user', text: 'look', image: 'data:image/png;base64,AAAA' },
  { id: '2', role: 'assistant', text: 'a dot', status: 'done' },
  { id: '3', role: 'note', text: 'said in the chat only' },
  { id: '4', role: 'user', text: 'and now?' },
];

describe('what a Playground conversation sends', () => {
  it('keeps images for a vision model and leaves them out (counted) for a text model; notes are never sent', () => {
    const vision = toMessages('Be brief.', turns, 'svc-vision');
    expect(vision.imagesLeftOut).toBe(0);
    expect(vision.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      },
      { role: 'assistant', content: 'a dot' },
      { role: 'user', content: 'and now?' },
    ]);
    const text = toMessages('', turns, 'svc-model-5.2-fast');
    expect(text.imagesLeftOut).toBe(1);
    expect(text.messages).toEqual([
      { role: 'user', content: 'look' },
      { role: 'assistant', content: 'a dot' },
      { role: 'user', content: 'and now?' },
    ]);
  });

  it('sends only the parameters that are set; thinking off only for thinking variants', () => {
    const messages = [{ role: 'user' as const, content: 'hi' }];
    expect(requestBody('svc-model-5.2', messages, DEFAULT_PARAMS)).toEqual({ model: 'svc-model-5.2', messages });
    const params = { temperature: 0.2, top_p: 0.9, max_tokens: 5, thinking: false, json: true };
    expect(requestBody('svc-model-5.2', messages, params)).toEqual({
      model: 'svc-model-5.2',
      messages,
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 5,
      reasoning_effort: 'none',
      response_format: { type: 'json_object' },
    });
    expect(requestBody('svc-model-5.2-fast', messages, params)).not.toHaveProperty('reasoning_effort');
  });

  it('sends seed, penalties, up to four stop sequences, and a JSON schema as json_schema (over JSON mode)', () => {
    const messages = [{ role: 'user' as const, content: 'hi' }];
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const params = {
      ...DEFAULT_PARAMS,
      seed: 7,
      presence_penalty: 0.5,
      frequency_penalty: -1,
      stop: 'END\n\n###\na\nb\nc',
      json: true,
      schema: JSON.stringify(schema),
    };
    expect(requestBody('svc-model-5.2-fast', messages, params)).toEqual({
      model: 'svc-model-5.2-fast',
      messages,
      seed: 7,
      presence_penalty: 0.5,
      frequency_penalty: -1,
      stop: ['END', '###', 'a', 'b'],
      response_format: { type: 'json_schema', json_schema: { name: 'response', schema } },
    });
    expect(paramsProblem(params)).toBeNull();
    expect(paramsProblem({ ...params, schema: '{"type": ' })).toMatch(/not a JSON object/);
    expect(paramsProblem({ ...params, schema: '[1]' })).toMatch(/not a JSON object/);
    // A chat saved before these fields existed sends none of them.
    const old = { temperature: null, top_p: null, max_tokens: null, thinking: true, json: false };
    expect(requestBody('svc-model-5.2-fast', messages, old)).toEqual({ model: 'svc-model-5.2-fast', messages });
  });

  it('as a /v1/responses request with MCP tools: instructions, input messages (images as input_image), no function turns or empty answers', () => {
    const mcp = [{ type: 'mcp', server_label: 'docs', server_url: 'https://mcp.example/mcp', require_approval: 'always' }];
    const history: Turn[] = [
      ...turns,
      { id: '5', role: 'assistant', text: '', status: 'done', toolCalls: [{ id: 'c1', name: 'f', arguments: '{}' }] },
      { id: '6', role: 'tool', text: 'result', toolCallId: 'c1', name: 'f' },
    ];
    const chatBody = requestBody('svc-vision', toMessages('Be brief.', history, 'svc-vision').messages, {
      ...DEFAULT_PARAMS,
      temperature: 0.5,
      max_tokens: 64,
      seed: 3,
    });
    expect(responsesBody(chatBody, mcp)).toEqual({
      model: 'svc-vision',
      instructions: 'Be brief.',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'look' },
            { type: 'input_image', image_url: 'data:image/png;base64,AAAA' },
          ],
        },
        { role: 'assistant', content: 'a dot' },
        { role: 'user', content: 'and now?' },
      ],
      tools: mcp,
      temperature: 0.5,
      max_output_tokens: 64,
    });
  });

  it('writes code whose body is the request, streaming', () => {
    const code = requestCode('openai', 'http://x/v1', { model: 'svc-vision', messages: [] });
    expect(code).toContain('"stream": true');
    expect(code).toContain("baseURL: 'http://x/v1'");
  });

  it('with MCP servers on: the /v1/responses request as code and export, each token a placeholder; the export imports back', () => {
    const server = (label: string, token: string): McpServer => ({
      id: `mcp_${label}`,
      label,
      url: `https://${label}.example/mcp`,
      token,
      approval: 'always',
      tools: null,
      error: null,
      created: 0,
    });
    const servers = [server('a', 'secret-token-a'), server('b', '')];
    const conversation = {
      title: 'MCP',
      model: 'svc-model-5.2',
      system: 'Be brief.',
      params: { ...DEFAULT_PARAMS, temperature: 0.5 },
      turns: [
        { id: '1', role: 'user', text: 'hi' },
        { id: '2', role: 'assistant', text: 'hello', status: 'done' },
      ],
      mcp: ['mcp_a', 'mcp_b'],
    } as unknown as Conversation;
    const body = conversationRequest(conversation, 'use a', servers);
    expect(body).toEqual({
      model: 'svc-model-5.2',
      instructions: 'Be brief.',
      input: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
        { role: 'user', content: 'use a' },
      ],
      tools: [
        { type: 'mcp', server_label: 'a', server_url: 'https://a.example/mcp', require_approval: 'always', authorization: 'YOUR_MCP_TOKEN_FOR_a' },
        { type: 'mcp', server_label: 'b', server_url: 'https://b.example/mcp', require_approval: 'always' },
      ],
      temperature: 0.5,
    });
    // Without the servers (none on), the chat completion it was.
    expect(conversationRequest(conversation, 'use a')).toMatchObject({ messages: expect.any(Array) });
    const fetchCode = requestCode('fetch', 'http://x/v1', body);
    expect(fetchCode).toContain("fetch('http://x/v1/responses'");
    expect(fetchCode).toContain("if (data.type === 'response.output_text.delta') text += data.delta;");
    const sdk = requestCode('openai', 'http://x/v1', body);
    expect(sdk).toContain('await client.responses.create({');
    expect(sdk).not.toContain('chat.completions');
    const exported = exportJson(conversation, servers);
    expect(exported).not.toContain('secret-token-a');
    const back = parseExport(exported, 'svc-model-5.2-fast');
    if (typeof back === 'string') throw new Error(back);
    expect(back).toMatchObject({ title: 'MCP', model: 'svc-model-5.2', system: 'Be brief.', params: { temperature: 0.5, tools: '' } });
    expect(back.turns.map((t) => [t.role, t.text])).toEqual([
      ['user', 'hi'],
      ['assistant', 'hello'],
    ]);
  });

  it('names export files after the title in safe characters', () => {
    const c = { title: 'Plans: «next» week / 2', turns: [] } as unknown as Conversation;
    expect(exportName(c, 'md')).toBe('Plans-next-week-2.md');
  });
});
