// Workbox's precache manifest for a built service worker: the app's (sw.js) and inpage/vite's (inpage-sw.js in an adopting app's build).
//
// The service worker is built as an input of the app's own build (so it shares chunks, aliases and the
// test/production switch with it); after the files are on disk, workbox-build's `injectManifest` lists them
// with revisions and writes that list where sw.js says `self.__WB_MANIFEST`, fixing up sw.js's source map.
import { join } from 'node:path';
import type { Logger } from 'vite';
import { injectManifest } from 'workbox-build';
import { ENGINE_FILE_GLOBS } from '#shared/engine-files';
import { PDF_READER_GLOBS } from '#shared/pdf-reader-files';

export interface PrecacheOptions {
  /** The service worker's file, relative to the output folder. */
  swFile: string;
  /** What goes into the precache (globs relative to the output folder). */
  globPatterns?: string[];
  /** What never does: source maps, site config read fresh at runtime, model files. */
  globIgnores?: string[];
}

/** The app shell: everything a page, the engine worker and the service worker load, and nothing big. */
export const SHELL_PATTERNS = ['**/*.{html,js,mjs,css,svg,png,ico,webmanifest,woff2}'];
export const SHELL_IGNORES = [
  // Each engine's own code and wasm: kept by the service worker on first use, by the devices that run it.
  ...ENGINE_FILE_GLOBS,
  // The workspace's PDF reader (pdf.js and its worker): kept on first use, by those who attach a PDF.
  ...PDF_READER_GLOBS,
  '**/*.map',
  // Read network-first at runtime so a deployment can change it without a rebuild.
  'inpage.config.json',
  // Weights and model libraries a deployment serves itself (npm run models:pull) live in web-llm's cache.
  'models/**',
  '**/*.wasm',
  '**/*.bin',
];

/** Lists the shell in the service worker's file (already written under `outDir`), in place. */
export async function injectShell(outDir: string, options: PrecacheOptions, logger: Pick<Logger, 'info' | 'warn'>): Promise<void> {
  const sw = join(outDir, options.swFile);
  const { count, size, warnings } = await injectManifest({
    swSrc: sw,
    swDest: sw,
    globDirectory: outDir,
    globPatterns: options.globPatterns ?? SHELL_PATTERNS,
    globIgnores: options.globIgnores ?? SHELL_IGNORES,
    // File names under assets/ carry a content hash already: no revision needed.
    dontCacheBustURLsMatching: /^assets\/.+-[\w-]{8,}\.\w+$/,
    // Large files an app lists are its own affair (each engine's own code is not listed: see SHELL_IGNORES).
    maximumFileSizeToCacheInBytes: 64 * 1024 * 1024,
  });
  for (const warning of warnings) logger.warn(`precache: ${warning}`);
  logger.info(`precache: ${count} files, ${(size / 1024).toFixed(1)} KiB, listed in ${options.swFile}`);
}
