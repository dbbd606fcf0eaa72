// Issue 48 on the real llama.cpp engine (production build, CPU, a synthesized GGUF): a Responses request whose
// tool_choice names an MCP tool of the loopback test server (test/mcp/server.ts) makes a call held to the tool's
// schema by llama.cpp's grammar from the first token (the argument-less `whoami`, so a random model's call is whole within any limit); inpage runs it against the server and the model's next turn
// reads the result, in one response, JSON and streamed.
import { expect, test } from '@playwright/test';
import { synthesizeGguf } from '../../scripts/gguf/synthesize';
import { call, auth } from './helpers';
import { llamaCppDeployment, ggufPath } from './llamacpp-deployment';
import { startMcpServer, type McpTestServer } from '../mcp/server';

test.describe.configure({ mode: 'serial' });

const deployment = llamaCppDeployment({
  port: 4785,
  prefix: 'mcp',
  files: (put) => put(ggufPath('qwen3-1.7b'), synthesizeGguf({ seed: 7 }).bytes),
});

let mcp: McpTestServer;
test.beforeAll(async () => {
  mcp = await startMcpServer(4786, deployment.server.origin);
  deployment.server.override('/inpage.config.json', JSON.stringify({ ggufBaseUrl: '/gguf', engineHeartbeatMs: 0, mcpServers: [mcp.url] }));
});
test.afterAll(async () => {
  await mcp?.close();
});

type Item = Record<string, unknown> & { type: string };

test('llama.cpp: tool_choice naming an MCP tool: the call is a whole grammar-held one, runs on the server, and the model reads the result', async () => {
  test.setTimeout(180_000);
  const { page, key } = await deployment.open();
  const body = {
    model: 'svc-model-5.2-short-fast',
    input: 'Say something back.',
    tools: [{ type: 'mcp', server_label: 'test', server_url: mcp.url, require_approval: 'never', allowed_tools: ['whoami'] }],
    // A tool without arguments: the random model's call is whole within any output limit.
    tool_choice: { type: 'mcp', server_label: 'test', name: 'whoami' },
    temperature: 1,
    max_output_tokens: 48,
  };
  const answer = await call(page, '/v1/responses', { method: 'POST', headers: auth(key), body: JSON.stringify(body) });
  expect(answer.status, answer.text).toBe(200);
  const output = (answer.json as { output: Item[] }).output;
  expect(output.map((i) => i.type).slice(0, 2)).toEqual(['mcp_list_tools', 'mcp_call']);
  const made = output[1]!;
  expect(JSON.parse(made.arguments as string)).toEqual({});
  expect(made).toMatchObject({ name: 'whoami', status: 'completed', error: null, output: 'token: missing' });
  // The model's next turn: not forced, so it may answer or be cut by max_output_tokens; either way no second listing.
  expect(output.slice(2).every((i) => i.type === 'message' || i.type === 'reasoning' || i.type === 'mcp_call')).toBe(true);
  expect(mcp.requests.some((r) => r.method === 'POST' && r.path === '/mcp')).toBe(true);

  const streamed = await call(page, '/v1/responses', { method: 'POST', headers: auth(key), body: JSON.stringify({ ...body, stream: true }) });
  expect(streamed.status).toBe(200);
  const types = streamed.text
    .split('\n\n')
    .filter((b) => b.length > 0)
    .map((b) => /^event: (.+)$/m.exec(b)![1]!);
  expect(types).toContain('response.mcp_call.completed');
  expect(['response.completed', 'response.incomplete']).toContain(types.at(-1));
  await page.context().close();
});
