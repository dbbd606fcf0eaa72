// The app's build without Vite, the manual steps of inpage's docs/embedding.md:
// 1. the app's own files (public/: plain ES modules, no bundler) into dist/;
// 2. inpage's built files (node_modules/inpage/dist-pkg/lib/inpage*) beside them: the page imports /inpage.js;
// 3. the app's hand-written Workbox service worker (sw.js, which imports inpage/sw first) bundled by esbuild
//    into one classic script, dist/sw.js;
// 4. Workbox's injectManifest lists the app and inpage's scripts in it, for offline use.
import { cpSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { injectManifest } from 'workbox-build';

const out = process.env.INPAGE_EXAMPLE_OUT ?? 'dist';
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
cpSync('public', out, { recursive: true });

const lib = join(dirname(createRequire(import.meta.url).resolve('inpage/package.json')), 'dist-pkg/lib');
for (const name of readdirSync(lib)) {
  // Not inpage's own stand-alone worker (inpage-sw.js): this app has its own.
  if (name.startsWith('inpage') && !name.startsWith('inpage-sw.js') && statSync(join(lib, name)).isFile()) cpSync(join(lib, name), join(out, name));
}

await build({ entryPoints: ['sw.js'], bundle: true, format: 'iife', target: 'es2022', outfile: join(out, 'sw.js'), logLevel: 'warning' });

const { count, size, warnings } = await injectManifest({
  swSrc: join(out, 'sw.js'),
  swDest: join(out, 'sw.js'),
  globDirectory: out,
  // The app's pages and scripts and the inpage scripts every device runs; not each engine's own files
  // (inpage-engine-webllm-…, inpage-engine-llamacpp-…, llama.cpp's wasm): inpage keeps them on first use, on the
  // devices that run them.
  globPatterns: ['**/*.{html,js,css,svg,png,ico}'],
  globIgnores: ['sw.js', 'inpage-engine-webllm*', 'inpage-engine-llamacpp*'],
});
for (const warning of warnings) console.warn(warning);
console.log(`${out}/sw.js precaches ${count} files (${(size / 1024).toFixed(0)} KiB)`);
