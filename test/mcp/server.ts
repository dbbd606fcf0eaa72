// A real MCP server for the remote-MCP tests (docs/responses.md#remote-mcp-tools): the official SDK's McpServer
// behind its Streamable HTTP transport, stateless (a server per request), on loopback, allowing one page origin
// by CORS (but at /mcp/no-cors; /mcp/not-mcp answers HTML; /mcp/sse speaks only the older HTTP+SSE transport). Tools: `echo` (read-only), `slow` (answers after `slowMs`), `fail` (a tool error), `large` (a result
// of `largeBytes`), `whoami` (says whether the request carried the expected bearer token, never the token).
import { createServer, type IncomingMessage, type Server } from 'node:http';
// The SDK's `./*` export maps types to `*.d.ts` (here `mcp.js.d.ts`), which the lint resolver cannot follow; tsc and Node do.
// eslint-disable-next-line import-x/no-unresolved -- see above
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
// eslint-disable-next-line import-x/no-unresolved -- see above
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
// eslint-disable-next-line import-x/no-unresolved -- see above
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { z } from 'zod';

export interface McpTestServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** The MCP endpoint. */
  url: string;
  /** Every request's method and path, and its authorization header as sent (the tests check what reached it). */
  readonly requests: { method: string; path: string; authorization: string | undefined }[];
  close(): Promise<void>;
}

export const MCP_TOKEN = 'mcp-test-token-7f3a9c2e51';

function tools(req: IncomingMessage, options: { slowMs: number; largeBytes: number }): McpServer {
  const server = new McpServer({ name: 'inpage-test-mcp', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Says the text back.', inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } },
    async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
  );
  server.registerTool('slow', { description: 'Answers late.', inputSchema: {} }, async () => {
    await new Promise((resolve) => setTimeout(resolve, options.slowMs));
    return { content: [{ type: 'text', text: 'slow done' }] };
  });
  server.registerTool('fail', { description: 'Always fails.', inputSchema: {} }, async () => ({
    content: [{ type: 'text', text: 'the tool broke on purpose' }],
    isError: true,
  }));
  server.registerTool('large', { description: 'A large result.', inputSchema: {} }, async () => ({
    content: [{ type: 'text', text: 'x'.repeat(options.largeBytes) }],
  }));
  server.registerTool('whoami', { description: 'Whether the token arrived.', inputSchema: {} }, async () => ({
    content: [{ type: 'text', text: req.headers.authorization === `Bearer ${MCP_TOKEN}` ? 'token: right' : 'token: missing' }],
  }));
  return server;
}

/** Starts the server on `basePort` + INPAGE_PORT_OFFSET, allowing `allowOrigin` by CORS. */
export async function startMcpServer(basePort: number, allowOrigin: string, options = { slowMs: 3000, largeBytes: 200_000 }): Promise<McpTestServer> {
  const port = basePort + Number(process.env.INPAGE_PORT_OFFSET ?? 0);
  const requests: McpTestServer['requests'] = [];
  const sseSessions = new Map<string, SSEServerTransport>();
  const http: Server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization });
    const cors = {
      'access-control-allow-origin': allowOrigin,
      'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
      'access-control-allow-headers': 'authorization, content-type, mcp-session-id, mcp-protocol-version, last-event-id, x-team',
      'access-control-expose-headers': 'mcp-session-id',
    };
    // `/mcp/no-cors`: a server that does not allow the page's origin.
    if (!req.url?.startsWith('/mcp/no-cors')) for (const [name, value] of Object.entries(cors)) res.setHeader(name, value);
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    if (!req.url?.startsWith('/mcp')) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
    if (req.url.startsWith('/mcp/not-mcp') || req.url.startsWith('/mcp/no-cors'))
      return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>');
    // The older HTTP+SSE transport: GET opens the event stream, whose `endpoint` event names where to POST.
    if (req.url.startsWith('/mcp/sse')) {
      if (req.method !== 'GET') return void res.writeHead(405, { allow: 'GET' }).end();
      const transport = new SSEServerTransport('/mcp/messages', res);
      sseSessions.set(transport.sessionId, transport);
      res.on('close', () => sseSessions.delete(transport.sessionId));
      void tools(req, options).connect(transport);
      return;
    }
    if (req.url.startsWith('/mcp/messages')) {
      const session = sseSessions.get(new URL(req.url, 'http://x').searchParams.get('sessionId') ?? '');
      if (!session) return void res.writeHead(404).end();
      void session.handlePostMessage(req, res);
      return;
    }
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return void res.writeHead(400).end();
      }
      const server = tools(req, options);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      server
        .connect(transport)
        .then(() => transport.handleRequest(req, res, body))
        .catch(() => res.headersSent || res.writeHead(500).end());
    });
  });
  await new Promise<void>((ok, fail) => {
    http.once('error', fail);
    http.listen(port, '127.0.0.1', () => ok());
  });
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: `${origin}/mcp`,
    requests,
    close: () =>
      new Promise<void>((ok) => {
        http.closeAllConnections();
        http.close(() => ok());
      }),
  };
}
