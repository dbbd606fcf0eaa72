// History that branches: editing a message makes a new version of it (‹ 1/2 › on the message), the earlier one
// and everything after it kept and reachable; a regeneration a reload interrupted stays a version; export and
// import carry every version and branch (test build: the deterministic engine answers "Echo: <message>").
import { readFile } from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import { chatAction, goToArea, openWorkspace, playgroundKey, registerThroughForm, screens, sendAndWait } from './workspace-steps';

async function startPlayground(page: Page, path = '/'): Promise<void> {
  await openWorkspace(page, path);
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  await playgroundKey(page);
}

async function downloaded(page: Page, button: string): Promise<string> {
  const [file] = await Promise.all([page.waitForEvent('download'), chatAction(page, button)]);
  return readFile((await file.path())!, 'utf8');
}

test.use({ viewport: { width: 1280, height: 900 } });

test('editing a message after a regenerate keeps both branches reachable, and export and import carry them', async ({ page }) => {
  await startPlayground(page);
  const answer = await sendAndWait(page, 'first question');
  await answer.getByRole('button', { name: 'Regenerate the last answer' }).click();
  await expect(answer.getByTestId('version')).toHaveText('2/2');
  await expect(answer).toHaveAttribute('data-status', 'done');

  // Edit the message above and send it again: a new branch.
  const user = page.locator('.turn.user').first();
  await user.getByRole('button', { name: 'Edit turn 1' }).click();
  await expect(user).toContainText('Sending again starts a new version of this message');
  await user.getByLabel('Edit your text').fill('second question');
  await user.getByRole('button', { name: 'Send again' }).click();
  await expect(page.locator('.turn.assistant').first()).toHaveAttribute('data-status', 'done');
  await expect(page.locator('.turn.assistant .answer')).toHaveText(['Echo: second question']);
  await expect(user.getByTestId('branch')).toHaveText('2/2');
  await expect(page.locator('.turn.assistant').first().getByTestId('version')).toHaveCount(0);

  // The earlier branch: the first message and both versions of its answer.
  await user.getByRole('button', { name: 'Previous version of what you wrote' }).click();
  await expect(user.locator('.user-text')).toHaveText('first question');
  await expect(user.getByTestId('branch')).toHaveText('1/2');
  const old = page.locator('.turn.assistant').first();
  await expect(old.locator('.answer')).toHaveText('Echo: first question');
  await expect(old.getByTestId('version')).toHaveText('2/2');
  await old.getByRole('button', { name: 'Previous version of the answer' }).click();
  await expect(old.getByTestId('version')).toHaveText('1/2');
  await screens(page, 'branches', { screen: true });
  await expect(old.locator('.answer')).toHaveText('Echo: first question');

  // The chat goes on in the earlier branch; the later one is still there.
  await sendAndWait(page, 'follow-up');
  await expect(page.locator('.turn.user .user-text')).toHaveText(['first question', 'follow-up']);
  await user.getByRole('button', { name: 'Next version of what you wrote' }).click();
  await expect(page.locator('.turn.user .user-text')).toHaveText(['second question']);
  await expect(page.locator('.turn.assistant .answer')).toHaveText(['Echo: second question']);
  await user.getByRole('button', { name: 'Previous version of what you wrote' }).click();
  await expect(page.locator('.turn.user .user-text')).toHaveText(['first question', 'follow-up']);

  // Kept across a reload.
  await page.reload();
  await page.evaluate(async () => {
    await window.inpageReady;
  });
  await expect(page.locator('.turn.user').first().getByTestId('branch')).toHaveText('1/2');

  // Export: the messages sent as before, and every turn with its versions and branches.
  const text = await downloaded(page, 'Export JSON');
  const json = JSON.parse(text) as {
    messages: { content: string }[];
    turns: { text: string; branches?: { text: string; after: unknown[] }[]; versions?: unknown[] }[];
  };
  expect(json.messages.map((m) => m.content)).toEqual(['first question', 'Echo: first question', 'follow-up', 'Echo: follow-up']);
  expect(json.turns[0]!.branches!.map((b) => b.text)).toEqual(['first question', 'second question']);
  expect(json.turns[0]!.branches![1]!.after).toHaveLength(1);
  expect(json.turns[1]!.versions).toHaveLength(2);
  const markdown = await downloaded(page, 'Export Markdown');
  expect(markdown).toContain('> Version 2 of 2 of this message (one turn after it):');
  expect(markdown).toContain('> Version 2 of 2 of this answer:');

  // Import: the same chat with both branches.
  await page.locator('#pg-import').setInputFiles({ name: 'chat.json', mimeType: 'application/json', buffer: Buffer.from(text) });
  await expect(page.locator('.pg-chats .chat-open')).toHaveCount(2);
  const imported = page.locator('.turn.user').first();
  await expect(imported.getByTestId('branch')).toHaveText('1/2');
  await imported.getByRole('button', { name: 'Next version of what you wrote' }).click();
  await expect(page.locator('.turn.assistant .answer')).toHaveText(['Echo: second question']);
  expect(JSON.parse(await downloaded(page, 'Export JSON')).turns[0].branches).toHaveLength(2);
});

test('a regeneration a reload interrupted stays a version of the answer', async ({ page }) => {
  test.setTimeout(120_000);
  await startPlayground(page, '/?tokenDelayMs=25');
  const answer = await sendAndWait(page, 'count 200');
  await answer.getByRole('button', { name: 'Regenerate the last answer' }).click();
  await expect(answer).toHaveAttribute('data-status', 'streaming');
  // Reloaded part-way through the regeneration.
  await expect
    .poll(async () => ((await answer.locator('.answer').textContent()) ?? '').trim().split(/\s+/).length, { timeout: 30_000 })
    .toBeGreaterThanOrEqual(3);
  await page.reload();
  await page.evaluate(async () => {
    await window.inpageReady;
  });
  const kept = page.locator('.turn.assistant').first();
  await expect(kept).toHaveAttribute('data-status', 'interrupted');
  await expect(kept.getByTestId('version')).toHaveText('2/2');
  const cut = ((await kept.locator('.answer').textContent()) ?? '').trim();
  expect(cut.split(/\s+/).length).toBeLessThan(200);
  await kept.getByRole('button', { name: 'Previous version of the answer' }).click();
  await expect(kept.getByTestId('version')).toHaveText('1/2');
  await expect(kept.locator('.answer')).toHaveText(Array.from({ length: 200 }, (_, i) => i + 1).join(' '));
  await kept.getByRole('button', { name: 'Next version of the answer' }).click();
  await expect(kept.getByTestId('version')).toHaveText('2/2');
  await expect(kept.locator('.answer')).toHaveText(cut);
  await expect(kept.getByTestId('stats')).toHaveText('Interrupted by reload');
});
