// Documents attached to a message (any model): text files read in the browser, sent as a clearly delimited block
// before the message's text, each with its name. Nothing is cut: a file too large, or not text, is refused and
// said so; what does fit the context is the context budget's to say (context-budget.ts).
import type { AttachedDocument } from './conversation-db';

/**
 * The largest document taken, in bytes of its file (256 KiB, about 85,000 tokens at the budget's 3 characters a
 * token: more than any model here holds). A larger one is refused, never cut.
 */
export const MAX_DOCUMENT_BYTES = 256 * 1024;
/** At most this many documents on one message. */
export const MAX_DOCUMENTS = 8;

/** What the file picker offers: text, Markdown, data and code files. */
export const DOCUMENT_ACCEPT = [
  'text/*',
  'application/json',
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
  return bytes < 1024 ? `${bytes} bytes` : bytes < 1024 * 1024 ? `${Math.round(bytes / 1024)} KiB` : `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** The file as a document, or why it is not taken (too large, not UTF-8 text). */
export async function readDocument(file: File): Promise<AttachedDocument | string> {
  if (file.size > MAX_DOCUMENT_BYTES)
    return `${file.name} is ${sizeText(file.size)}; a document can be at most ${sizeText(MAX_DOCUMENT_BYTES)}. Nothing of it was attached: attach a shorter part.`;
  if (/\.pdf$/i.test(file.name) || file.type === 'application/pdf')
    return `${file.name} is a PDF: only text files are read here (text, Markdown, CSV, JSON, code). Copy its text into a .txt file, or paste it.`;
  const bytes = new Uint8Array(await file.arrayBuffer());
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return `${file.name} is not UTF-8 text: only text files can be attached (text, Markdown, CSV, JSON, code).`;
  }
  if (text.includes('\u0000')) return `${file.name} looks like a binary file, not text: only text files can be attached.`;
  return { name: file.name, text: text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n') };
}
