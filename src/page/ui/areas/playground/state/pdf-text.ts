// The text of a PDF, read in the page with pdf.js (pdfjs-dist). This module is loaded only when a PDF is attached
// (documents.ts imports it dynamically), so neither pdf.js nor its worker is in the workspace's first load. The
// worker is a file of our own build (`?url`), served from the app's origin like the engine worker: the page's
// Content-Security-Policy (worker-src 'self') and the service worker's policy for worker scripts allow it.
import { getDocument, GlobalWorkerOptions } from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';

GlobalWorkerOptions.workerSrc = workerUrl;

/** The outcome of a read: each page's text (lines joined with "\n"), or why there is none. */
export type PdfText = { pages: string[] } | { failure: 'password' | 'invalid' | 'too-many-pages'; pageCount?: number; message?: string };

/** A PDF's text page by page, reading no more than `maxPages` pages (a longer one is refused before any is read). */
export async function pdfText(data: Uint8Array, maxPages: number): Promise<PdfText> {
  // No fonts loaded into the page: only the text is wanted.
  const task = getDocument({ data, disableFontFace: true, useSystemFonts: false, stopAtErrors: false });
  try {
    let pdf;
    try {
      pdf = await task.promise;
    } catch (err) {
      const name = err instanceof Error ? err.name : '';
      if (name === 'PasswordException') return { failure: 'password' };
      return { failure: 'invalid', message: err instanceof Error ? err.message : String(err) };
    }
    if (pdf.numPages > maxPages) return { failure: 'too-many-pages', pageCount: pdf.numPages };
    const pages: string[] = [];
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      let text = '';
      for (const item of content.items) {
        if (!('str' in item)) continue;
        text += item.str + (item.hasEOL ? '\n' : '');
      }
      pages.push(text.replace(/[ \t]+\n/g, '\n').trim());
      page.cleanup();
    }
    return { pages };
  } finally {
    await task.destroy();
  }
}
