// Documents as attachments, for any model: a text file read in the browser goes into the message as a delimited
// block (name and content) the model answers with, shown as a chip with Remove, counted in the context budget,
// refused when larger than MAX_DOCUMENT_BYTES (said, never cut), kept across a reload, in the export and its import.
import { readFile } from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import { chatAction, goToArea, openWorkspace, playgroundKey, registerThroughForm, sendAndWait } from './workspace-steps';

const NOTES = '# Shopping\n\n- 3 lemons\n- the blue notebook\n';
const CSV = 'city,people\nLyon,522000\nGhent,265000\n';

function file(name: string, text: string, mimeType = 'text/plain') {
  return { name, mimeType, buffer: Buffer.from(text, 'utf8') };
}

async function attach(page: Page, ...files: ReturnType<typeof file>[]): Promise<void> {
  await page.getByLabel('Documents to attach').setInputFiles(files);
}

async function start(page: Page): Promise<void> {
  await openWorkspace(page);
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  await playgroundKey(page);
}

for (const [label, viewport] of [
  ['desktop', { width: 1280, height: 900 }],
  ['phone', { width: 390, height: 844 }],
] as const) {
  test(`a text document reaches the model as a named block, ${label}`, async ({ page }) => {
    await page.setViewportSize(viewport);
    await start(page);
    const composer = page.locator('form.composer');
    await expect(composer.getByRole('button', { name: 'Attach document' })).toBeEnabled();

    await attach(page, file('notes.md', NOTES, 'text/markdown'), file('cities.csv', CSV, 'text/csv'));
    const chips = composer.getByTestId('document-chip');
    await expect(chips).toHaveCount(2);
    await expect(chips.first()).toContainText('notes.md');
    await expect(chips.nth(1)).toContainText('cities.csv');
    // Remove: the chip goes, the focus back to the message box.
    await composer.getByRole('button', { name: 'Remove document cities.csv' }).click();
    await expect(chips).toHaveCount(1);
    await expect(page.getByLabel('Message')).toBeFocused();
    await page.screenshot({ path: `/tmp/wt50b-documents-attached-${label}.png` });

    // Sent: the block, then the text; the deterministic engine echoes the message, so the model had it.
    const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/v1/chat/completions'));
    const answer = await sendAndWait(page, 'What do I buy?');
    const body = (await sent).postDataJSON() as { messages: { role: string; content: string }[] };
    const last = body.messages[body.messages.length - 1]!;
    expect(last).toEqual({ role: 'user', content: `<document name="notes.md">\n${NOTES}\n</document>\n\nWhat do I buy?` });
    await expect(answer).toContainText('the blue notebook');
    await expect(chips).toHaveCount(0);
    const userTurn = page.locator('.turn.user').first();
    await expect(userTurn.getByTestId('turn-document')).toContainText('notes.md');
    await expect(userTurn).toContainText('What do I buy?');

    // Kept across a reload: the sent one on its turn, one attached to the draft in the composer.
    await attach(page, file('cities.csv', CSV, 'text/csv'));
    await expect(chips).toHaveCount(1);
    await expect(page.getByTestId('context-documents')).toContainText('the attached documents ≈');
    await page.waitForTimeout(500);
    await page.reload();
    await page.evaluate(async () => {
      await window.inpageReady;
    });
    await expect(page.locator('.turn.user').first().getByTestId('turn-document')).toContainText('notes.md');
    await expect(page.locator('form.composer').getByTestId('document-chip')).toContainText('cities.csv');
    await page.screenshot({ path: `/tmp/wt50b-documents-sent-${label}.png` });
  });
}

test.use({ viewport: { width: 1280, height: 900 } });

test('a document too large or not text is refused and said; one that does not fit the context is named', async ({ page }) => {
  await start(page);
  const composer = page.locator('form.composer');
  // Over MAX_DOCUMENT_BYTES (256 KiB): refused whole, nothing attached.
  await attach(page, file('big.txt', 'word '.repeat(60_000)));
  await expect(composer.locator('.notice-error')).toContainText('big.txt is 293 KiB; a document can be at most 256 KiB');
  await expect(composer.getByTestId('document-chip')).toHaveCount(0);
  // Not text.
  await attach(page, { name: 'photo.txt', mimeType: 'text/plain', buffer: Buffer.from([0xff, 0xd8, 0xff, 0x00, 0x10]) });
  await expect(composer.locator('.notice-error')).toContainText('photo.txt is not UTF-8 text');
  // A PDF is read for its text (workspace-pdf.spec.ts); one with nothing of a PDF after its header is said broken.
  await attach(page, { name: 'paper.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n') });
  await expect(composer.locator('.notice-error')).toContainText('paper.pdf could not be read as a PDF (');

  // Within the size, beyond the context (the test models have 4,096 tokens): the warning names the document.
  await sendAndWait(page, 'hello');
  await attach(page, file('long.txt', 'lorem ipsum '.repeat(3000)));
  await expect(composer.getByTestId('document-chip')).toContainText('long.txt');
  await page.getByLabel('Message').fill('Summarise it');
  const warning = page.getByTestId('context-full');
  await expect(warning).toContainText('The attached document long.txt would not fit.');
  await expect(composer.getByRole('button', { name: 'Send' })).toBeDisabled();
  await page.screenshot({ path: '/tmp/wt50b-documents-too-long-desktop.png' });
  await warning.getByRole('button', { name: 'Remove the document' }).click();
  await expect(composer.getByTestId('document-chip')).toHaveCount(0);
  await expect(composer.getByRole('button', { name: 'Send' })).toBeEnabled();
});

test('an export carries the documents and its import takes them back as attachments', async ({ page }) => {
  await start(page);
  await attach(page, file('notes.md', NOTES, 'text/markdown'));
  await sendAndWait(page, 'What do I buy?');
  const [download] = await Promise.all([page.waitForEvent('download'), chatAction(page, 'Export JSON')]);
  const text = await readFile((await download.path())!, 'utf8');
  const exported = JSON.parse(text) as { messages: { role: string; content: string }[]; turns: { documents?: { name: string; text: string }[] }[] };
  expect(exported.messages.find((m) => m.role === 'user')!.content).toContain('<document name="notes.md">');
  expect(exported.turns[0]!.documents).toEqual([{ name: 'notes.md', text: NOTES }]);
  const [markdown] = await Promise.all([page.waitForEvent('download'), chatAction(page, 'Export Markdown')]);
  expect(await readFile((await markdown.path())!, 'utf8')).toContain('*Attached document notes.md:*');

  await page.locator('#pg-import').setInputFiles({ name: 'chat.json', mimeType: 'application/json', buffer: Buffer.from(text) });
  await expect(page.locator('.pg-chats .chat-open')).toHaveCount(2);
  await expect(page.locator('.turn.user').first().getByTestId('turn-document')).toContainText('notes.md');
});
