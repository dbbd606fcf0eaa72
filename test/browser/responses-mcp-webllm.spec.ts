// Issue 48 on the web-llm engine, in a browser: the test build with the knob `webllmFake` (test/engine/knobs.ts) runs
// the real web-llm adapter (worker/engine/webllm/) over its fake of web-llm, typed by web-llm's own interfaces
// (test/unit/fakes/webllm-fake.ts; scripted by test/engine/webllm-over-the-fake.ts, `webllmFakeEngine`), in the engine worker. A /v1/responses
// request whose tool_choice names an MCP tool of the loopback test server (test/mcp/server.ts): web-llm's forced
// call (its structural tag), run by the service worker on the server, the result read by web-llm in the next turn.
import { expect, test, type Page } from '@playwright/test';
import { auth, call, makeKey, openApp, type Answer } from './helpers';
import { serveStatic, TEST_BUILD_DIR, type StaticServer } from './static-server';
import { startMcpServer, type McpTestServer } from '../mcp/server';
import { TEST_CONTEXT_LENGTH } from '../engine/deterministic-engine';

test.describe.configure({ mode: 'serial' });

let app: StaticServer;
let mcp: McpTestServer;

test.beforeAll(async () => {
  app = await serveStatic(4790, { '/': TEST_BUILD_DIR });
  mcp = await startMcpServer(4791, app.origin);
  app.override('/inpage.config.json', JSON.stringify({ mcpServers: [`${mcp.origin}/mcp`] }));
});
test.afterAll(async () => {
  await mcp?.close();
  await app?.close();
});

type Item = Record<string, unknown> & { type: string };
const outputOf = (answer: Answer) => (answer.json as { output: Item[] }).output;
const post = (page: Page, key: string, body: unknown) => call(page, '/v1/responses', { method: 'POST', headers: auth(key), body: JSON.stringify(body) });
const body = () => ({
  model: 'svc-model-5.2-fast',
  input: 'who am I?',
  tools: [{ type: 'mcp', server_label: 'test', server_url: mcp.url, require_approval: 'never' }],
  tool_choice: { type: 'mcp', server_label: 'test', name: 'whoami' },
});

let page: Page;
let key: string;
test.beforeEach(async ({ page: p }) => {
  page = p;
  // The knob, as test builds take them: from the page's address.
  await openApp(page, `${app.origin}/test/pages/clients.html?webllmFake=1`);
  key = await makeKey(page);
});

test('web-llm: tool_choice forces the MCP call, inpage runs it, web-llm reads the result; JSON and stream', async () => {
  // This device's engine is web-llm's, not the deterministic one: the context is web-llm's sizing of the model for
  // the fake's GPU (the deterministic engine reports TEST_CONTEXT_LENGTH, 4096).
  const model = (await call(page, '/v1/models/svc-model-5.2-fast', { headers: auth(key) })).json as { context_length: number };
  expect(model.context_length).toBeGreaterThan(TEST_CONTEXT_LENGTH);
  const answer = await post(page, key, body());
  expect(answer.status, answer.text).toBe(200);
  const out = outputOf(answer);
  expect(out.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
  expect((out[0]!.tools as { name: string }[]).map((t) => t.name)).toEqual(['echo', 'slow', 'fail', 'large', 'whoami']);
  expect(out[1]).toMatchObject({ server_label: 'test', name: 'whoami', arguments: '{}', output: 'token: missing', error: null, status: 'completed' });
  expect((out[2]!.content as { text: string }[])[0]!.text).toBe('Tool said: token: missing');

  const streamed = await post(page, key, { ...body(), stream: true });
  expect(streamed.status).toBe(200);
  const events = streamed.text
    .split('\n\n')
    .filter((block) => block.length > 0)
    .map((block) => JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as { type: string; response?: { output: Item[] }; delta?: string });
  expect(events.map((e) => e.type).filter((t) => t.includes('mcp'))).toEqual([
    'response.mcp_list_tools.in_progress',
    'response.mcp_list_tools.completed',
    'response.mcp_call_arguments.delta',
    'response.mcp_call_arguments.done',
    'response.mcp_call.in_progress',
    'response.mcp_call.completed',
  ]);
  expect(
    events
      .filter((e) => e.type === 'response.output_text.delta')
      .map((e) => e.delta)
      .join(''),
  ).toBe('Tool said: token: missing');
  const done = events.at(-1)!;
  expect(done.type).toBe('response.completed');
  expect(done.response!.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
  expect(done.response!.output[1]).toMatchObject({ name: 'whoami', output: 'token: missing', status: 'completed' });
});
