// Documents attached in the Playground: their block in the message, their place in the context budget, and the
// files refused (too large, not text, a PDF over MAX_PDF_BYTES) with the reason. A PDF's text, and the other
// PDFs refused, are read by pdf.js in the browser: test/browser/workspace-pdf.spec.ts.
import { describe, expect, it } from 'vitest';
import { nextFit, contextUsed } from '../../../src/page/ui/areas/playground/state/context-budget';
import { MAX_DOCUMENT_BYTES, MAX_PDF_BYTES, readDocument, withDocuments } from '../../../src/page/ui/areas/playground/state/documents';
import { DEFAULT_PARAMS, type Turn } from '../../../src/page/ui/areas/playground/state/conversation-db';

const doc = { name: 'notes.md', text: '- 3 lemons' };

describe('Playground documents', () => {
  it('go before the text as a block with their name', () => {
    expect(withDocuments('What do I buy?', [doc])).toBe('<document name="notes.md">\n- 3 lemons\n</document>\n\nWhat do I buy?');
    expect(withDocuments('hi', [])).toBe('hi');
    expect(withDocuments('hi', [{ name: 'a"b<c>.txt', text: 'x' }])).toContain('<document name="a_b_c_.txt">');
  });

  it('count in the budget: on a sent turn and on the draft', () => {
    const long = { name: 'long.txt', text: 'a'.repeat(3000) };
    const plain: Turn = { id: 't', role: 'user', text: 'hi' };
    const withDoc: Turn = { ...plain, documents: [long] };
    expect(contextUsed({ system: '', turns: [withDoc] }).tokens).toBeGreaterThan(contextUsed({ system: '', turns: [plain] }).tokens + 999);
    const chat = { system: '', turns: [], params: { ...DEFAULT_PARAMS } };
    expect(nextFit(chat, 'hi', 1200).fits).toBe(true);
    expect(nextFit({ ...chat, draftDocuments: [long] }, 'hi', 1200).fits).toBe(false);
    // The max_tokens sent leaves room for the document's most tokens (its bytes).
    expect(nextFit({ ...chat, draftDocuments: [long] }, 'hi', 8192).maxTokens).toBeLessThanOrEqual(8192 - 3000);
  });

  it('are refused, with the reason, when too large, not text, or a PDF over its own bound', async () => {
    expect(await readDocument(new File(['a'.repeat(MAX_DOCUMENT_BYTES + 1)], 'big.txt'))).toMatch(/^big\.txt is 256 KiB; a document can be at most 256 KiB/);
    expect(await readDocument(new File([new Uint8Array([0xff, 0xfe, 0x00])], 'x.txt'))).toMatch(/not UTF-8 text/);
    // A PDF's bound is its own (16 MiB), checked before pdf.js is loaded; a PDF within it passes the text bound.
    expect(MAX_PDF_BYTES).toBe(16 * 1024 * 1024);
    const huge = new File([new Uint8Array(MAX_PDF_BYTES + 1)], 'p.pdf', { type: 'application/pdf' });
    expect(await readDocument(huge)).toBe('p.pdf is 16.0 MiB; a PDF can be at most 16 MiB. Nothing of it was attached.');
    expect(await readDocument(new File(['\uFEFFa\r\nb'], 'ok.csv'))).toEqual({ name: 'ok.csv', text: 'a\nb' });
  });
});
