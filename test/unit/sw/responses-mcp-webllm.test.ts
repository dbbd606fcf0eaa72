// Issue 48 on the web-llm engine: a /v1/responses request with an `mcp` tool, answered by the service worker's
// Responses route (worker/sw/responses/route.ts, its MCP tool loop in runAnswer) over the web-llm adapter
// (worker/engine/webllm/adapter.ts) on its typed fake of web-llm (webllm-fake.ts, typed by web-llm's own
// MLCEngineInterface), against the real MCP test server (test/mcp/server.ts) on loopback. No browser deployment
// runs web-llm (the production build's needs a GPU and weights; the test build's engine is the deterministic one),
// so the link between the two halves is the one thing here that is not the shipped code: it plans each request as
// the engine worker's scheduler does (withPlan) and hands the adapter's events to the route as the engine link does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatCompletionRequest } from '@mlc-ai/web-llm';
import { DEFAULT_CONFIG, type InpageConfig } from '#shared/config';
import { DEFAULT_CATALOG } from '#shared/model-config';
import { EngineRun } from '#shared/wire/engine-run';
import type { EngineLink } from '#shared/wire/engine-link';
import type { ChatCompletionRequest as InpageChatRequest } from '#shared/protocol/types';
import { ApiError } from '#shared/protocol/errors';
import { WebLlmEngine } from '../../../worker/engine/webllm/adapter';
import { renderCall } from '../../../worker/engine/webllm/tool-formats/qwen3';
import { withPlan } from '../../../worker/engine/common/plan';
import { createResponse } from '../../../worker/sw/responses/route';
import type { Caller } from '../../../worker/sw/access';
import { rig, type FakeEngine } from '../fakes/webllm-fake';
import { startMcpServer, type McpTestServer } from '../../mcp/server';

let mcp: McpTestServer;
beforeAll(async () => {
  mcp = await startMcpServer(4789, 'http://app.example');
});
afterAll(async () => {
  await mcp?.close();
});

/** The model writing `text`, a few characters per token. */
const pieces = (text: string) => text.match(/[\s\S]{1,3}/g) ?? [];

/**
 * The web-llm engine, whose model calls `echo` when it is offered tools and has read no result, and says the result
 * back once it has (Qwen3's format: a `<tool_response>` in the last user turn).
 */
function webLlm(): { adapter: WebLlmEngine; requests: ChatCompletionRequest[] } {
  const r = rig();
  const requests: ChatCompletionRequest[] = [];
  const create = r.deps.createEngine;
  r.deps.createEngine = (config) => {
    const engine = create(config) as FakeEngine;
    engine.script = (request) => {
      requests.push(request);
      const last = request.messages.at(-1)!;
      const result = typeof last.content === 'string' ? /<tool_response>\n([\s\S]*?)\n<\/tool_response>/.exec(last.content) : null;
      if (result) return { pieces: pieces(`The tool said ${result[1]}.`) };
      return { pieces: pieces(renderCall('echo', '{"text": "from web-llm"}')) };
    };
    return engine;
  };
  return { adapter: new WebLlmEngine({ ...DEFAULT_CONFIG }, r.deps), requests };
}

/** The engine link as the service worker has it, its engine the adapter (planned as the scheduler plans). */
function linkTo(adapter: WebLlmEngine): EngineLink {
  return {
    generate: async (request: InpageChatRequest, signal: AbortSignal) => {
      const generation = await adapter.generate(withPlan(request), signal);
      const run = new EngineRun();
      void (async () => {
        try {
          for await (const event of generation.events) run.push(event);
          run.settleSpent(null);
          run.end();
        } catch (err) {
          run.fail(ApiError.from(err));
        }
      })();
      return run;
    },
  } as unknown as EngineLink;
}

const caller: Caller = {
  key: { id: 'key_webllm' } as Caller['key'],
  catalog: DEFAULT_CATALOG,
  useModel: () => undefined,
  useVariant: () => undefined,
  accounting: { book: () => ({ journaled: Promise.resolve(), booked: Promise.resolve() }), keepAlive: () => undefined },
};
const settings = async (): Promise<InpageConfig> => ({ ...DEFAULT_CONFIG, mcpServers: [mcp.url] });

async function respond(adapter: WebLlmEngine, body: Record<string, unknown>): Promise<{ status: number; text: string }> {
  const request = new Request('http://app.example/v1/responses', {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  const response = await createResponse(linkTo(adapter), request, caller, settings);
  return { status: response.status, text: await response.text() };
}

type Item = Record<string, unknown> & { type: string };

describe('web-llm: remote MCP tools through /v1/responses', () => {
  const body = () => ({
    model: 'svc-model-5.2-fast',
    input: 'say it through echo',
    tools: [{ type: 'mcp', server_label: 'test', server_url: mcp.url, require_approval: 'never', allowed_tools: ['echo', 'whoami'] }],
    tool_choice: { type: 'mcp', server_label: 'test', name: 'echo' },
    store: false,
  });

  it('tool_choice forces the call; inpage runs it on the server, web-llm reads the result; the mcp items in the answer (JSON)', async () => {
    const { adapter, requests } = webLlm();
    const posts = mcp.requests.filter((r) => r.method === 'POST').length;
    const answer = await respond(adapter, body());
    expect(answer.status, answer.text).toBe(200);
    const output = (JSON.parse(answer.text) as { output: Item[] }).output;
    expect(output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    expect((output[0]!.tools as { name: string }[]).map((t) => t.name)).toEqual(['echo', 'whoami']);
    expect(output[1]).toMatchObject({ server_label: 'test', name: 'echo', output: 'echo: from web-llm', error: null, status: 'completed' });
    expect(JSON.parse(output[1]!.arguments as string)).toEqual({ text: 'from web-llm' });
    expect((output[2]!.content as { text: string }[])[0]!.text).toBe('The tool said echo: from web-llm.');
    // Two generations on web-llm: the forced call (held to echo's schema by the structural tag in response_format), then the turn with the result.
    expect(requests).toHaveLength(2);
    expect(requests[0]!.messages[0]!.content).toContain('"name": "echo"');
    type Tags = { structural_tag: { format: { type: string; at_least_one: boolean; tags: { begin: string }[] } } };
    const forced = (requests[0]!.response_format as unknown as Tags).structural_tag.format;
    expect(forced).toMatchObject({ type: 'tags_with_separator', at_least_one: true });
    expect(forced.tags.map((t) => t.begin)).toEqual(['<tool_call>\n{"name": "echo", "arguments": ']);
    // The turn after it is not forced: either tool may be called, or none.
    const free = (requests[1]!.response_format as unknown as Tags).structural_tag.format;
    expect(free).toMatchObject({ type: 'triggered_tags', at_least_one: false });
    expect(free.tags.map((t) => t.begin)).toEqual(['<tool_call>\n{"name": "echo", "arguments": ', '<tool_call>\n{"name": "whoami", "arguments": ']);
    expect(requests[1]!.messages.at(-1)!.content).toBe('<tool_response>\necho: from web-llm\n</tool_response>');
    expect(mcp.requests.filter((r) => r.method === 'POST').length).toBeGreaterThan(posts);
  });

  it('the same streamed: the listing and call events in order, then response.completed with the items', async () => {
    const { adapter } = webLlm();
    const answer = await respond(adapter, { ...body(), stream: true });
    expect(answer.status).toBe(200);
    const events = answer.text
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
    ).toBe('The tool said echo: from web-llm.');
    const done = events.at(-1)!;
    expect(done.type).toBe('response.completed');
    expect(done.response!.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    expect(done.response!.output[1]).toMatchObject({ name: 'echo', output: 'echo: from web-llm', status: 'completed' });
  });
});
