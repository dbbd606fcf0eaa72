// Issue 48 through an upstream (docs/responses.md#remote-mcp-tools): a model id this deployment maps to the
// OpenAI-compatible test server (test/upstream/server.ts, whose deterministic flavours run the same rules as the
// test engine) answers a /v1/responses request with an `mcp` tool. The upstream only sees functions: it emits the
// call, inpage (the service worker) runs it against the loopback MCP server (test/mcp/server.ts) and sends the
// result back to the upstream in the next turn, and the answer carries `mcp_list_tools` and `mcp_call` items.
import { expect, test, type Page } from '@playwright/test';
import { auth, call, makeKey, openApp, type Answer } from './helpers';
import { serveStatic, TEST_BUILD_DIR, type StaticServer } from './static-server';
import { MCP_TOKEN, startMcpServer, type McpTestServer } from '../mcp/server';
import { UPSTREAM_PORT } from '../../playwright.config';

test.describe.configure({ mode: 'serial' });

const UP = `http://127.0.0.1:${UPSTREAM_PORT}`;
const HOST = `upstream; host=127.0.0.1:${UPSTREAM_PORT}`;
const MODEL = 'svc-model-5.2-fast';
let app: StaticServer;
let mcp: McpTestServer;
const tag = `mcp${process.pid}-${Date.now()}`;

test.beforeAll(async () => {
  app = await serveStatic(4787, { '/': TEST_BUILD_DIR });
  mcp = await startMcpServer(4788, app.origin);
  app.override(
    '/inpage.config.json',
    JSON.stringify({
      mcpServers: [`${mcp.origin}/mcp`],
      upstreams: { gpu: { url: `${UP}/${tag}/vllm/v1`, dialect: 'vllm' } },
      models: { [MODEL]: { mode: 'upstream', upstream: { model: `up/${MODEL}` } } },
    }),
  );
});
test.afterAll(async () => {
  await mcp?.close();
  await app?.close();
});

type Item = Record<string, unknown> & { type: string };
const outputOf = (answer: Answer) => (answer.json as { output: Item[] }).output;
const post = (page: Page, key: string, body: unknown) => call(page, '/v1/responses', { method: 'POST', headers: auth(key), body: JSON.stringify(body) });
const mcpTool = (extra: Record<string, unknown> = {}) => ({ type: 'mcp', server_label: 'test', server_url: mcp.url, require_approval: 'never', ...extra });
/** The chat requests the upstream received (its log names each request: `vllm /v1/chat/completions`). */
const upstreamChats = async (): Promise<number> =>
  ((await (await fetch(`${UP}/${tag}/_log`)).json()) as string[]).filter((line) => line.endsWith('/chat/completions')).length;
const upstreamLast = async (): Promise<{ messages: { role: string; content: unknown; tool_calls?: unknown[] }[]; tools?: { function: { name: string } }[] }> =>
  (await (await fetch(`${UP}/${tag}/_last`)).json()) as never;

/** A Responses stream's events (`event: …` then `data: …` per block), parsed. */
const eventsOf = (text: string) =>
  text
    .split('\n\n')
    .filter((block) => block.length > 0)
    .map((block) => JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as { type: string; response?: { output: Item[] } });

let page: Page;
let key: string;
test.beforeEach(async ({ page: p }) => {
  page = p;
  await openApp(page, `${app.origin}/test/pages/clients.html`);
  key = await makeKey(page);
});

test('upstream: the model calls an MCP tool, inpage runs it and the upstream reads the result; JSON and stream', async () => {
  const before = await upstreamChats();
  const tool = mcpTool({ authorization: MCP_TOKEN, headers: { 'x-team': 'blue' } });
  const answer = await post(page, key, { model: MODEL, input: 'please echo', tools: [tool] });
  expect(answer.status, answer.text).toBe(200);
  expect(answer.headers['x-inpage-served-by']).toBe(HOST);
  const out = outputOf(answer);
  expect(out.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
  expect((out[0]!.tools as { name: string }[]).map((t) => t.name)).toEqual(['echo', 'slow', 'fail', 'large', 'whoami']);
  expect(out[1]).toMatchObject({ server_label: 'test', name: 'echo', arguments: '{"text":"a"}', output: 'echo: a', error: null, status: 'completed' });
  expect((out[2]!.content as { text: string }[])[0]!.text).toBe('Tool said: echo: a');
  // Two turns reached the upstream: the call, then its result.
  expect((await upstreamChats()) - before).toBe(2);
  const last = await upstreamLast();
  expect(last.tools?.map((t) => t.function.name)).toEqual(['echo', 'slow', 'fail', 'large', 'whoami']);
  expect(last.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
  expect(last.messages[2]!.content).toBe('echo: a');
  // The upstream got functions only: no MCP tool, no token, no header of the server's.
  const sentUp = await (await fetch(`${UP}/${tag}/_last`)).text();
  expect(sentUp).not.toContain(MCP_TOKEN);
  expect(sentUp).not.toContain('x-team');
  expect(sentUp).not.toContain(mcp.url);
  expect(mcp.requests.some((r) => r.authorization === `Bearer ${MCP_TOKEN}`)).toBe(true);
  // The MCP server was reached from the page's origin (the service worker), never by the upstream.
  expect(mcp.requests.filter((r) => r.method === 'POST' && r.path === '/mcp').length).toBeGreaterThan(0);

  const streamed = await post(page, key, { model: MODEL, input: 'please echo', tools: [mcpTool()], stream: true });
  expect(streamed.status).toBe(200);
  const events = eventsOf(streamed.text);
  expect(events.map((e) => e.type).filter((t) => t.includes('mcp'))).toEqual([
    'response.mcp_list_tools.in_progress',
    'response.mcp_list_tools.completed',
    'response.mcp_call_arguments.delta',
    'response.mcp_call_arguments.done',
    'response.mcp_call.in_progress',
    'response.mcp_call.completed',
  ]);
  const completed = events.at(-1)!;
  expect(completed.type).toBe('response.completed');
  expect(completed.response!.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
  expect(completed.response!.output[1]).toMatchObject({ name: 'echo', output: 'echo: a', status: 'completed' });
});

test('upstream: require_approval asks first; the approval through previous_response_id runs the call and the upstream answers', async () => {
  const tool = mcpTool({ require_approval: 'always' });
  const asked = await post(page, key, { model: MODEL, input: 'please echo', tools: [tool] });
  expect(asked.status, asked.text).toBe(200);
  const out = outputOf(asked);
  expect(out.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_approval_request']);
  expect(out[1]).toMatchObject({ server_label: 'test', name: 'echo', arguments: '{"text":"a"}' });
  const calls = mcp.requests.filter((r) => r.method === 'POST').length;
  const approved = await post(page, key, {
    model: MODEL,
    tools: [tool],
    previous_response_id: (asked.json as { id: string }).id,
    input: [{ type: 'mcp_approval_response', approval_request_id: out[1]!.id, approve: true }],
    stream: true,
  });
  expect(approved.status).toBe(200);
  const events = eventsOf(approved.text);
  const done = events.at(-1)!;
  expect(done.type).toBe('response.completed');
  const output = done.response!.output;
  // The listing is the conversation's: not listed again.
  expect(output.map((i) => i.type)).toEqual(['mcp_call', 'message']);
  expect(output[0]).toMatchObject({ name: 'echo', output: 'echo: a', approval_request_id: out[1]!.id, status: 'completed' });
  expect((output[1]!.content as { text: string }[])[0]!.text).toBe('Tool said: echo: a');
  expect(mcp.requests.filter((r) => r.method === 'POST').length).toBeGreaterThan(calls);
  // The upstream read the approved call and its result.
  const last = await upstreamLast();
  expect(last.messages.at(-1)).toMatchObject({ role: 'tool', content: 'echo: a' });
});
