// A Vite plugin that builds the app's service worker as one self-contained classic script, after the app.
//
// Why apart from the app's build: as an input of that build, sw.js was an ES module importing chunks it shared
// with the page (170 KB over three files), and a stopped worker parsed, linked and compiled all of it before
// answering the request that restarted it. One classic script starts faster (issue 15's third pass in
// BENCHMARKS.md's history: `git show 87bb36d:BENCHMARKS.md`). Once it is written, Workbox's precache manifest (the app shell) is listed in it (src/lib/precache.ts).
import { build, type AliasOptions, type PluginOption, type Plugin, type ResolvedConfig } from 'vite';
import { injectShell } from '../src/lib/precache.ts';

export interface ServiceWorkerBundleOptions {
  /** The service worker's source. */
  entry: string;
  /** Its file, relative to the output folder. */
  file: string;
  /** Aliases the source needs resolved (the app's). */
  alias?: AliasOptions;
  /** Plugins of its build (the notices recorder of the app's output). */
  plugins?: PluginOption[];
}

export function serviceWorkerBundle(options: ServiceWorkerBundleOptions): Plugin {
  let config: ResolvedConfig;
  return {
    name: 'inpage:service-worker-bundle',
    apply: 'build',
    configResolved(resolved) {
      config = resolved;
    },
    async closeBundle() {
      const outDir = config.build.outDir;
      await build({
        configFile: false,
        root: config.root,
        mode: config.mode,
        customLogger: config.logger,
        publicDir: false,
        plugins: options.plugins ?? [],
        resolve: { alias: options.alias ?? {} },
        // The app's (the test build's knobs, in a test build).
        define: config.define,
        build: {
          outDir,
          emptyOutDir: false,
          target: config.build.target,
          sourcemap: config.build.sourcemap,
          minify: config.build.minify,
          copyPublicDir: false,
          rollupOptions: {
            input: { sw: options.entry },
            // A classic script (registered with type 'classic'): no imports, everything in the one file.
            output: { format: 'iife', entryFileNames: options.file },
          },
        },
      });
      await injectShell(outDir, { swFile: options.file }, config.logger);
    },
  };
}
