// The SAA probe's sites: one static server for test/saa/pages on five loopback origins that are five
// different sites to the browser (127.0.0.1 to 127.0.0.4 and localhost are each a site of their own, and all
// are secure contexts over plain http): four consumers and the provider. Base ports 4671–4675 plus
// INPAGE_PORT_OFFSET.
//
// `?coep=1` on a request adds COOP same-origin and COEP require-corp (`?coep=credentialless`: COEP
// credentialless) so the page and its workers can be cross-origin isolated; every answer carries
// `Cross-Origin-Resource-Policy: cross-origin` so an isolated consumer may embed the provider.
//
// `node test/saa/server.mjs` serves until stopped and prints the URLs.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PAGES = fileURLToPath(new URL('./pages/', import.meta.url));
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };

export const BASE_PORTS = { consumerA: 4671, consumerB: 4672, provider: 4673, consumerC: 4674, consumerD: 4675 };

function handler(req, res) {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const name = url.pathname.slice(1);
  const headers = { 'cache-control': 'no-store', 'cross-origin-resource-policy': 'cross-origin' };
  const coep = url.searchParams.get('coep');
  if (coep) {
    headers['cross-origin-opener-policy'] = 'same-origin';
    headers['cross-origin-embedder-policy'] = coep === 'credentialless' ? 'credentialless' : 'require-corp';
  }
  if (!/^[a-z-]+\.(html|js)$/.test(name)) {
    res.writeHead(404, headers).end('Not found');
    return;
  }
  readFile(join(PAGES, name)).then(
    (body) => res.writeHead(200, { ...headers, 'content-type': TYPES[extname(name)] }).end(body),
    () => res.writeHead(404, headers).end('Not found'),
  );
}

/** Starts the five origins; `origins` are their URLs, `close()` stops them. */
export async function serveSites(offset = Number(process.env.INPAGE_PORT_OFFSET ?? 0)) {
  const plan = [
    ['consumerA', '127.0.0.1', '127.0.0.1'],
    ['consumerB', '127.0.0.2', '127.0.0.2'],
    ['provider', 'localhost', '127.0.0.1'],
    ['consumerC', '127.0.0.3', '127.0.0.3'],
    ['consumerD', '127.0.0.4', '127.0.0.4'],
  ];
  const servers = [];
  const origins = {};
  for (const [role, host, bind] of plan) {
    const port = BASE_PORTS[role] + offset;
    const server = createServer(handler);
    await new Promise((ok, fail) => {
      server.once('error', fail);
      server.listen(port, bind, () => ok());
    });
    servers.push(server);
    origins[role] = `http://${host}:${port}`;
  }
  return {
    origins,
    close: () => Promise.all(servers.map((server) => (server.closeAllConnections(), new Promise((ok) => server.close(() => ok()))))),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { origins } = await serveSites();
  console.log(origins);
}
