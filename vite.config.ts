import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';
import { NoticeCollector, noticesFile } from './scripts/notices.ts';
import { serviceWorkerBundle } from './scripts/sw-bundle-plugin.ts';
import { WORKER_CHUNKS } from './scripts/worker-chunks.ts';
import { wasmVariants, wasmVariantsAlias } from './scripts/wasm-kernels/vite-plugin.ts';
import { mcpClientAlias } from './scripts/mcp-client-alias.ts';
import { serviceWorkerCsp } from './src/shared/csp.ts';
import { ISOLATION_HEADERS } from './src/shared/isolation.ts';
import { providerHeaders } from './src/provider/headers.ts';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { answerApiWithoutWorker } from './src/lib/api-fallback.ts';
import { testBuildDefine } from './test/engine/knobs.ts';
import { engineChunkFileNames } from './src/shared/engine-files.ts';
import { isPdfReaderChunk, PDF_READER_CHUNK } from './src/shared/pdf-reader-files.ts';

/**
 * The service worker script is fetched by the browser itself (never through a service worker), so its policy
 * can only come from the server: `npm start` / `vite preview` send it; a deployment's server should too.
 */
const serviceWorkerPolicy = (): Plugin => ({
  name: 'inpage-service-worker-csp',
  configurePreviewServer(server) {
    server.middlewares.use((req, res, next) => {
      const path = req.url?.split('?')[0];
      if (path === '/sw.js') res.setHeader('Content-Security-Policy', serviceWorkerCsp(deployedConfig(server.config).mcpServers));
      // The model provider's page and its engine worker (no service worker controls them): their own isolation
      // (require-corp, not the app's credentialless) and the engine worker's policy, kept over preview's headers.
      const origin = `http://${req.headers.host ?? 'localhost'}`;
      const provider = providerHeaders(
        { path: path ?? '', dest: req.headers['sec-fetch-dest'] as string | undefined, referrer: req.headers.referer },
        deployedConfig(server.config),
        origin,
      );
      if (Object.keys(provider).length > 0) {
        const set = res.setHeader.bind(res);
        for (const [name, value] of Object.entries(provider)) set(name, value);
        const kept = new Set(Object.keys(provider).map((n) => n.toLowerCase()));
        res.setHeader = ((name: string, value: string | number | readonly string[]) =>
          kept.has(name.toLowerCase()) ? res : set(name, value)) as typeof res.setHeader;
      }
      next();
    });
    // A /v1 request reaches the server only while no service worker controls it (lost, site data cleared):
    // the contract's 503, not the server's 404 page.
    server.middlewares.use(answerApiWithoutWorker('/v1'));
  },
});

/** The built deployment's /inpage.config.json (the provider's model hosts), as parsed; {} when there is none. */
function deployedConfig(config: { root: string; build: { outDir: string } }): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(join(resolve(config.root, config.build.outDir), 'inpage.config.json'), 'utf8'));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The folders other builds own (the npm package's, scripts/build-pkg.ts; the library's, scripts/build-lib.ts):
 * a suffix must not land a build in them.
 */
const RESERVED_OUT_DIRS = new Set(['dist-pkg', 'dist-lib', 'dist-lib-test']);

/** `base` + INPAGE_BUILD_SUFFIX, refused where it would write into another build's folder (`dist` + `-pkg`). */
function outDirFor(base: string): string {
  const dir = base + (process.env.INPAGE_BUILD_SUFFIX ?? '');
  if (RESERVED_OUT_DIRS.has(dir)) {
    throw new Error(
      `INPAGE_BUILD_SUFFIX=${process.env.INPAGE_BUILD_SUFFIX} would build into ${dir}/, the folder of another build (the npm package's or the library's): choose another suffix.`,
    );
  }
  return dir;
}

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// `vite build --mode test` swaps the deterministic test engine in for web-llm and writes dist-test/;
// `vite build --mode bench-llama` is the production build plus the llama.cpp benchmark page (npm run bench),
// in dist-bench-llama/; a plain `vite build` (npm run build) never sees test/.
export default defineConfig(({ mode }) => {
  const testBuild = mode === 'test';
  const benchLlamaBuild = mode === 'bench-llama';
  const alias = {
    // wllama's package.json names a main file it does not ship; its built ES module is esm/index.js.
    '@wllama/wllama/esm': here('./node_modules/@wllama/wllama/esm'),
    '@wllama/wllama': here('./node_modules/@wllama/wllama/esm/index.js'),
    // wllama's wasm with the SIMD kernels spliced in, made by the wasmVariants plugin (scripts/wasm-kernels/).
    ...wasmVariantsAlias,
    // The MCP client's default validator (ajv) left out of the service worker: it is given one of inpage's.
    ...mcpClientAlias,
    '#engine-impl': here(testBuild ? './test/engine/deterministic-engine.ts' : './worker/engine/device-engine.ts'),
  };
  // The licences and notices of every package the build carries (the app, its workers, sw.js), in its folder; not
  // in the test build, which is never shipped (its test pages carry client libraries, some without a licence file).
  const notices = new NoticeCollector();
  const noticePlugins = testBuild ? [] : [noticesFile(notices)];
  return {
    // The test build's knobs and notice (test/engine/knobs.ts); none in any other build.
    define: testBuildDefine(testBuild),
    // After the app: sw.js, one classic script built on its own, with the app shell listed in it for Workbox to
    // precache (offline use).
    plugins: [
      wasmVariants(),
      serviceWorkerBundle({ entry: here('./worker/sw.ts'), file: 'sw.js', alias, plugins: noticePlugins }),
      serviceWorkerPolicy(),
      ...noticePlugins,
    ],
    resolve: { alias },
    build: {
      // INPAGE_BUILD_SUFFIX lets parallel work trees on one machine build side by side.
      outDir: outDirFor(testBuild ? 'dist-test' : benchLlamaBuild ? 'dist-bench-llama' : 'dist'),
      target: 'es2022',
      sourcemap: true,
      rollupOptions: {
        input: {
          main: here('./index.html'),
          // A model provider's page (docs/shared-models.md): framed by consumer sites, and its consent list at top level.
          provider: here('./provider.html'),
          // Test build only: a page that also carries real client libraries (the openai SDK).
          ...(testBuild
            ? {
                clients: here('./test/pages/clients.html'),
                bench: here('./test/pages/bench.html'),
                // The benchmark's floor: a bare service worker and its page.
                floor: here('./test/pages/floor.html'),
                'floor-sw': here('./test/pages/floor-sw.ts'),
              }
            : {}),
          // The llama.cpp benchmark page: the production engine through /v1 against wllama in the same page.
          ...(benchLlamaBuild ? { 'bench-llama': here('./test/pages/bench-llama.html') } : {}),
        },
        output: {
          // A service worker must sit at the root to control scope "/" (the app's own, sw.js, is built apart).
          entryFileNames: (chunk) => (chunk.name === 'floor-sw' ? `${chunk.name}.js` : 'assets/[name]-[hash].js'),
          // The PDF reader's chunk has a name of its own: the precache leaves it to the visitors who attach a PDF.
          chunkFileNames: (chunk) => (isPdfReaderChunk(chunk.moduleIds) ? `assets/${PDF_READER_CHUNK}-[hash].js` : 'assets/[name]-[hash].js'),
        },
      },
    },
    // Each engine's chunks are named after it (src/shared/engine-files.ts): the precache leaves them to the devices that run it.
    // The worker's own code is a chunk of its own, so no chunk imports the worker's entry (scripts/worker-chunks.ts).
    worker: {
      format: 'es',
      plugins: () => (testBuild ? [] : [notices.recorder()]),
      rollupOptions: { output: { ...WORKER_CHUNKS, chunkFileNames: engineChunkFileNames('assets/') } },
    },
    // `npm start` is cross-origin isolated from the first visit (the service worker adds the same headers later),
    // so llama.cpp gets threads. Not the dev server: vitest's browser tests run on it, one thread (see there).
    preview: { host: '127.0.0.1', port: 4173, strictPort: true, headers: { ...ISOLATION_HEADERS } },
  };
});
