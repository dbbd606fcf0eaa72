// Remote MCP tools in /v1/responses (docs/responses.md#remote-mcp-tools): which servers a deployment's pages may
// reach, the `mcpServers` setting of /inpage.config.json (origins or URL prefixes), and the bounds on what one
// response may do with them. The service worker checks a request's `server_url` against the list; the
// Content-Security-Policy of the service worker's script (src/shared/csp.ts) lets it reach these origins only.

/** The bounds of one response's MCP use: each a setting of /inpage.config.json of the same name. */
export const MCP_BOUNDS = {
  mcpMaxCalls: { default: 8, note: 'MCP tool calls one response may run; past it the model must answer without tools.' },
  mcpCallTimeoutMs: { default: 30_000, note: "Time (ms) one MCP request (listing a server's tools, or one call) may take; past it the call fails." },
  mcpMaxResultBytes: { default: 16_384, note: "Bytes of one MCP call's result the model gets; a longer result is cut there (and says so)." },
  mcpMaxTools: { default: 64, note: 'Tools taken from one MCP server; a server listing more is refused (424) naming the bound.' },
} as const;

export type McpBound = keyof typeof MCP_BOUNDS;
export type McpBounds = Record<McpBound, number>;

/** An entry of `mcpServers`, parsed: an origin (any path on it) or a URL prefix. */
interface AllowedServer {
  origin: string;
  /** The path prefix a server URL must start with (`/` for a whole origin). */
  path: string;
}

function parseEntry(entry: unknown): AllowedServer | null {
  if (typeof entry !== 'string') return null;
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') return null;
  return { origin: url.origin, path: url.pathname };
}

/**
 * Why the setting is wrong, or null: an array of absolute http(s) origins or URL prefixes, without credentials,
 * query or fragment. Start-up does not stop on it; a bad setting lets no server through (mcpServerAllowed).
 */
export function mcpServersProblem(setting: unknown): string | null {
  if (!Array.isArray(setting)) return 'mcpServers: expected an array of origins or URL prefixes';
  const at = setting.findIndex((entry) => parseEntry(entry) === null);
  return at < 0 ? null : `mcpServers[${at}]: expected an absolute http(s) origin or URL prefix, without credentials, query or fragment`;
}

function allowedServers(setting: unknown): AllowedServer[] {
  if (mcpServersProblem(setting) !== null) return [];
  return (setting as unknown[]).map((entry) => parseEntry(entry)!);
}

/** Whether `url` (a request's `server_url`) is one the setting allows: same origin, and under the entry's path. */
export function mcpServerAllowed(url: string, setting: unknown): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  return allowedServers(setting).some(({ origin, path }) => {
    if (parsed.origin !== origin) return false;
    if (path === '/' || parsed.pathname === path) return true;
    return parsed.pathname.startsWith(path.endsWith('/') ? path : `${path}/`);
  });
}

/** The origins the setting allows (for the service worker's connect-src). */
export function mcpServerOrigins(setting: unknown): string[] {
  return [...new Set(allowedServers(setting).map((s) => s.origin))];
}
