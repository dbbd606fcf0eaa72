// The sites of `npm run test:shared` (docs/shared-models.md): the production build served on five loopback
// origins that are five sites to the browser: four consumers (127.0.0.1 to 127.0.0.4) and the model provider
// (localhost), as test/saa/server.mjs lays them out. Base ports 4900–4904 plus INPAGE_PORT_OFFSET. Each origin has
// its own /inpage.config.json and serves the synthesized GGUF at /gguf, counting the requests for it per origin.
import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { providerHeaders } from '../../src/provider/headers';

export const BASE_PORTS = { consumerA: 4900, consumerB: 4901, provider: 4902, consumerC: 4903, consumerD: 4904 } as const;
export type Role = keyof typeof BASE_PORTS;
const HOSTS: Record<Role, string> = { consumerA: '127.0.0.1', consumerB: '127.0.0.2', provider: 'localhost', consumerC: '127.0.0.3', consumerD: '127.0.0.4' };

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.map': 'application/json',
};

export interface SharedSites {
  origins: Record<Role, string>;
  /** Requests for the model file each origin answered. */
  modelRequests: Record<Role, number>;
  /** Bytes of the model file each origin sent (GET bodies). */
  modelBytes: Record<Role, number>;
  /** Requests, on any origin, for a model file other than the one served (a model nobody was allowed to fetch). */
  otherModelRequests: string[];
  /** The provider origin's worker-script requests: the path, and the policy it was sent with. */
  workerRequests: { path: string; csp: string | null }[];
  /** Sets an origin's /inpage.config.json. */
  configure(role: Role, config: Record<string, unknown>): void;
  close(): Promise<void>;
}

export async function serveSharedSites(
  build: string,
  modelPath: string,
  model: Uint8Array,
  offset = Number(process.env.INPAGE_PORT_OFFSET ?? 0),
): Promise<SharedSites> {
  const origins = {} as Record<Role, string>;
  const modelRequests = { consumerA: 0, consumerB: 0, provider: 0, consumerC: 0, consumerD: 0 } as Record<Role, number>;
  const modelBytes = { consumerA: 0, consumerB: 0, provider: 0, consumerC: 0, consumerD: 0 } as Record<Role, number>;
  const configs = {} as Record<Role, string>;
  const servers: Server[] = [];
  const workerRequests: SharedSites['workerRequests'] = [];
  const otherModelRequests: string[] = [];
  for (const role of Object.keys(BASE_PORTS) as Role[]) {
    const port = BASE_PORTS[role] + offset;
    origins[role] = `http://${HOSTS[role]}:${port}`;
    configs[role] = '{}';
    const server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      // Every answer may be embedded or fetched by another site (the provider's frame under an isolated consumer).
      const headers: Record<string, string> = {
        'cache-control': 'no-store',
        'cross-origin-resource-policy': 'cross-origin',
        'access-control-allow-origin': '*',
      };
      if (path === '/inpage.config.json') return void res.writeHead(200, { ...headers, 'content-type': 'application/json' }).end(configs[role]);
      if (path === `/gguf/${modelPath}`) {
        modelRequests[role]++;
        if (req.method === 'GET') modelBytes[role] += model.byteLength;
        return void res.writeHead(200, { ...headers, 'content-type': 'application/octet-stream', 'content-length': String(model.byteLength) }).end(model);
      }
      if (path.startsWith('/gguf/')) {
        otherModelRequests.push(`${origins[role]}${path}`);
        return void res.writeHead(404, headers).end('Not found');
      }
      const file = path === '/' ? '/index.html' : path;
      const type = TYPES[extname(file)];
      if (type?.startsWith('text/html'))
        Object.assign(headers, { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'credentialless' });
      // The provider's page and its engine worker, as a deployment sends them (docs/shared-models.md): isolated with
      // require-corp (framed by isolated consumers), the worker under the engine worker's policy.
      const dest = req.headers['sec-fetch-dest'];
      for (const [name, value] of Object.entries(
        providerHeaders(
          { path: file, dest: typeof dest === 'string' ? dest : undefined, referrer: req.headers.referer },
          JSON.parse(configs[role]),
          origins[role],
        ),
      )) {
        headers[name.toLowerCase()] = value;
      }
      if (role === 'provider' && req.headers['sec-fetch-dest'] === 'worker')
        workerRequests.push({ path: file, csp: headers['content-security-policy'] ?? null });
      readFile(join(build, normalize(file).replace(/^(\.\.[/\\])+/, ''))).then(
        (body) => res.writeHead(200, { ...headers, 'content-type': type ?? 'application/octet-stream' }).end(body),
        () => res.writeHead(404, headers).end('Not found'),
      );
    });
    await new Promise<void>((ok, fail) => {
      server.once('error', fail);
      server.listen(port, HOSTS[role] === 'localhost' ? '127.0.0.1' : HOSTS[role], () => ok());
    });
    servers.push(server);
  }
  return {
    origins,
    modelRequests,
    modelBytes,
    workerRequests,
    otherModelRequests,
    configure: (role, config) => void (configs[role] = JSON.stringify(config)),
    close: () => Promise.all(servers.map((s) => (s.closeAllConnections(), new Promise<void>((ok) => s.close(() => ok()))))).then(() => undefined),
  };
}
