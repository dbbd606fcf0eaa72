// `inpage/vite`: the Vite plugin of the inpage package. It puts inpage's prebuilt files (the setup module
// inpage.js, the service worker inpage-sw.js, the engine worker, its chunks and llama.cpp's wasm, all named
// inpage*) at the app's base path, in `vite build` and in `vite dev` / `vite preview`, and makes the app's
// `import { installInpage } from 'inpage'` load that module from there at run time (so the engine worker and the
// service worker come from the same files the service worker precaches). After `vite build`, inpage-sw.js lists
// the app's own shell (its pages, scripts, styles) beside inpage's files for Workbox to precache, so the app and
// /v1 work offline after the first visit. `vite dev` and `vite preview` also send the cross-origin isolation
// headers llama.cpp's threads need, and the service worker's own policy.
//
//   // vite.config.js
//   import { inpage } from 'inpage/vite';
//   export default { plugins: [inpage()] };
import { copyFileSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Connect, Plugin, ResolvedConfig } from 'vite';
import { serviceWorkerCsp } from '#shared/csp';
import { apiPath } from '#shared/base-path';
import { answerApiWithoutWorker } from './api-fallback';
import { isolationHeaders, type EmbedderPolicy } from '#shared/isolation';
import { injectShell } from './precache';

export interface InpagePluginOptions {
  /**
   * The folder of inpage's built files. Default: the package's own (`lib/` beside this module). Tests and this
   * repository's own builds point it elsewhere.
   */
  libDir?: string;
  /**
   * Send `Cross-Origin-Opener-Policy: same-origin` / `Cross-Origin-Embedder-Policy` from `vite dev` and `vite
   * preview`, so llama.cpp runs on several threads (WebAssembly threads need `crossOriginIsolated`). Default true:
   * COEP `credentialless` (Chromium, Firefox). `'require-corp'`: COEP `require-corp`, which also isolates the page in
   * WebKit (Safari), at a cost: every cross-origin subresource must allow it (CORS or a
   * `Cross-Origin-Resource-Policy` header), see docs/engines.md; the pages the service worker serves later get
   * `credentialless` from it. An app that embeds cross-origin frames without CORP headers may need it off (`false`); llama.cpp then
   * runs on one thread.
   */
  isolation?: boolean | EmbedderPolicy;
  /**
   * `'inpage'` (default): the build gets inpage's own service worker, inpage-sw.js, listing the app's shell.
   * `'own'`: the app's own service worker runs inpage (`import 'inpage/sw'`, or `importScripts('inpage-sw-guest.js')`),
   * and the app calls `installInpage({serviceWorker: 'own'})`: inpage-sw.js is then neither served nor emitted.
   */
  serviceWorker?: 'inpage' | 'own';
}

/** The import specifier the plugin answers: the package's main entry. */
const ENTRY = 'inpage';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.map': 'application/json; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** The package's files: every file of the library folder (flat: all are named inpage*). */
function libraryFiles(dir: string): string[] {
  if (!existsSync(join(dir, 'inpage.js')) || !existsSync(join(dir, 'inpage-sw.js'))) {
    throw new Error(`inpage/vite: no inpage build in ${dir} (inpage.js and inpage-sw.js are missing).`);
  }
  return readdirSync(dir).filter((name) => name.startsWith('inpage'));
}

/** The app's /inpage.config.json: its public folder's in `vite dev`, the build's in `vite preview`; none: `{}`. */
function appSettings(config: ResolvedConfig, dev: boolean): Record<string, unknown> {
  const dir = dev ? config.publicDir : resolve(config.root, config.build.outDir);
  try {
    const parsed: unknown = JSON.parse(readFileSync(join(dir, 'inpage.config.json'), 'utf8'));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function inpage(options: InpagePluginOptions = {}): Plugin {
  const libDir = options.libDir ?? join(dirname(fileURLToPath(import.meta.url)), 'lib');
  const ownWorker = options.serviceWorker === 'own';
  const files = new Set(libraryFiles(libDir).filter((name) => !(ownWorker && name.startsWith('inpage-sw.js'))));
  const isolation =
    options.isolation === false ? null : isolationHeaders(options.isolation === true || options.isolation === undefined ? 'credentialless' : options.isolation);
  let base = '/';
  let config: ResolvedConfig;

  /**
   * The headers every response needs, and inpage's files at the base path: served from the package in `vite dev`;
   * in `vite preview` the build's own copies are (its inpage-sw.js lists the app's shell, the package's does not).
   */
  const middleware =
    (serve: boolean): Connect.NextHandleFunction =>
    (req, res, next) => {
      if (isolation) for (const [name, value] of Object.entries(isolation)) res.setHeader(name, value);
      const path = (req.url ?? '').split('?')[0]!;
      if (!path.startsWith(base)) return next();
      const name = path.slice(base.length);
      if (!files.has(name)) return next();
      if (name === 'inpage-sw.js') {
        // Its policy lets it reach the MCP servers the app's settings allow (`mcpServers`).
        res.setHeader('Content-Security-Policy', serviceWorkerCsp(appSettings(config, serve).mcpServers));
        // The service worker is checked for updates on each registration, never served stale from a cache.
        res.setHeader('Cache-Control', 'no-cache');
      }
      if (!serve) return next();
      res.setHeader('Content-Type', TYPES[extname(name)] ?? 'application/octet-stream');
      res.end(readFileSync(join(libDir, name)));
    };

  return {
    name: 'inpage',
    // Before Vite's own resolver, which would otherwise bundle the installed package's inpage.js into the app.
    enforce: 'pre',
    configResolved(resolved: ResolvedConfig) {
      config = resolved;
      base = config.base.endsWith('/') ? config.base : `${config.base}/`;
      if (!base.startsWith('/')) {
        throw new Error(
          `inpage/vite: the app's base must be an absolute path ('/' or '/app/'), not '${config.base}': the service worker lives at a fixed place.`,
        );
      }
    },
    // `import … from 'inpage'` loads the module the plugin serves, at run time, from the app's own origin.
    resolveId(id) {
      // `vite dev` puts the app's base before the URL of an import itself; a build keeps the id as it is.
      if (id === ENTRY) return { id: config.command === 'serve' ? '/inpage.js' : `${base}inpage.js`, external: true };
      return null;
    },
    configureServer(server) {
      server.middlewares.use(middleware(true));
      server.middlewares.use(answerApiWithoutWorker(apiPath(base)));
    },
    configurePreviewServer(server) {
      server.middlewares.use(middleware(false));
      server.middlewares.use(answerApiWithoutWorker(apiPath(base)));
    },
    generateBundle() {
      for (const name of files) this.emitFile({ type: 'asset', fileName: name, source: readFileSync(join(libDir, name)) });
    },
    // The written build: inpage-sw.js again from its template, listing the app's shell and inpage's files.
    async closeBundle() {
      if (config.command !== 'build' || config.build.ssr || ownWorker) return;
      const outDir = resolve(config.root, config.build.outDir);
      for (const file of ['inpage-sw.js', 'inpage-sw.js.map']) {
        const template = join(libDir, 'sw-template', file);
        if (existsSync(template)) copyFileSync(template, join(outDir, file));
      }
      await injectShell(outDir, { swFile: 'inpage-sw.js' }, config.logger);
    },
  };
}

export default inpage;
