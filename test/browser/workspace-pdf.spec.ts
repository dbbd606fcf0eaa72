// PDFs as attachments: pdf.js (loaded only when a PDF is attached, its worker from the app's own origin) extracts
// the text in the page, which then goes the way of a text document (a named block in the message, a chip, the
// context budget, the reload). A PDF without text, locked, broken, over MAX_PDF_BYTES or MAX_PDF_PAGES, or whose
// text is over MAX_DOCUMENT_BYTES, is refused and said. The PDFs are written here, by hand (makePdf).
import { readFile } from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import { serveStatic, TEST_BUILD_DIR } from './static-server';
import { chatAction, goToArea, openWorkspace, playgroundKey, registerThroughForm, sendAndWait } from './workspace-steps';

/** A PDF string's literal: backslashes and parentheses escaped. */
function literal(text: string): string {
  return `(${text.replace(/[\\()]/g, (c) => `\\${c}`)})`;
}

/**
 * A minimal valid PDF (1.4, Helvetica, one text line per entry of each page, no compression), its cross-reference
 * table's offsets counted; `trailerExtra` goes into the trailer (an /Encrypt dictionary, for a locked one).
 */
function makePdf(pages: string[][], trailerExtra = ''): Buffer {
  const objects: string[] = [];
  objects.push('<< /Type /Catalog /Pages 2 0 R >>');
  objects.push(`<< /Type /Pages /Kids [${pages.map((_, i) => `${4 + 2 * i} 0 R`).join(' ')}] /Count ${pages.length} >>`);
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  pages.forEach((lines, i) => {
    const stream = lines.length ? `BT /F1 12 Tf 72 720 Td 14 TL ${lines.map((line) => `${literal(line)} Tj T*`).join(' ')} ET` : '';
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + 2 * i} 0 R >>`);
    objects.push(`<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`);
  });
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${trailerExtra} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

function pdfFile(name: string, buffer: Buffer) {
  return { name, mimeType: 'application/pdf', buffer };
}

async function attach(page: Page, ...files: ReturnType<typeof pdfFile>[]): Promise<void> {
  await page.getByLabel('Documents to attach').setInputFiles(files);
}

async function start(page: Page, origin = ''): Promise<void> {
  await openWorkspace(page, `${origin}/`);
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  await playgroundKey(page);
}

const REPORT = makePdf([['Quarterly report', 'Sales rose by 12 percent.'], ['Next step: hire two (2) engineers.']]);
/** What pdf.js extracts from REPORT: each line ended, a blank line between pages. */
const REPORT_TEXT = 'Quarterly report\nSales rose by 12 percent.\n\nNext step: hire two (2) engineers.';

for (const [label, viewport] of [
  ['desktop', { width: 1280, height: 900 }],
  ['phone', { width: 390, height: 844 }],
] as const) {
  test(`a PDF's text reaches the model as a named block, ${label}`, async ({ page }) => {
    await page.setViewportSize(viewport);
    // pdf.js and its worker come from this origin only, and only once a PDF is attached.
    const pdfRequests: string[] = [];
    page.on('request', (r) => {
      if (/pdf/i.test(new URL(r.url()).pathname)) pdfRequests.push(r.url());
    });
    await start(page);
    expect(pdfRequests).toEqual([]);
    const origin = new URL(page.url()).origin;

    await attach(page, pdfFile('report.pdf', REPORT));
    const composer = page.locator('form.composer');
    const chips = composer.getByTestId('document-chip');
    await expect(chips).toHaveCount(1);
    await expect(chips.first()).toContainText('report.pdf');
    await expect(chips.first()).toContainText(`${REPORT_TEXT.length} characters`);
    await expect(composer.locator('.notice-error')).toHaveCount(0);
    expect(pdfRequests.length).toBeGreaterThanOrEqual(2);
    for (const url of pdfRequests) expect(new URL(url).origin).toBe(origin);
    expect(pdfRequests.some((url) => /pdf\.worker/.test(url))).toBe(true);
    // Counted in the context budget as a document.
    await expect(page.getByTestId('context-documents')).toContainText('the attached documents ≈');

    const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/v1/chat/completions'));
    const answer = await sendAndWait(page, 'What is the next step?');
    const body = (await sent).postDataJSON() as { messages: { role: string; content: string }[] };
    expect(body.messages[body.messages.length - 1]).toEqual({
      role: 'user',
      content: `<document name="report.pdf">\n${REPORT_TEXT}\n</document>\n\nWhat is the next step?`,
    });
    // The deterministic engine echoes the message: the model had the PDF's text.
    await expect(answer).toContainText('hire two (2) engineers');
    const userTurn = page.locator('.turn.user').first();
    await expect(userTurn.getByTestId('turn-document')).toContainText('report.pdf');
    await page.screenshot({ path: `/tmp/wt50c-pdf-sent-${label}.png` });

    // Kept across a reload, on its turn.
    await page.waitForTimeout(500);
    await page.reload();
    await page.evaluate(async () => {
      await window.inpageReady;
    });
    await expect(page.locator('.turn.user').first().getByTestId('turn-document')).toContainText('report.pdf');
  });
}

test.use({ viewport: { width: 1280, height: 900 } });

test('a PDF without text, locked, broken or too large is refused and said, nothing attached', async ({ page }) => {
  await start(page);
  const composer = page.locator('form.composer');
  const error = composer.locator('.notice-error');
  const chips = composer.getByTestId('document-chip');

  // No text (as a scan: pages with nothing written on them).
  await attach(page, pdfFile('scan.pdf', makePdf([[], []])));
  await expect(error).toHaveText('scan.pdf has no text to read (its 2 pages are images only, as in a scan). Nothing was attached.');
  // Locked: an /Encrypt dictionary whose password is not the empty one.
  const hex = (byte: string) => `<${byte.repeat(32)}>`;
  const locked = makePdf(
    [['secret']],
    ` /Encrypt << /Filter /Standard /V 1 /R 2 /O ${hex('ab')} /U ${hex('cd')} /P -4 >> /ID [<${'01'.repeat(16)}> <${'01'.repeat(16)}>]`,
  );
  await attach(page, pdfFile('locked.pdf', locked));
  await expect(error).toHaveText('locked.pdf is protected by a password: its text cannot be read here. Nothing of it was attached.');
  // Broken: a PDF's header and nothing of a PDF after it.
  await attach(page, pdfFile('broken.pdf', Buffer.from('%PDF-1.4\nthis is not a PDF at all\n', 'latin1')));
  await expect(error).toContainText('broken.pdf could not be read as a PDF (');
  await expect(error).toContainText('Nothing of it was attached.');
  // More than MAX_PDF_PAGES (300) pages: refused before any page is read.
  await attach(page, pdfFile('long.pdf', makePdf(Array.from({ length: 301 }, (_, i) => [`page ${i + 1}`]))));
  await expect(error).toHaveText('long.pdf has 301 pages; a PDF can have at most 300. Nothing of it was attached: attach a shorter part.');
  // Its text over MAX_DOCUMENT_BYTES (256 KiB), though the file is within MAX_PDF_BYTES: 70 pages of 50 lines of
  // 89 characters (pdf.js reads the text inside the page only, so the lines are short) = 315,068 bytes.
  const line = 'word '.repeat(18).trim();
  await attach(page, pdfFile('wordy.pdf', makePdf(Array.from({ length: 70 }, () => Array.from({ length: 50 }, () => line)))));
  await expect(error).toContainText('The text of wordy.pdf is 308 KiB; a document can be at most 256 KiB. Nothing of it was attached');
  // A file over MAX_PDF_BYTES (16 MiB): refused unread.
  const huge = Buffer.alloc(17 * 1024 * 1024, 0x20);
  huge.write('%PDF-1.4\n', 0, 'latin1');
  await attach(page, pdfFile('huge.pdf', huge));
  await expect(error).toHaveText('huge.pdf is 17 MiB; a PDF can be at most 16 MiB. Nothing of it was attached.');
  await expect(chips).toHaveCount(0);

  // A good one beside a bad one: the good one is attached, the bad one named.
  await attach(page, pdfFile('report.pdf', REPORT), pdfFile('scan.pdf', makePdf([[]])));
  await expect(chips).toHaveCount(1);
  await expect(chips.first()).toContainText('report.pdf');
  await expect(error).toHaveText('scan.pdf has no text to read (its page is images only, as in a scan). Nothing was attached.');
  await page.screenshot({ path: '/tmp/wt50c-pdf-refused-desktop.png' });
});

test('at most MAX_DOCUMENTS (8) PDFs on one message; a sent PDF goes into the export and back with its import', async ({ page }) => {
  await start(page);
  const composer = page.locator('form.composer');
  const chips = composer.getByTestId('document-chip');
  await attach(page, ...Array.from({ length: 9 }, (_, i) => pdfFile(`part-${i + 1}.pdf`, REPORT)));
  await expect(composer.locator('.notice-error')).toHaveText('At most 8 documents go with one message: part-9.pdf was not attached.');
  await expect(chips).toHaveCount(8);
  for (let i = 8; i >= 2; i--) await composer.getByRole('button', { name: `Remove document part-${i}.pdf` }).click();
  await expect(chips).toHaveCount(1);
  await sendAndWait(page, 'Summarise');

  const [download] = await Promise.all([page.waitForEvent('download'), chatAction(page, 'Export JSON')]);
  const text = await readFile((await download.path())!, 'utf8');
  const exported = JSON.parse(text) as { messages: { role: string; content: string }[]; turns: { documents?: { name: string; text: string }[] }[] };
  expect(exported.messages.find((m) => m.role === 'user')!.content).toBe(`<document name="part-1.pdf">\n${REPORT_TEXT}\n</document>\n\nSummarise`);
  expect(exported.turns[0]!.documents).toEqual([{ name: 'part-1.pdf', text: REPORT_TEXT }]);
  await page.locator('#pg-import').setInputFiles({ name: 'chat.json', mimeType: 'application/json', buffer: Buffer.from(text) });
  await expect(page.locator('.pg-chats .chat-open')).toHaveCount(2);
  await expect(page.locator('.turn.user').first().getByTestId('turn-document')).toContainText('part-1.pdf');
});

test('the PDF reader is not precached: kept on first use, it reads PDFs offline after that', async ({ page, context }) => {
  // An origin of our own, so the network can really go away: the server is closed and the context offline.
  const server = await serveStatic(4793, { '/': TEST_BUILD_DIR });
  try {
    await start(page, server.origin);
    await attach(page, pdfFile('report.pdf', REPORT));
    await expect(page.locator('form.composer').getByTestId('document-chip')).toContainText('report.pdf');
    const kept = await page.evaluate(async () => {
      const byCache: Record<string, string[]> = {};
      for (const name of await caches.keys()) byCache[name] = (await (await caches.open(name)).keys()).map((r) => new URL(r.url).pathname);
      return byCache;
    });
    // Both files in the reader's cache (src/shared/pdf-reader-files.ts), neither in the precache.
    expect((kept['inpage-pdf-reader'] ?? []).map((path) => path.replace(/-[\w-]{8}(\.m?js)$/, '$1')).sort()).toEqual([
      '/assets/pdf-reader.js',
      '/assets/pdf.worker.min.mjs',
    ]);
    const precache = Object.entries(kept).filter(([name]) => name.includes('precache'));
    expect(precache.length).toBe(1);
    expect(precache[0]![1].some((path) => path === '/index.html')).toBe(true);
    expect(precache[0]![1].filter((path) => /pdf/.test(path))).toEqual([]);
  } finally {
    await server.close();
  }
  await context.setOffline(true);
  const reloaded = await page.reload();
  expect(reloaded?.fromServiceWorker()).toBe(true);
  await page.evaluate(async () => {
    await window.inpageReady;
  });
  await attach(page, pdfFile('again.pdf', makePdf([['Read with no network.']])));
  const again = page.locator('form.composer').getByTestId('document-chip').filter({ hasText: 'again.pdf' });
  await expect(again).toHaveCount(1);
  await expect(again).toContainText(`${'Read with no network.'.length} characters`);
  await expect(page.locator('form.composer .notice-error')).toHaveCount(0);
});
