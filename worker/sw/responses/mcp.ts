// Remote MCP tools of /v1/responses (docs/responses.md#remote-mcp-tools): the servers a request's `mcp` tools name,
// reached from the service worker with the official SDK's client (Streamable HTTP, else the older HTTP+SSE), their
// tools listed (or taken from the conversation `previous_response_id` continues), offered to the model as
// functions, and each call the model makes run here, bounded by the deployment's MCP_BOUNDS. `authorization`
// and `headers` are used for the requests only: nothing here stores, echoes or logs them, and every text that
// comes back (errors included) has them blanked out.
import { Client } from '@modelcontextprotocol/sdk/client';
// The SDK's `./*` export maps types to `*.d.ts` (here `sse.js.d.ts`), which the lint resolver cannot follow; tsc and Vite do.
// eslint-disable-next-line import-x/no-unresolved -- see above
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
// eslint-disable-next-line import-x/no-unresolved -- see above
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { ApiError } from '#shared/protocol/errors';
import { mcpServerAllowed, type McpBounds } from '#shared/mcp-servers';
import type { McpTool, ResponsesRequest } from './request';
import type { ConversationItem, McpCallItem, McpListToolsItem, McpToolInfo } from './items';
import { itemId } from './items';

/** The MCP tool of a request, as the response echoes it: its secrets left out (`headers` kept as null). */
export function echoMcpTool(tool: McpTool): Record<string, unknown> {
  return {
    type: 'mcp',
    server_label: tool.server_label,
    server_url: tool.server_url,
    server_description: tool.server_description ?? null,
    headers: null,
    allowed_tools: tool.allowed_tools ?? null,
    require_approval: tool.require_approval ?? 'always',
  };
}

const mcpToolsOf = (request: ResponsesRequest): { tool: McpTool; at: number }[] =>
  (request.tools ?? []).flatMap((tool, at) => (tool.type === 'mcp' ? [{ tool, at }] : []));

/**
 * The request's MCP tools against the deployment's `mcpServers` (400 `invalid_value` naming `tools[i].server_url`
 * and the setting), one label per server, and a `tool_choice` naming one of them.
 */
export function checkMcpTools(request: ResponsesRequest, mcpServers: unknown): void {
  const labels = new Set<string>();
  for (const { tool, at } of mcpToolsOf(request)) {
    if (!mcpServerAllowed(tool.server_url, mcpServers)) {
      throw new ApiError(
        'invalid_value',
        `Invalid 'tools[${at}].server_url': this deployment does not allow the MCP server ${JSON.stringify(safeUrl(tool.server_url))} (the 'mcpServers' setting of inpage.config.json names the servers its pages may reach).`,
        { param: `tools[${at}].server_url` },
      );
    }
    if (/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(tool.server_url)) {
      throw new ApiError('invalid_value', `Invalid 'tools[${at}].server_url': a user or password in the URL is not sent; give a token as 'authorization'.`, {
        param: `tools[${at}].server_url`,
      });
    }
    // What fetch would refuse (a header name that is no token, a value with a line break) is the request's error.
    for (const [name, value] of Object.entries(tool.headers ?? {})) {
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || /[\r\n\0]/.test(value)) {
        throw new ApiError('invalid_value', `Invalid 'tools[${at}].headers': a header name must be a token and a value one line.`, {
          param: `tools[${at}].headers`,
        });
      }
    }
    if (tool.authorization && /[\r\n\0]/.test(tool.authorization)) {
      throw new ApiError('invalid_value', `Invalid 'tools[${at}].authorization': the token must be one line.`, { param: `tools[${at}].authorization` });
    }
    if (labels.has(tool.server_label)) {
      throw new ApiError('invalid_value', `Invalid 'tools[${at}].server_label': '${tool.server_label}' names another MCP tool of this request already.`, {
        param: `tools[${at}].server_label`,
      });
    }
    labels.add(tool.server_label);
  }
  const choice = request.tool_choice;
  if (typeof choice === 'object' && choice.type === 'mcp' && !labels.has(choice.server_label)) {
    throw new ApiError('invalid_value', `Invalid 'tool_choice.server_label': no MCP tool of this request has the label '${choice.server_label}'.`, {
      param: 'tool_choice.server_label',
    });
  }
}

/** A URL as it may be shown: without user, password, query or fragment (where secrets ride). */
function safeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(not a URL)';
  }
}

/**
 * The function name the model knows a server's tool by: its own name where it is a valid function name (OpenAI's
 * `^[a-zA-Z0-9_-]{1,64}$`) no other tool of the request has; else made one (`<label>__<name>`, other characters as
 * `_`, cut to 64, numbered where it still clashes).
 */
function functionName(label: string, name: string, taken: ReadonlySet<string>): string {
  if (/^[a-zA-Z0-9_-]{1,64}$/.test(name) && !taken.has(name)) return name;
  const base = `${label}__${name}`.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base.slice(0, 64 - String(n).length - 1)}_${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** One of the request's MCP servers, with the tools offered to the model. */
interface McpServerPlan {
  tool: McpTool;
  /** The listing: this response's own (new), or the conversation's (reused). */
  listing: McpListToolsItem;
  reused: boolean;
}

/** A tool offered to the model: its chat function, and the server and name it stands for. */
export interface OfferedTool {
  server: McpServerPlan;
  info: McpToolInfo;
  /** The function name the model sees (the tool's name, or `<label>__<name>` where two servers share one). */
  modelName: string;
}

function toolInfo(tool: { name: string; description?: string | null; inputSchema?: unknown; annotations?: unknown }): McpToolInfo {
  const schema = tool.inputSchema && typeof tool.inputSchema === 'object' ? (tool.inputSchema as Record<string, unknown>) : { type: 'object' };
  const annotations = tool.annotations && typeof tool.annotations === 'object' ? (tool.annotations as Record<string, unknown>) : null;
  return { name: tool.name, description: tool.description ?? null, input_schema: schema, annotations };
}

interface Filter {
  tool_names?: string[] | undefined;
  read_only?: boolean | undefined;
}

/** Whether a filter takes a tool: each criterion it gives holds (its names hold the tool's; read-only as asked). */
function matches(filter: Filter, info: McpToolInfo): boolean {
  if (filter.tool_names !== undefined && !filter.tool_names.includes(info.name)) return false;
  if (filter.read_only !== undefined && (info.annotations?.readOnlyHint === true) !== filter.read_only) return false;
  return filter.tool_names !== undefined || filter.read_only !== undefined;
}

function allowed(tool: McpTool, info: McpToolInfo): boolean {
  const a = tool.allowed_tools;
  if (a === undefined || a === null) return true;
  return Array.isArray(a) ? a.includes(info.name) : matches(a, info);
}

/** Whether a call of `name` waits for the client's approval: OpenAI's `require_approval` (default: always). */
export function needsApproval(tool: McpTool, info: McpToolInfo): boolean {
  const r = tool.require_approval;
  if (r === undefined || r === null || r === 'always') return true;
  if (r === 'never') return false;
  if (r.never && matches(r.never, info)) return false;
  return true;
}

/** Where an MCP failure's text may not go on as it is: every secret the request gave, blanked out. */
function redactor(tool: McpTool): (text: string) => string {
  const secrets = [tool.authorization ?? '', ...Object.values(tool.headers ?? {})].filter((s) => s.length >= 4);
  return (text) => secrets.reduce((out, secret) => out.split(secret).join('[redacted]'), text);
}

/** Accepts every value: tool results are untrusted text for the model, never checked code (and ajv's compiler evaluates code). */
const ACCEPT_ALL: jsonSchemaValidator = {
  getValidator: () => (input) => ({ valid: true, data: input as never, errorMessage: undefined }),
};

/** Why a server could not be used, in words that carry no secret. */
function describeFailure(err: unknown, tool: McpTool, timeoutMs: number, origin: string): string {
  const where = `the MCP server '${tool.server_label}' (${safeUrl(tool.server_url)})`;
  if (err instanceof StreamableHTTPError && err.code !== undefined && err.code > 0) return `${where} answered HTTP ${err.code}.`;
  const message = err instanceof Error ? err.message : String(err);
  if (/timed out|timeout/i.test(message)) return `${where} did not answer within ${timeoutMs} ms (mcpCallTimeoutMs).`;
  if (err instanceof TypeError && /fetch|network/i.test(message)) {
    return `Could not reach ${where}: the request failed before any answer (the server is down, or does not allow this page's origin ${origin} by CORS: it must allow it, with the headers authorization, content-type, mcp-session-id and mcp-protocol-version).`;
  }
  if (/HTTP \d{3}/.test(message)) return `${where} answered ${/HTTP \d{3}/.exec(message)![0]}.`;
  return `${where} did not answer as an MCP server: ${redactor(tool)(message).slice(0, 300)}`;
}

/** The connections of one response to its MCP servers: opened when first needed, closed at the end. */
export class McpSession {
  private readonly clients = new Map<string, Promise<Client>>();
  readonly servers: McpServerPlan[] = [];
  readonly offered = new Map<string, OfferedTool>();
  /** Calls run so far in this response (the `mcpMaxCalls` bound). */
  calls = 0;

  constructor(
    private readonly bounds: McpBounds,
    private readonly origin: string,
  ) {}

  private headers(tool: McpTool): Record<string, string> {
    const headers: Record<string, string> = { ...(tool.headers ?? {}) };
    if (tool.authorization) headers.authorization = `Bearer ${tool.authorization}`;
    return headers;
  }

  private client(tool: McpTool, signal: AbortSignal): Promise<Client> {
    let client = this.clients.get(tool.server_label);
    if (!client) {
      client = this.connect(tool, signal);
      this.clients.set(tool.server_label, client);
      client.catch(() => this.clients.delete(tool.server_label));
    }
    return client;
  }

  private async connect(tool: McpTool, signal: AbortSignal): Promise<Client> {
    const url = new URL(tool.server_url);
    const requestInit: RequestInit = { headers: this.headers(tool), credentials: 'omit', signal };
    const options = { timeout: this.bounds.mcpCallTimeoutMs, signal };
    const make = () => new Client({ name: 'inpage', version: '1' }, { jsonSchemaValidator: ACCEPT_ALL });
    const client = make();
    try {
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit }), options);
      return client;
    } catch (err) {
      // The older HTTP+SSE transport, where the server answers the Streamable HTTP POST with 4xx (MCP's advice).
      if (!(err instanceof StreamableHTTPError) || err.code === undefined || err.code < 400 || err.code >= 500) throw err;
      const old = make();
      await old.connect(
        new SSEClientTransport(url, {
          requestInit,
          eventSourceInit: {
            fetch: (input, init) =>
              fetch(input, { ...init, ...requestInit, headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), ...this.headers(tool) } }),
          },
        }),
        options,
      );
      return old;
    }
  }

  /**
   * Each MCP tool's listing: the one of the conversation `previous_response_id` continues for the same label (its
   * latest without error), else the server's, listed now (a failure is 424 naming the server, as OpenAI answers).
   */
  async list(request: ResponsesRequest, previous: readonly ConversationItem[], signal: AbortSignal): Promise<void> {
    const tools = mcpToolsOf(request);
    const listings = await Promise.all(
      tools.map(async ({ tool, at }) => {
        const earlier = [...previous]
          .reverse()
          .find((item): item is McpListToolsItem => item.type === 'mcp_list_tools' && item.server_label === tool.server_label && item.error === null);
        if (earlier) return { tool, listing: earlier, reused: true };
        return { tool, listing: await this.listNow(tool, at, signal), reused: false };
      }),
    );
    // The function tools' names are taken first: an MCP tool never shadows one.
    const taken = new Set((request.tools ?? []).flatMap((t) => (t.type === 'function' ? [t.name] : [])));
    for (const server of listings) {
      this.servers.push(server);
      for (const info of server.listing.tools) {
        if (!allowed(server.tool, info)) continue;
        const modelName = functionName(server.tool.server_label, info.name, taken);
        taken.add(modelName);
        this.offered.set(modelName, { server, info, modelName });
      }
    }
  }

  private async listNow(tool: McpTool, at: number, signal: AbortSignal): Promise<McpListToolsItem> {
    let listed: McpToolInfo[];
    try {
      const client = await this.client(tool, signal);
      const result = await client.listTools(undefined, { timeout: this.bounds.mcpCallTimeoutMs, signal });
      listed = result.tools.map(toolInfo);
    } catch (err) {
      if (signal.aborted) throw err;
      throw new ApiError(
        'http_error',
        `Error retrieving tool list from MCP server: '${tool.server_label}'. ${describeFailure(err, tool, this.bounds.mcpCallTimeoutMs, this.origin)}`,
        {
          param: `tools[${at}]`,
        },
      );
    }
    const kept = listed.filter((info) => allowed(tool, info));
    if (kept.length > this.bounds.mcpMaxTools) {
      throw new ApiError(
        'http_error',
        `Error retrieving tool list from MCP server: '${tool.server_label}'. It offers ${kept.length} tools; this deployment takes at most ${this.bounds.mcpMaxTools} from one server (mcpMaxTools): narrow them with 'allowed_tools'.`,
        { param: `tools[${at}]` },
      );
    }
    return { id: itemId('mcpl'), type: 'mcp_list_tools', server_label: tool.server_label, tools: kept, error: null };
  }

  /** The new listings (this response's `mcp_list_tools` items), in the order of `tools`. */
  newListings(): McpListToolsItem[] {
    return this.servers.filter((s) => !s.reused).map((s) => s.listing);
  }

  /** The functions the model is offered. */
  chatTools(): Record<string, unknown>[] {
    return [...this.offered.values()].map((o) => ({
      type: 'function',
      function: { name: o.modelName, ...(o.info.description ? { description: o.info.description } : {}), parameters: o.info.input_schema },
    }));
  }

  /** The model-visible name of `name` on the server labelled `label`, if it is offered. */
  modelNameOf(label: string, name: string): string | undefined {
    for (const o of this.offered.values()) if (o.server.tool.server_label === label && o.info.name === name) return o.modelName;
    return undefined;
  }

  /** The tool a name the model called stands for, if it is an MCP tool (found again by label for approvals). */
  find(label: string, name: string): OfferedTool | undefined {
    const modelName = this.modelNameOf(label, name);
    return modelName === undefined ? undefined : this.offered.get(modelName);
  }

  /**
   * Runs one call; fills the item's `output` (cut at `mcpMaxResultBytes`) or `error`, status `completed` or
   * `failed`. Never throws but for the client's abort.
   */
  async call(offered: OfferedTool, item: McpCallItem, signal: AbortSignal): Promise<void> {
    const tool = offered.server.tool;
    const redact = redactor(tool);
    this.calls++;
    let args: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(item.arguments || '{}');
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      args = parsed as Record<string, unknown>;
    } catch {
      item.status = 'failed';
      item.error = `The arguments of '${item.name}' are not a JSON object.`;
      return;
    }
    try {
      const client = await this.client(tool, signal);
      const result = await client.callTool({ name: offered.info.name, arguments: args }, undefined, { timeout: this.bounds.mcpCallTimeoutMs, signal });
      const answer = result as { content?: unknown; structuredContent?: unknown; isError?: unknown };
      const text = resultText(answer);
      if (answer.isError === true) {
        item.status = 'failed';
        item.error = cut(redact(text), this.bounds.mcpMaxResultBytes);
      } else {
        item.status = 'completed';
        item.output = cut(redact(text), this.bounds.mcpMaxResultBytes);
      }
    } catch (err) {
      if (signal.aborted) throw err;
      item.status = 'failed';
      const message = err instanceof Error ? err.message : String(err);
      item.error = /timed out|timeout/i.test(message)
        ? `The MCP server '${tool.server_label}' did not answer the call of '${item.name}' within ${this.bounds.mcpCallTimeoutMs} ms (mcpCallTimeoutMs).`
        : cut(redact(`Error calling '${item.name}' on the MCP server '${tool.server_label}': ${message}`), 2048);
    }
  }

  /** Closes every connection (at the end of the response, whatever the end). */
  async close(): Promise<void> {
    const clients = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(clients.map((c) => c.then((client) => client.close()).catch(() => undefined)));
  }
}

/** A call's result as the model reads it: text parts joined by newlines, other parts named, else the structured result. */
function resultText(result: { content?: unknown; structuredContent?: unknown }): string {
  const parts = Array.isArray(result.content) ? (result.content as { type?: unknown; text?: unknown; mimeType?: unknown }[]) : [];
  if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return parts
    .map((part) =>
      part.type === 'text' && typeof part.text === 'string'
        ? part.text
        : `[${String(part.type)}${typeof part.mimeType === 'string' ? ` ${part.mimeType}` : ''}]`,
    )
    .join('\n');
}

/** `text` cut to at most `max` bytes of UTF-8 (at a character), saying so. */
export function cut(text: string, max: number): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= max) return text;
  const kept = new TextDecoder().decode(bytes.slice(0, max)).replace(/\uFFFD$/, '');
  return `${kept}\n[cut: the result was ${bytes.length} bytes; mcpMaxResultBytes is ${max}]`;
}

/** A new `mcp_call` item for a call the model made (or an approved request). */
export function newCall(offered: OfferedTool, args: string, approvalRequestId: string | null = null): McpCallItem {
  return {
    id: itemId('mcp'),
    type: 'mcp_call',
    server_label: offered.server.tool.server_label,
    name: offered.info.name,
    arguments: args,
    output: null,
    error: null,
    status: 'in_progress',
    approval_request_id: approvalRequestId,
  };
}
