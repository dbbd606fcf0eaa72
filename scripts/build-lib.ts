// `npm run build:lib`: inpage as a library other web apps add to their own origin (src/lib/inpage.ts).
// Two builds into one folder, every file named inpage*:
//   1. inpage.js: the setup module (an ES module), with the engine worker (both engines: web-llm and
//      llama.cpp, chosen per device as in the app), lazily loaded chunks and llama.cpp's wasm beside it;
//   2. inpage-sw.js: the service worker, one self-contained classic script, listing the files of (1) for
//      Workbox to precache, so /v1 and the engine keep working offline. Its template (the list not yet
//      written in) is kept in sw-template/, for `inpage/vite` to list the app's own files beside inpage's;
//   3. inpage-sw-guest.js: inpage for an app's own service worker (`importScripts`), worker/sw-guest.ts;
//   and inpage-third-party-notices.txt: inpage's licence and those of the packages the three carry
//   (scripts/notices.ts), which `inpage/vite` copies into an app's build with the rest.
// `test: true` swaps the deterministic test engine in (for the example's browser test); never shipped.
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type InlineConfig } from 'vite';
import { injectShell } from '../src/lib/precache';
import { NoticeCollector } from './notices';
import { ENGINE_FILE_GLOBS, engineChunkFileNames } from '../src/shared/engine-files';
import { testBuildDefine } from '../test/engine/knobs';
import { WORKER_CHUNKS } from './worker-chunks';
import { ensureWasmVariants, wasmVariantsAlias } from './wasm-kernels/vite-plugin';
import { mcpClientAlias } from './mcp-client-alias';

const root = fileURLToPath(new URL('..', import.meta.url));
const here = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));

export interface LibraryBuild {
  /** Where to write (relative to the repository, or absolute). */
  outDir: string;
  /** The deterministic test engine instead of web-llm: for tests only. */
  test?: boolean;
  /** Source maps beside the files (default true; the npm package ships none: they would end up in every app's build). */
  sourcemap?: boolean;
  logLevel?: InlineConfig['logLevel'];
}

/** The library's notices file, in its folder (named inpage* as the library's every file). */
export const LIBRARY_NOTICES_FILE = 'inpage-third-party-notices.txt';

/** Builds the library; answers the packages its files carry (also written in LIBRARY_NOTICES_FILE). */
export async function buildLibrary({ outDir, test = false, sourcemap = true, logLevel = 'warn' }: LibraryBuild): Promise<NoticeCollector> {
  const notices = new NoticeCollector();
  // llama.cpp's wasm variants (the SIMD kernels spliced in) exist before the build imports them.
  await ensureWasmVariants();
  const shared: InlineConfig = {
    plugins: [notices.recorder()],
    configFile: false,
    root,
    logLevel,
    // The app's public/ (favicon) is not the library's.
    publicDir: false,
    mode: test ? 'test' : 'production',
    // Every URL the files derive (the engine worker, its chunks, llama.cpp's wasm) is relative to the file that
    // names it (`import.meta.url`), so they work at any base path an app serves them from.
    base: './',
    define: testBuildDefine(test),
    resolve: {
      alias: {
        // wllama's package.json names a main file it does not ship; its built ES module is esm/index.js.
        '@wllama/wllama/esm': here('node_modules/@wllama/wllama/esm'),
        '@wllama/wllama': here('node_modules/@wllama/wllama/esm/index.js'),
        ...wasmVariantsAlias,
        ...mcpClientAlias,
        '#engine-impl': here(test ? 'test/engine/deterministic-engine.ts' : 'worker/engine/device-engine.ts'),
      },
    },
  };
  await build({
    ...shared,
    worker: {
      format: 'es',
      plugins: () => [notices.recorder()],
      // Each engine's chunks are named after it (src/shared/engine-files.ts): the precache leaves them to the devices that run it.
      // The worker's own code is a chunk no other imports as an entry (scripts/worker-chunks.ts).
      rollupOptions: {
        output: {
          ...WORKER_CHUNKS,
          entryFileNames: 'inpage-[name]-[hash].js',
          chunkFileNames: engineChunkFileNames('inpage-'),
          assetFileNames: 'inpage-[name]-[hash][extname]',
        },
      },
    },
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      sourcemap,
      assetsDir: '',
      chunkSizeWarningLimit: 8000,
      rollupOptions: {
        input: { inpage: here('src/lib/inpage.ts') },
        // An app build drops an entry's exports; this one is a module for others to import.
        preserveEntrySignatures: 'strict',
        output: {
          format: 'es',
          entryFileNames: 'inpage.js',
          chunkFileNames: 'inpage-[name]-[hash].js',
          assetFileNames: 'inpage-[name]-[hash][extname]',
        },
      },
    },
  });
  // The service worker on its own (inpage-sw.js) and inpage as a guest in an app's own one (inpage-sw-guest.js, for
  // importScripts): each one classic script.
  for (const [name, entry] of [
    ['inpage-sw', 'worker/sw.ts'],
    ['inpage-sw-guest', 'worker/sw-guest.ts'],
  ] as const) {
    await build({
      ...shared,
      build: {
        outDir,
        emptyOutDir: false,
        target: 'es2022',
        sourcemap,
        rollupOptions: { input: { [name]: here(entry) }, output: { format: 'iife', entryFileNames: `${name}.js` } },
      },
    });
  }
  const out = resolve(root, outDir);
  mkdirSync(join(out, 'sw-template'), { recursive: true });
  for (const file of ['inpage-sw.js', 'inpage-sw.js.map']) if (existsSync(join(out, file))) copyFileSync(join(out, file), join(out, 'sw-template', file));
  // The code every device runs; each engine's own files are kept on first use by the devices that run it.
  await injectShell(
    out,
    { swFile: 'inpage-sw.js', globPatterns: ['inpage*.{js,css}'], globIgnores: ['inpage-sw-guest.js', '**/*.map', ...ENGINE_FILE_GLOBS] },
    console,
  );
  notices.write(join(out, LIBRARY_NOTICES_FILE));
  return notices;
}

/** The command line: `--test` and `--out DIR`. */
export async function main(argv: readonly string[]): Promise<number> {
  const test = argv.includes('--test');
  const at = argv.indexOf('--out');
  const outDir = at >= 0 ? argv[at + 1] : test ? 'dist-lib-test' : 'dist-lib';
  if (!outDir) {
    console.error('--out needs a folder.');
    return 2;
  }
  await buildLibrary({ outDir, test, logLevel: 'info' });
  return 0;
}
