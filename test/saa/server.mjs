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
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
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

/** `SAA_HTTPS=1`: the same sites as https://{a,b,c,d,models}.test (see `https` below). */
export const HTTPS = process.env.SAA_HTTPS === '1';
/** Chromium switches the https sites need: the names resolve to loopback; the self-signed certificate passes. */
export const HTTPS_FLAGS = ['--host-resolver-rules=MAP *.test 127.0.0.1', '--ignore-certificate-errors'];

/** A self-signed certificate for *.test (openssl), made for one run. */
function testCertificate() {
  const dir = mkdtempSync(join(tmpdir(), 'inpage-saa-tls-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=inpage-saa',
      '-addext',
      'subjectAltName=DNS:*.test',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    // openssl's output kept: a failure's message carries its stderr (execFileSync adds it), bounded in time.
    { stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 },
  );
  const tls = { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  rmSync(dir, { recursive: true, force: true });
  return tls;
}

/**
 * Starts the five origins; `origins` are their URLs, `close()` stops them. With `https` (default SAA_HTTPS=1),
 * they are https://a.test … https://models.test on the same ports, all served from 127.0.0.1 (Chromium maps
 * the names with HTTPS_FLAGS): real registrable domains over TLS instead of loopback hosts over http.
 */
export async function serveSites(offset = Number(process.env.INPAGE_PORT_OFFSET ?? 0), https = HTTPS) {
  const plan = https
    ? [
        ['consumerA', 'a.test', '127.0.0.1'],
        ['consumerB', 'b.test', '127.0.0.1'],
        ['provider', 'models.test', '127.0.0.1'],
        ['consumerC', 'c.test', '127.0.0.1'],
        ['consumerD', 'd.test', '127.0.0.1'],
      ]
    : [
        ['consumerA', '127.0.0.1', '127.0.0.1'],
        ['consumerB', '127.0.0.2', '127.0.0.2'],
        ['provider', 'localhost', '127.0.0.1'],
        ['consumerC', '127.0.0.3', '127.0.0.3'],
        ['consumerD', '127.0.0.4', '127.0.0.4'],
      ];
  const tls = https ? testCertificate() : null;
  const servers = [];
  const origins = {};
  for (const [role, host, bind] of plan) {
    const port = BASE_PORTS[role] + offset;
    const server = tls ? createTlsServer(tls, handler) : createServer(handler);
    await new Promise((ok, fail) => {
      server.once('error', fail);
      server.listen(port, bind, () => ok());
    });
    servers.push(server);
    origins[role] = `${tls ? 'https' : 'http'}://${host}:${port}`;
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
