// The workspace's PDF reader (pdf.js: the chunk of src/page/ui/areas/playground/state/pdf-text.ts and pdf.js's
// worker), declared once: the build names its chunk, the service worker's precache leaves both files out, and the
// service worker keeps them cache-first on first use (a cache of their own), so only a visitor who attaches a PDF
// downloads them (1.7 MB), and reads PDFs offline after that (docs/offline.md).

/** The build's name of the chunk that carries pdf.js (vite.config.ts), before its hash. */
export const PDF_READER_CHUNK = 'pdf-reader';

/** What a precache leaves out (workbox-build's globs): the reader's chunk and pdf.js's worker (a `?url` asset). */
export const PDF_READER_GLOBS: readonly string[] = [`**/${PDF_READER_CHUNK}-*.js`, '**/pdf.worker.min-*.mjs'];

/** The cache the service worker keeps them in, from their first use. */
export const PDF_READER_CACHE = 'inpage-pdf-reader';

/** Whether a served file is one of the reader's (by its path). */
export function isPdfReaderPath(pathname: string): boolean {
  const name = pathname.slice(pathname.lastIndexOf('/') + 1);
  return new RegExp(`^${PDF_READER_CHUNK}-[\\w-]+\\.js$`).test(name) || /^pdf\.worker\.min-[\w-]+\.mjs$/.test(name);
}

/** The modules of the reader's chunk: pdf.js itself and the module that calls it. */
export function isPdfReaderChunk(moduleIds: readonly string[]): boolean {
  return moduleIds.some((id) => /[\\/]node_modules[\\/]pdfjs-dist[\\/]/.test(id));
}
