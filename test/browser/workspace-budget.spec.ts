// The context warning names its real cause, and the Playground never sends a request it knows will be refused
// (test build: the deterministic engine's context is 4,096 tokens, a token a word, 4 a message and 2 a prompt).
import { expect, test, type Page } from '@playwright/test';
import { goToArea, openChatSettings, openWorkspace, playgroundKey, registerThroughForm, screens, sendAndWait } from './workspace-steps';

async function startPlayground(page: Page): Promise<void> {
  await openWorkspace(page);
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  await playgroundKey(page);
}

test.use({ viewport: { width: 1280, height: 900 } });

test('a Max tokens too high for the chat is named as the cause, and lowering it is offered', async ({ page }) => {
  await startPlayground(page);
  await sendAndWait(page, 'count 300');
  await openChatSettings(page);
  await page.locator('.pg-params summary').click();
  await page.getByLabel('Max tokens').fill('3900');
  await page.getByRole('button', { name: 'Done' }).click();

  const full = page.getByTestId('context-full');
  await expect(full).toContainText('Max tokens is too high for this chat.');
  await expect(full).toContainText('Max tokens (in Settings) asks for answers of up to 3,900 tokens');
  // The history is not the cause: no turns to leave out, no summary offered.
  await expect(full.getByRole('button', { name: /Leave out/ })).toHaveCount(0);
  await expect(full.getByRole('button', { name: /summary/ })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
  await screens(page, 'context-max-tokens', { screen: true });

  // The chat takes about 300 answer tokens and its messages: the room is between 3,700 and 3,800.
  await full.getByRole('button', { name: 'Lower Max tokens to 3,700' }).click();
  await expect(full).toHaveCount(0);
  await expect(page.getByLabel('Message')).toBeFocused();
  await openChatSettings(page);
  await expect(page.getByLabel('Max tokens')).toHaveValue('3700');
  await page.getByRole('button', { name: 'Done' }).click();
  const answer = await sendAndWait(page, 'and now?');
  await expect(answer.locator('.answer')).toHaveText('Echo: and now?');
});

test('the other way out: no Max tokens, the answer gets the room that is left', async ({ page }) => {
  await startPlayground(page);
  await sendAndWait(page, 'count 300');
  await openChatSettings(page);
  await page.locator('.pg-params summary').click();
  await page.getByLabel('Max tokens').fill('3900');
  await page.getByRole('button', { name: 'Done' }).click();
  const full = page.getByTestId('context-full');
  await full.getByRole('button', { name: 'Use the room that is left (no Max tokens)' }).click();
  await expect(full).toHaveCount(0);
  await openChatSettings(page);
  await expect(page.getByLabel('Max tokens')).toHaveValue('');
});

test('no request the service refuses: a first send and regenerations of a prompt of many short tokens', async ({ page }) => {
  const refused: string[] = [];
  const bodies: { max_tokens?: number }[] = [];
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname.endsWith('/v1/chat/completions')) bodies.push(request.postDataJSON());
  });
  page.on('response', (response) => {
    if (new URL(response.url()).pathname.includes('/v1/') && response.status() >= 400) refused.push(`${response.status()} ${response.url()}`);
  });
  await startPlayground(page);
  // 300 one-letter words: the test engine counts 306 tokens, more than a 3-characters-a-token estimate (208).
  const text = Array(300).fill('a').join(' ');
  const answer = await sendAndWait(page, text);
  await expect(answer.locator('.answer')).toHaveText(`Echo: ${text}`);
  for (let i = 2; i <= 3; i++) {
    await answer.getByRole('button', { name: 'Regenerate the last answer' }).click();
    await expect(answer.getByTestId('version')).toHaveText(`${i}/${i}`);
    await expect(answer).toHaveAttribute('data-status', 'done');
  }
  expect(refused).toEqual([]);
  expect(errors).toEqual([]);
  // One request per answer, each with a max_tokens that leaves the prompt its room.
  expect(bodies).toHaveLength(3);
  for (const body of bodies) {
    expect(body.max_tokens).toBeGreaterThan(3000);
    expect(body.max_tokens! + 306).toBeLessThanOrEqual(4096);
  }
});

test('an attached image that would not fit is named as the cause, and removing it is offered', async ({ page }) => {
  await startPlayground(page);
  await page.locator('#pg-model').selectOption('svc-vision');
  // About 3,000 tokens of chat: a text message still fits, an image (counted at 1,024) beside it does not.
  await sendAndWait(page, 'count 3000');
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  await page.locator('#pg-image').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: png });
  await page.getByLabel('Message').fill('look');
  const full = page.getByTestId('context-full');
  await expect(full).toContainText('The attached image would not fit.');
  await expect(full).toContainText('An image takes about 1,024 tokens');
  await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
  await full.getByRole('button', { name: 'Remove the image' }).click();
  await expect(full).toHaveCount(0);
  await expect(page.getByRole('img', { name: 'Attached: dot.png' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Send' })).toBeEnabled();
});
