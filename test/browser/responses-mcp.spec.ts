// Issue 48: remote MCP tools in /v1/responses, against a real MCP server (the SDK's McpServer over Streamable HTTP on
// loopback, test/mcp/server.ts), driven by the openai SDK's responses.create and plain fetch. The app is the test
// build on an origin of its own (static-server.ts), whose /inpage.config.json allows the MCP server.
import { expect, test, type Page } from '@playwright/test';
import { auth, call, makeKey, openApp, type Answer } from './helpers';
import { serveStatic, TEST_BUILD_DIR, type StaticServer } from './static-server';
import { MCP_TOKEN, startMcpServer, type McpTestServer } from '../mcp/server';

test.describe.configure({ mode: 'serial' });

let app: StaticServer;
let mcp: McpTestServer;
const SETTINGS = { mcpCallTimeoutMs: 1500, mcpMaxResultBytes: 4096, mcpMaxCalls: 8, mcpMaxTools: 64 };

test.beforeAll(async () => {
  app = await serveStatic(4783, { '/': TEST_BUILD_DIR });
  mcp = await startMcpServer(4784, app.origin, { slowMs: 10_000, largeBytes: 200_000 });
  app.override('/inpage.config.json', JSON.stringify({ mcpServers: [`${mcp.origin}/mcp`], ...SETTINGS }));
});
test.afterAll(async () => {
  await mcp?.close();
  await app?.close();
});

const MODEL = 'svc-model-5.2-fast';
const post = (page: Page, key: string, body: unknown) => call(page, '/v1/responses', { method: 'POST', headers: auth(key), body: JSON.stringify(body) });
const mcpTool = (extra: Record<string, unknown> = {}) => ({ type: 'mcp', server_label: 'test', server_url: mcp.url, require_approval: 'never', ...extra });

function expectError(answer: Answer, status: number, code: string | null, param: string | null): string {
  expect(answer.status, answer.text).toBe(status);
  const error = (answer.json as { error: { message: string; type: string; param: string | null; code: string | null } }).error;
  expect(error).toEqual({ message: expect.any(String), type: expect.any(String), param, code });
  return error.message;
}

type Item = Record<string, unknown> & { type: string };
const outputOf = (answer: Answer) => (answer.json as { output: Item[] }).output;

let page: Page;
let key: string;
test.beforeEach(async ({ page: p }) => {
  page = p;
  await openApp(page, `${app.origin}/test/pages/clients.html`);
  key = await makeKey(page);
});

test('a server outside mcpServers, a connector, a missing url, two tools with one label: 400s naming the field', async () => {
  const input = 'use echo';
  let message = expectError(
    await post(page, key, { model: MODEL, input, tools: [{ type: 'mcp', server_label: 'x', server_url: 'https://evil.example/mcp?key=s3cret' }] }),
    400,
    'invalid_value',
    'tools[0].server_url',
  );
  expect(message).toContain('mcpServers');
  expect(message).not.toContain('s3cret');
  // Same origin, outside the allowed prefix.
  expectError(
    await post(page, key, { model: MODEL, input, tools: [mcpTool({ server_url: `${mcp.origin}/other` })] }),
    400,
    'invalid_value',
    'tools[0].server_url',
  );
  expectError(
    await post(page, key, { model: MODEL, input, tools: [{ type: 'mcp', server_label: 'x', connector_id: 'connector_gmail' }] }),
    400,
    'unsupported_parameter',
    'tools[0].connector_id',
  );
  expectError(
    await post(page, key, { model: MODEL, input, tools: [{ type: 'mcp', server_label: 'x' }] }),
    400,
    'missing_required_parameter',
    'tools[0].server_url',
  );
  expectError(await post(page, key, { model: MODEL, input, tools: [mcpTool(), mcpTool()] }), 400, 'invalid_value', 'tools[1].server_label');
  message = expectError(
    await post(page, key, { model: MODEL, input, tools: [mcpTool({ server_url: `${mcp.origin}/mcp/not-mcp` })] }),
    424,
    'http_error',
    'tools[0]',
  );
  expect(message).toContain("MCP server: 'test'");
  expect(mcp.requests.filter((r) => r.path === '/other')).toEqual([]);
});

test('openai SDK: list, call, result, answer; JSON and stream; previous_response_id reuses the listing', async () => {
  const result = await page.evaluate(
    async ({ apiKey, tool }) => {
      const client = new window.clients.OpenAI({ baseURL: `${location.origin}/v1`, apiKey, dangerouslyAllowBrowser: true, maxRetries: 0 });
      const first = await client.responses.create({ model: 'svc-model-5.2-fast', input: 'please echo', tools: [tool as never] });
      const types: string[] = [];
      let completed: unknown = null;
      const stream = await client.responses.create({ model: 'svc-model-5.2-fast', input: 'please echo', tools: [tool as never], stream: true });
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === 'response.completed') completed = event.response;
      }
      const next = await client.responses.create({ model: 'svc-model-5.2-fast', input: 'echo again', tools: [tool as never], previous_response_id: first.id });
      return { first, types, completed, next };
    },
    { apiKey: key, tool: mcpTool() },
  );
  const first = result.first as unknown as { output: Item[]; output_text: string; usage: { total_tokens: number }; tools: unknown[] };
  expect(first.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
  const listing = first.output[0]!;
  expect(listing).toMatchObject({ server_label: 'test', error: null });
  expect((listing.tools as { name: string }[]).map((t) => t.name)).toEqual(['echo', 'slow', 'fail', 'large', 'whoami']);
  expect(first.output[1]).toMatchObject({
    type: 'mcp_call',
    server_label: 'test',
    name: 'echo',
    arguments: '{"text":"a"}',
    output: 'echo: a',
    error: null,
    status: 'completed',
    approval_request_id: null,
  });
  expect(first.output_text).toBe('Tool said: echo: a');
  expect(first.tools).toEqual([
    { type: 'mcp', server_label: 'test', server_url: mcp.url, server_description: null, headers: null, allowed_tools: null, require_approval: 'never' },
  ]);
  // The stream: the listing's and the call's events, in OpenAI's order.
  const mcpTypes = result.types.filter((t) => t.includes('mcp'));
  expect(mcpTypes).toEqual([
    'response.mcp_list_tools.in_progress',
    'response.mcp_list_tools.completed',
    'response.mcp_call_arguments.delta',
    'response.mcp_call_arguments.done',
    'response.mcp_call.in_progress',
    'response.mcp_call.completed',
  ]);
  expect(result.types.at(-1)).toBe('response.completed');
  expect((result.completed as { output: Item[] }).output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
  // Continued: no second listing, the call runs with the listed tools.
  const next = result.next as unknown as { output: Item[] };
  expect(next.output.map((i) => i.type)).toEqual(['mcp_call', 'message']);
});

test('Agents SDK: hostedMcpTool without approval, and with it (the interruption approved, then the run resumed)', async () => {
  const result = await page.evaluate(
    async ({ apiKey, url }) => {
      const { OpenAI, agents } = window.clients;
      agents.setTracingDisabled(true);
      const client = new OpenAI({ baseURL: `${location.origin}/v1`, apiKey, dangerouslyAllowBrowser: true, maxRetries: 0 });
      const model = new agents.OpenAIResponsesModel(client as never, 'svc-model-5.2-fast');
      const free = new agents.Agent({ name: 'free', model, tools: [agents.hostedMcpTool({ serverLabel: 'test', serverUrl: url, requireApproval: 'never' })] });
      const first = await agents.run(free, 'please echo');
      const asking = new agents.Agent({
        name: 'asking',
        model,
        tools: [agents.hostedMcpTool({ serverLabel: 'test', serverUrl: url, requireApproval: 'always' })],
      });
      let asked = await agents.run(asking, 'please echo');
      const interruptions = asked.interruptions.map((i) => ({ type: i.type, name: (i as { name?: string }).name ?? null }));
      for (const interruption of asked.interruptions) asked.state.approve(interruption);
      asked = await agents.run(asking, asked.state);
      return { first: first.finalOutput, interruptions, resumed: asked.finalOutput, left: asked.interruptions.length };
    },
    { apiKey: key, url: mcp.url },
  );
  expect(result.first).toBe('Tool said: echo: a');
  expect(result.interruptions).toEqual([{ type: 'tool_approval_item', name: 'echo' }]);
  expect(result.resumed).toBe('Tool said: echo: a');
  expect(result.left).toBe(0);
});

test('approval: the call waits for mcp_approval_response; approved it runs, denied it does not', async () => {
  const tool = mcpTool({ require_approval: 'always' });
  const asked = await post(page, key, { model: MODEL, input: 'please echo', tools: [tool] });
  expect(asked.status, asked.text).toBe(200);
  const out = outputOf(asked);
  expect(out.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_approval_request']);
  const request = out[1]!;
  expect(request).toMatchObject({ server_label: 'test', name: 'echo', arguments: '{"text":"a"}' });
  expect(request.id).toMatch(/^mcpr_/);
  const calls = mcp.requests.length;
  const approved = await post(page, key, {
    model: MODEL,
    tools: [tool],
    previous_response_id: (asked.json as { id: string }).id,
    input: [{ type: 'mcp_approval_response', approval_request_id: request.id, approve: true }],
  });
  expect(approved.status, approved.text).toBe(200);
  const done = outputOf(approved);
  expect(done.map((i) => i.type)).toEqual(['mcp_call', 'message']);
  expect(done[0]).toMatchObject({ name: 'echo', output: 'echo: a', approval_request_id: request.id, status: 'completed' });
  expect((done[1]!.content as { text: string }[])[0]!.text).toBe('Tool said: echo: a');
  expect(mcp.requests.length).toBeGreaterThan(calls);

  const denied = await post(page, key, {
    model: MODEL,
    tools: [tool],
    previous_response_id: (asked.json as { id: string }).id,
    input: [{ type: 'mcp_approval_response', approval_request_id: request.id, approve: false, reason: 'no thanks' }],
  });
  expect(outputOf(denied).map((i) => i.type)).toEqual(['message']);
  expect((outputOf(denied)[0]!.content as { text: string }[])[0]!.text).toBe('Tool said: The user did not approve this call: no thanks');
  expectError(
    await post(page, key, {
      model: MODEL,
      tools: [tool],
      previous_response_id: (asked.json as { id: string }).id,
      input: [{ type: 'mcp_approval_response', approval_request_id: 'mcpr_nope', approve: true }],
    }),
    400,
    'invalid_value',
    'input[0].approval_request_id',
  );
});

test('bounds and failures: a slow call times out, a failing one and a large one are items, never a hang', async () => {
  const ask = (word: string) => post(page, key, { model: MODEL, input: `run ${word}`, tools: [mcpTool()] });
  const started = Date.now();
  const slow = outputOf(await ask('slow'));
  // mcpCallTimeoutMs is 1.5 s; the tool would answer after 10 s.
  expect(Date.now() - started).toBeLessThan(8000);
  expect(slow[1]).toMatchObject({ type: 'mcp_call', name: 'slow', status: 'failed', output: null });
  expect(slow[1]!.error).toContain('mcpCallTimeoutMs');
  const fail = outputOf(await ask('fail'));
  expect(fail[1]).toMatchObject({ type: 'mcp_call', name: 'fail', status: 'failed', output: null, error: 'the tool broke on purpose' });
  const large = outputOf(await ask('large'));
  const output = large[1]!.output as string;
  expect(output.startsWith('x'.repeat(4096))).toBe(true);
  expect(output).toContain('[cut: the result was 200000 bytes; mcpMaxResultBytes is 4096]');
  // allowed_tools narrows the listing; a server with more tools than mcpMaxTools is refused naming the bound.
  const narrowed = outputOf(await post(page, key, { model: MODEL, input: 'run echo', tools: [mcpTool({ allowed_tools: ['echo'] })] }));
  expect((narrowed[0]!.tools as { name: string }[]).map((t) => t.name)).toEqual(['echo']);
  const readOnly = outputOf(await post(page, key, { model: MODEL, input: 'hi', tools: [mcpTool({ allowed_tools: { read_only: true } })] }));
  expect((readOnly[0]!.tools as { name: string }[]).map((t) => t.name)).toEqual(['echo']);
});

test('a server that speaks only the older HTTP+SSE transport: the client falls back to it', async () => {
  const answer = await post(page, key, { model: MODEL, input: 'please echo', tools: [mcpTool({ server_url: `${mcp.origin}/mcp/sse` })] });
  expect(answer.status, answer.text).toBe(200);
  expect(outputOf(answer).map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
  expect(outputOf(answer)[1]).toMatchObject({ name: 'echo', output: 'echo: a', status: 'completed' });
  expect(mcp.requests.some((r) => r.method === 'GET' && r.path === '/mcp/sse')).toBe(true);
});

test('a server that does not allow the origin by CORS: 424 saying so', async () => {
  const message = expectError(
    await post(page, key, { model: MODEL, input: 'x', tools: [mcpTool({ server_url: `${mcp.origin}/mcp/no-cors` })] }),
    424,
    'http_error',
    'tools[0]',
  );
  expect(message).toContain('CORS');
  expect(message).toContain(app.origin);
});

test('tool_choice naming an MCP tool forces it; MCP tools beside function tools; an unknown name is a 400', async () => {
  const forced = await post(page, key, {
    model: MODEL,
    input: 'hello',
    tools: [mcpTool()],
    tool_choice: { type: 'mcp', server_label: 'test', name: 'whoami' },
  });
  expect(outputOf(forced).map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
  expect(outputOf(forced)[1]).toMatchObject({ name: 'whoami', output: 'token: missing' });
  expectError(
    await post(page, key, { model: MODEL, input: 'hello', tools: [mcpTool()], tool_choice: { type: 'mcp', server_label: 'test', name: 'nope' } }),
    400,
    'invalid_value',
    'tool_choice.name',
  );
  expectError(
    await post(page, key, { model: MODEL, input: 'hello', tools: [mcpTool()], tool_choice: { type: 'mcp', server_label: 'other' } }),
    400,
    'invalid_value',
    'tool_choice.server_label',
  );
  // A function tool and an MCP tool called in one turn: the MCP call runs, the function call goes back to the client.
  const both = await post(page, key, {
    model: MODEL,
    input: 'echo and lookup',
    tools: [mcpTool(), { type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} } }],
  });
  expect(outputOf(both).map((i) => i.type)).toEqual(['mcp_list_tools', 'function_call', 'mcp_call']);
  expect((both.json as { status: string }).status).toBe('completed');
  // A function tool of the same name as an MCP tool keeps it; the MCP tool is offered under another, its own in the items.
  const lookalike = { type: 'function', name: 'echo', parameters: { type: 'object', properties: {} } };
  const shadowed = await post(page, key, { model: MODEL, input: 'please echo', tools: [lookalike, mcpTool()] });
  expect(outputOf(shadowed).map((i) => i.type)).toEqual(['mcp_list_tools', 'function_call']);
  expect(outputOf(shadowed)[1]).toMatchObject({ name: 'echo' });
  const chosen = await post(page, key, {
    model: MODEL,
    input: 'hello',
    tools: [lookalike, mcpTool()],
    tool_choice: { type: 'mcp', server_label: 'test', name: 'echo' },
  });
  expect(outputOf(chosen).map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
  expect(outputOf(chosen)[1]).toMatchObject({ name: 'echo', output: 'echo: a', status: 'completed' });
});

test('mcpMaxCalls and mcpMaxTools: past the calls the rest are not run and the model answers; too many tools is a 424', async () => {
  app.override('/inpage.config.json', JSON.stringify({ mcpServers: [`${mcp.origin}/mcp`], ...SETTINGS, mcpMaxCalls: 1, mcpMaxTools: 5 }));
  try {
    const answer = await post(page, key, { model: MODEL, input: 'echo then whoami', tools: [mcpTool()] });
    const out = outputOf(answer);
    expect(out.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call', 'mcp_call', 'message']);
    expect(out[1]).toMatchObject({ name: 'echo', status: 'completed' });
    expect(out[2]).toMatchObject({ name: 'whoami', status: 'failed', output: null });
    expect(out[2]!.error).toContain('mcpMaxCalls');
    app.override('/inpage.config.json', JSON.stringify({ mcpServers: [`${mcp.origin}/mcp`], ...SETTINGS, mcpMaxTools: 4 }));
    const message = expectError(await post(page, key, { model: MODEL, input: 'x', tools: [mcpTool()] }), 424, 'http_error', 'tools[0]');
    expect(message).toContain('mcpMaxTools');
    // Narrowed by allowed_tools, the same server is within the bound.
    expect((await post(page, key, { model: MODEL, input: 'x', tools: [mcpTool({ allowed_tools: ['echo'] })] })).status).toBe(200);
  } finally {
    app.override('/inpage.config.json', JSON.stringify({ mcpServers: [`${mcp.origin}/mcp`], ...SETTINGS }));
  }
});

test('secrets: the authorization token reaches the server and appears in no answer, stored response or error', async () => {
  const tool = mcpTool({ authorization: MCP_TOKEN, headers: { 'x-team': `team-${MCP_TOKEN}` } });
  const answer = await post(page, key, { model: MODEL, input: 'who is whoami', tools: [tool] });
  expect(answer.status, answer.text).toBe(200);
  expect(outputOf(answer)[1]).toMatchObject({ name: 'whoami', output: 'token: right' });
  expect(mcp.requests.some((r) => r.authorization === `Bearer ${MCP_TOKEN}`)).toBe(true);
  expect(answer.text).not.toContain(MCP_TOKEN);
  const id = (answer.json as { id: string }).id;
  const stored = await call(page, `/v1/responses/${id}`, { headers: auth(key) });
  expect(stored.text).not.toContain(MCP_TOKEN);
  const items = await call(page, `/v1/responses/${id}/input_items`, { headers: auth(key) });
  expect(items.text).not.toContain(MCP_TOKEN);
  // An error about the server carries no token either.
  const refused = await post(page, key, { model: MODEL, input: 'x', tools: [{ ...tool, server_url: `${mcp.origin}/mcp/not-mcp` }] });
  expect(refused.status).toBe(424);
  expect(refused.text).not.toContain(MCP_TOKEN);
  // Nor does the database the responses are kept in.
  const kept = await page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((ok, fail) => {
      const open = indexedDB.open('inpage-responses');
      open.onsuccess = () => ok(open.result);
      open.onerror = () => fail(open.error);
    });
    const all = await new Promise<unknown[]>((ok) => {
      const req = db.transaction('responses').objectStore('responses').getAll();
      req.onsuccess = () => ok(req.result);
    });
    db.close();
    return JSON.stringify(all);
  });
  expect(kept.length).toBeGreaterThan(100);
  expect(kept).not.toContain(MCP_TOKEN);
});
