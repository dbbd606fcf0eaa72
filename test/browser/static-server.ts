// A small static file server for browser tests that need an origin of their own: one they can take down
// (offline), change (a new app version), or fill with generated files (model sources).
import { createServer, type Server } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** The test build the Playwright web server made (npm run serve:test), honouring INPAGE_BUILD_SUFFIX. */
export const TEST_BUILD_DIR = join(REPO_ROOT, `dist-test${process.env.INPAGE_BUILD_SUFFIX ?? ''}`);
/** The production build the Playwright web server made (npm run serve:prod). */
export const PROD_BUILD_DIR = join(REPO_ROOT, `dist${process.env.INPAGE_BUILD_SUFFIX ?? ''}`);

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
};

export interface StaticServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Paths requested so far, in order (with their query). */
  readonly requests: string[];
  /** The GET requests among them (bodies fetched), in order. */
  readonly gets: string[];
  /** Serves `body` at `path` instead of the file (null: back to the file). */
  override(path: string, body: string | Uint8Array | null): void;
  close(): Promise<void>;
}

/**
 * Serves each mount's folder under its URL prefix (longest prefix wins); `/` serves index.html.
 * Answers are never cached by the browser, so what a test changes is what the next request gets.
 */
export async function serveStatic(
  basePort: number,
  mounts: Record<string, string>,
  options: { cors?: boolean; headers?: Record<string, string> } = {},
): Promise<StaticServer> {
  // INPAGE_PORT_OFFSET lets work trees on one machine run these tests side by side.
  const port = basePort + Number(process.env.INPAGE_PORT_OFFSET ?? 0);
  const overrides = new Map<string, string | Uint8Array>();
  const requests: string[] = [];
  const gets: string[] = [];
  const prefixes = Object.keys(mounts).sort((a, b) => b.length - a.length);

  async function find(pathname: string): Promise<string | null> {
    for (const prefix of prefixes) {
      const base = prefix.endsWith('/') ? prefix : `${prefix}/`;
      if (pathname !== prefix && !pathname.startsWith(base) && prefix !== '/') continue;
      const root = resolve(mounts[prefix]!);
      const rest = decodeURIComponent(pathname.slice(prefix === '/' ? 1 : base.length));
      let file = normalize(join(root, rest));
      if (file !== root && !file.startsWith(root + sep)) return null;
      const info = await stat(file).catch(() => null);
      if (info?.isDirectory()) file = join(file, 'index.html');
      else if (!info) continue;
      if (
        await stat(file)
          .then((s) => s.isFile())
          .catch(() => false)
      )
        return file;
    }
    return null;
  }

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    requests.push(url.pathname + url.search);
    if (req.method === 'GET') gets.push(url.pathname + url.search);
    // `cors`: a model host other origins fetch from, as Hugging Face is.
    const headers = {
      'cache-control': 'no-store',
      'content-type': TYPES[extname(url.pathname)] ?? 'application/octet-stream',
      ...(options.cors ? { 'access-control-allow-origin': '*' } : {}),
      // `headers`: what a deployment's server sends with every file (e.g. its isolation headers).
      ...options.headers,
    };
    const override = overrides.get(url.pathname);
    if (override !== undefined) {
      res.writeHead(200, headers).end(override);
      return;
    }
    find(url.pathname).then(
      async (file) => {
        if (!file) {
          res.writeHead(404, { ...headers, 'content-type': 'text/plain' }).end('Not found');
          return;
        }
        const body = await readFile(file);
        // A length, as real hosts send: download progress and wllama's cache check read it (HEAD too).
        res
          .writeHead(200, { ...headers, 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-length': String(body.length) })
          .end(req.method === 'HEAD' ? undefined : body);
      },
      (err: unknown) => res.writeHead(500).end(String(err)),
    );
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => ok());
  });
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    gets,
    override(path, body) {
      if (body === null) overrides.delete(path);
      else overrides.set(path, body);
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
