// Documents attached to a message (any model): text files and PDFs read in the browser, sent as a clearly delimited
// block before the message's text, each with its name. A PDF's text is extracted in the page by pdf.js
// (pdf-text.ts, loaded only when a PDF is attached) and then is a document like any other. Nothing is cut: a file
// too large, not text, or a PDF without text, locked or broken, is refused and said so; what does fit the context
// is the context budget's to say (context-budget.ts).
import type { AttachedDocument } from './conversation-db';

/**
 * The largest document taken, in bytes of its file (256 KiB, about 85,000 tokens at the budget's 3 characters a
 * token: more than any model here holds). A larger one is refused, never cut.
 */
export const MAX_DOCUMENT_BYTES = 256 * 1024;
/**
 * The largest PDF read, in bytes of its file (16 MiB). Its text, once extracted, must still be at most
 * MAX_DOCUMENT_BYTES: a PDF's file is mostly fonts and images.
 */
export const MAX_PDF_BYTES = 16 * 1024 * 1024;
/** The most pages of a PDF read (300); a longer one is refused before any page is read. */
export const MAX_PDF_PAGES = 300;
/** At most this many documents on one message. */
export const MAX_DOCUMENTS = 8;

/** What the file picker offers: text, Markdown, data and code files, and PDFs. */
export const DOCUMENT_ACCEPT = [
  'text/*',
  'application/json',
  'application/pdf',
  '.pdf',
  ...[
    'txt md markdown csv tsv json jsonl ndjson xml yaml yml toml ini cfg conf log html htm css scss',
    'js mjs cjs jsx ts tsx py rb go rs java kt swift c h cc cpp hpp cs php sh bash zsh ps1 sql r lua pl tex rst adoc',
  ]
    .join(' ')
    .split(' ')
    .map((ext) => `.${ext}`),
].join(',');

/** A document's block in the message: its name in the opening line, its text, the closing line. */
export function documentBlock(doc: AttachedDocument): string {
  return `<document name="${doc.name.replace(/["<>\n]/g, '_')}">\n${doc.text}\n</document>`;
}

/** The text of a user message as sent: the attached documents' blocks, then what the person wrote. */
export function withDocuments(text: string, documents: readonly AttachedDocument[] | undefined): string {
  if (!documents?.length) return text;
  return `${documents.map(documentBlock).join('\n\n')}\n\n${text}`;
}

/** The blocks alone (for the context budget of a draft's documents), or ''. */
export function documentsText(documents: readonly AttachedDocument[] | undefined | null): string {
  return documents?.length ? documents.map(documentBlock).join('\n\n') : '';
}

function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KiB`;
  const mib = bytes / (1024 * 1024);
  return `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB`;
}

function isPdf(file: File): boolean {
  return /\.pdf$/i.test(file.name) || file.type === 'application/pdf';
}

/** The file as a document, or why it is not taken (too large, not UTF-8 text; for a PDF, see readPdf). */
export async function readDocument(file: File): Promise<AttachedDocument | string> {
  if (isPdf(file)) return readPdf(file);
  if (file.size > MAX_DOCUMENT_BYTES)
    return `${file.name} is ${sizeText(file.size)}; a document can be at most ${sizeText(MAX_DOCUMENT_BYTES)}. Nothing of it was attached: attach a shorter part.`;
  const bytes = new Uint8Array(await file.arrayBuffer());
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return `${file.name} is not UTF-8 text: only text files and PDFs can be attached (text, Markdown, CSV, JSON, code, PDF).`;
  }
  if (text.includes('\u0000')) return `${file.name} looks like a binary file, not text: only text files and PDFs can be attached.`;
  return { name: file.name, text: text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n') };
}

/**
 * A PDF as a document: its text, page after page (a blank line between pages), or why not: a file over
 * MAX_PDF_BYTES or with more than MAX_PDF_PAGES pages, a locked (password) or broken file, one with no text (a
 * scan: pdf.js reads the text a PDF carries, it does no OCR), or text over MAX_DOCUMENT_BYTES.
 */
async function readPdf(file: File): Promise<AttachedDocument | string> {
  if (file.size > MAX_PDF_BYTES) return `${file.name} is ${sizeText(file.size)}; a PDF can be at most ${sizeText(MAX_PDF_BYTES)}. Nothing of it was attached.`;
  const data = new Uint8Array(await file.arrayBuffer());
  const { pdfText } = await import('./pdf-text');
  const read = await pdfText(data, MAX_PDF_PAGES);
  if ('failure' in read) {
    if (read.failure === 'password') return `${file.name} is protected by a password: its text cannot be read here. Nothing of it was attached.`;
    if (read.failure === 'too-many-pages')
      return `${file.name} has ${read.pageCount ?? 'too many'} pages; a PDF can have at most ${MAX_PDF_PAGES}. Nothing of it was attached: attach a shorter part.`;
    return `${file.name} could not be read as a PDF (${read.message ?? 'a broken file'}). Nothing of it was attached.`;
  }
  const text = read.pages.join('\n\n').trim();
  if (!text)
    return `${file.name} has no text to read (${read.pages.length === 1 ? 'its page is' : `its ${read.pages.length} pages are`} images only, as in a scan). Nothing was attached.`;
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > MAX_DOCUMENT_BYTES)
    return `The text of ${file.name} is ${sizeText(bytes)}; a document can be at most ${sizeText(MAX_DOCUMENT_BYTES)}. Nothing of it was attached: attach a shorter part.`;
  return { name: file.name, text };
}
