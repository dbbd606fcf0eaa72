// Smaller findings of issue 50: where the focus goes after a tab change to the Playground (the message box, with a
// key) and after "Use the Playground key" on Connect (never the page's body); the parameters' count leaves the
// functions, which have their own section, out.
import { expect, test } from '@playwright/test';
import { goToArea, openChatSettings, openWorkspace, playgroundKey, registerThroughForm, sendAndWait } from './workspace-steps';

test.use({ viewport: { width: 1280, height: 900 } });

test('the focus: the message box after a tab change to the Playground; Connect keeps it on a control', async ({ page }) => {
  await openWorkspace(page);
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  // No key yet: the area's heading, and the key's offer after it.
  await expect(page.getByRole('heading', { name: 'Playground', level: 1 })).toBeFocused();
  await playgroundKey(page);
  await goToArea(page, 'Models');
  await expect(page.getByRole('heading', { name: 'Models', level: 1 })).toBeFocused();
  await goToArea(page, 'Playground');
  await expect(page.getByLabel('Message')).toBeFocused();

  await goToArea(page, 'Connect');
  await page.getByRole('button', { name: 'Use the Playground key' }).click();
  const hide = page.getByRole('button', { name: 'Hide my key again' });
  await expect(hide).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByLabel('Fill your key into the snippets')).toBeFocused();
  expect(await page.evaluate(() => document.activeElement === document.body)).toBe(false);
});

test('"Parameters" counts no functions: they have their own section; Settings counts both', async ({ page }) => {
  await openWorkspace(page);
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  await playgroundKey(page);
  await openChatSettings(page);
  await page.locator('.pg-functions summary').click();
  await page.getByLabel('Function definitions (JSON)').fill('[{"name": "get_weather", "parameters": {"type": "object"}}]');
  await expect(page.locator('.pg-functions summary')).toHaveText('Functions (1)');
  await expect(page.locator('.pg-params summary')).toHaveText('Parameters');
  await page.locator('.pg-params summary').click();
  await page.getByLabel('Temperature').fill('0.5');
  await expect(page.locator('.pg-params summary')).toHaveText('Parameters (1 set)');
  await expect(page.getByRole('button', { name: /^Settings/ })).toHaveText('Settings (2)');
});

test('a long first message names the chat on a whole word; empty new chats do not pile up; a send error goes with a switch of model', async ({ page }) => {
  await openWorkspace(page);
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  await playgroundKey(page);
  const long = 'Please explain how the tokenizer of a language model splits unfamiliar compound words into pieces';
  await sendAndWait(page, long);
  const title = (await page.getByTestId('chat-title').textContent())!;
  expect(title).toBe('Please explain how the tokenizer of a language model splits…');
  expect(long.startsWith(title.slice(0, -1))).toBe(true);
  expect(long[title.length - 1]).toBe(' ');

  // New chat, back to the first, New chat again: the same empty chat, not a second one.
  const chats = page.getByRole('navigation', { name: 'Chats' });
  await chats.getByRole('button', { name: 'New chat', exact: true }).click();
  await expect(page.getByTestId('chat-title')).toHaveText('New chat');
  await chats.getByRole('button', { name: /^Please explain/ }).click();
  await chats.getByRole('button', { name: 'New chat', exact: true }).click();
  await expect(chats.locator('.chat-title')).toHaveText(['New chat', title]);

  // A send that fails before its first token: the error beside the composer, until the model changes.
  await page.getByLabel('Message').fill('fail after 0');
  await page.getByRole('button', { name: 'Send' }).click();
  const error = page.locator('form.composer .notice-error');
  await expect(error).toContainText('Not sent');
  await page.locator('#pg-model').selectOption('svc-model-5.2-short-fast');
  await expect(error).toHaveCount(0);
  await expect(page.getByLabel('Message')).toHaveValue('fail after 0');
});

test('Connect: Test the connection is there before a key is filled, and says what it needs', async ({ page }) => {
  await openWorkspace(page);
  await registerThroughForm(page);
  await goToArea(page, 'Connect');
  const test = page.getByRole('button', { name: 'Test the connection' });
  await expect(test).toBeDisabled();
  await expect(page.locator('#try-it-needs')).toHaveText('Fill in a key above (or use the Playground key) to test the connection with it.');
  await goToArea(page, 'Playground');
  await expect(page.locator('.key-options')).toContainText('One key named “Playground” reaching every model listed in Models');
});

test('an image attached for svc-vision is kept, and said so, when the chat switches to a text model', async ({ page }) => {
  await openWorkspace(page);
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  await playgroundKey(page);
  await page.locator('#pg-model').selectOption('svc-vision');
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  await page.locator('#pg-image').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: png });
  await expect(page.getByRole('img', { name: 'Attached: dot.png' })).toBeVisible();
  await page.locator('#pg-model').selectOption('svc-model-5.2-short-fast');
  const held = page.getByTestId('image-held');
  await expect(held).toHaveText(/^The attached image dot\.png is not sent: svc-model-5\.2-short-fast reads text only\./);
  const answer = await sendAndWait(page, 'text only');
  await expect(answer.locator('.answer')).toHaveText('Echo: text only');
  // Still there, and back as the attachment on svc-vision.
  await expect(held).toBeVisible();
  await page.locator('#pg-model').selectOption('svc-vision');
  await expect(held).toHaveCount(0);
  await expect(page.getByRole('img', { name: 'Attached: dot.png' })).toBeVisible();
  await page.locator('#pg-model').selectOption('svc-model-5.2-short-fast');
  await held.getByRole('button', { name: 'Remove image dot.png' }).click();
  await expect(held).toHaveCount(0);
  await expect(page.getByLabel('Message')).toBeFocused();
});

test('search shows where it matched in a chat’s messages', async ({ page }) => {
  await openWorkspace(page);
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  await playgroundKey(page);
  await sendAndWait(page, 'first');
  await sendAndWait(page, 'Tell me whether the weather in Oslo is cold in the winter months, and how windy it gets by the fjord');
  const chats = page.getByRole('navigation', { name: 'Chats' });
  await chats.getByRole('button', { name: 'New chat', exact: true }).click();
  await sendAndWait(page, 'something else');
  await page.getByLabel('Search chats').fill('oslo');
  await expect(chats.locator('.chat-title')).toHaveText(['first']);
  await expect(chats.getByTestId('chat-snippet')).toHaveText('Tell me whether the weather in Oslo is cold in the winter months…');
  // A short message: all of it.
  await page.getByLabel('Search chats').fill('something');
  await expect(chats.locator('.chat-title')).toHaveText(['something else']);
  await expect(chats.getByTestId('chat-snippet')).toHaveText('something else');
});
