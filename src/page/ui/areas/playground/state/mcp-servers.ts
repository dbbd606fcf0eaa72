// The Playground's remote MCP servers (docs/workspace.md, docs/responses.md#remote-mcp-tools): a label, the URL, the
// person's optional token and whether calls ask first. Kept in this origin's IndexedDB (database `inpage-mcp-servers`),
// as upstream connections keep their key (src/shared/upstream-connections.ts): never in a chat, so never in an export;
// the token is shown only in display form. A chat turns servers on by id (Conversation.mcp); its sends then go to
// /v1/responses with an `mcp` tool per server (chat-run.ts).
import type { DBSchema } from 'idb';
import { connection } from '#shared/idb-connection';
import type { ErrorObject } from '#shared/protocol/errors';
import { ApiCallError, BASE_URL } from '../../../kit/api';
import { notify } from './chat-state';
import { mcpTool } from './conversation-request';

export interface McpServer {
  id: string;
  /** The `server_label`: 1–64 letters, digits, _ or -. */
  label: string;
  url: string;
  /** Sent as `authorization` (Bearer) with each request that uses the server; empty: none. */
  token: string;
  /** `require_approval`: `always` (ask before each call, the default) or `never`. */
  approval: 'always' | 'never';
  /** The server's tools as last listed (null: not listed yet), or why they could not be. */
  tools: { name: string; description: string }[] | null;
  error: string | null;
  created: number;
}

interface Schema extends DBSchema {
  servers: { key: string; value: McpServer };
}

const db = connection<Schema>('inpage-mcp-servers', 1, (database) => {
  database.createObjectStore('servers', { keyPath: 'id' });
});

/** The servers, oldest first (read once; every change is written through). */
export const mcp: { servers: McpServer[]; loaded: boolean } = { servers: [], loaded: false };

export async function loadMcpServers(): Promise<void> {
  if (mcp.loaded) return;
  try {
    mcp.servers = (await (await db.get()).getAll('servers')).sort((a, b) => a.created - b.created);
  } catch (err) {
    console.error('inpage: the MCP servers could not be read:', err);
  }
  mcp.loaded = true;
  notify();
}

async function put(server: McpServer): Promise<void> {
  mcp.servers = [...mcp.servers.filter((s) => s.id !== server.id), server].sort((a, b) => a.created - b.created);
  notify();
  await (await db.get()).put('servers', server);
}

/** Why a label or URL as typed cannot be used, or null. */
export function serverProblem(label: string, url: string): string | null {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(label)) return 'The label is 1–64 letters, digits, _ or -.';
  if (mcp.servers.some((s) => s.label === label)) return `There is a server labelled ${label} already.`;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'The URL starts with https:// (or http://).';
  } catch {
    return 'The URL is not a URL (e.g. https://mcp.example.com/mcp).';
  }
  return null;
}

export async function addMcpServer(fields: Pick<McpServer, 'label' | 'url' | 'token' | 'approval'>): Promise<McpServer> {
  const server: McpServer = { ...fields, id: `mcp_${crypto.randomUUID()}`, tools: null, error: null, created: Date.now() };
  await put(server);
  return server;
}

/** Changes a server as it is kept now (one removed meanwhile stays removed). */
export async function updateMcpServer(server: McpServer, patch: Partial<Pick<McpServer, 'approval' | 'tools' | 'error'>>): Promise<void> {
  const now = mcp.servers.find((s) => s.id === server.id);
  if (now) await put({ ...now, ...patch });
}

export async function removeMcpServer(id: string): Promise<void> {
  mcp.servers = mcp.servers.filter((s) => s.id !== id);
  notify();
  await (await db.get()).delete('servers', id);
}

/** The token as the Playground shows it once saved. */
export function displayToken(token: string): string {
  if (!token) return 'no token';
  return token.length <= 10 ? 'token …' : `token ${token.slice(0, 4)}…${token.slice(-4)}`;
}

/** The servers a chat has on (those still kept), in the order they were added. */
export function serversOn(ids: readonly string[] | undefined): McpServer[] {
  return ids?.length ? mcp.servers.filter((s) => ids.includes(s.id)) : [];
}

/**
 * An error of the API in the Playground's words: a server the deployment does not allow (400 on
 * `tools[i].server_url`) says which and where that is set; a listing that failed (424) is the service's message.
 */
export function mcpErrorText(err: ApiCallError, servers: readonly McpServer[]): string | null {
  const at = /^tools\[(\d+)\]\.server_url$/.exec(err.error.param ?? '');
  if (err.status === 400 && at) {
    const server = servers[Number(at[1])];
    return `This deployment does not allow the MCP server ${server ? `${server.label} (${server.url})` : 'of this chat'}: only those in its mcpServers setting (inpage.config.json) may be reached. Turn it off for this chat, or ask whoever runs this site to allow it.`;
  }
  return null;
}

/**
 * Lists a server's tools through the API (a stored-nothing /v1/responses request with `tool_choice: "none"`, whose
 * `mcp_list_tools` item holds them) and keeps them with the server, or the reason they could not be listed.
 */
export async function listServerTools(key: string, model: string, server: McpServer): Promise<void> {
  let tools: McpServer['tools'] = null;
  let error: string | null = null;
  try {
    const res = await fetch(`${BASE_URL}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, input: 'List the tools.', tools: [mcpTool(server, 'never')], tool_choice: 'none', store: false, max_output_tokens: 16 }),
    });
    const body = (await res.json().catch(() => ({}))) as {
      output?: { type: string; tools?: { name: string; description?: string | null }[]; error?: string | null }[];
      error?: Partial<ErrorObject>;
    };
    if (!res.ok) {
      const failure = new ApiCallError(res.status, body.error ?? {});
      error = mcpErrorText(failure, [server]) ?? failure.message;
    } else {
      const listing = body.output?.find((item) => item.type === 'mcp_list_tools');
      if (listing?.error) error = listing.error;
      else tools = (listing?.tools ?? []).map((t) => ({ name: t.name, description: t.description ?? '' }));
    }
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  }
  await updateMcpServer(server, { tools, error });
}
