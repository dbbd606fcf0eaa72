// Setups that carry over: a chat's system prompt and parameters made the default, new chats start from them
// (also after a reload), and "Back to the built-in defaults" undoes it.
import { expect, test, type Page } from '@playwright/test';
import { goToArea, openChatSettings, openWorkspace, playgroundKey, registerThroughForm, sendAndWait } from './workspace-steps';

test.use({ viewport: { width: 1280, height: 900 } });

async function newChat(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Chats' }).getByRole('button', { name: 'New chat', exact: true }).click();
  await expect(page.getByTestId('chat-title')).toHaveText('New chat');
}

test('a new chat inherits the system prompt and parameters made the default', async ({ page }) => {
  await openWorkspace(page);
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  await playgroundKey(page);
  await openChatSettings(page);
  const defaults = page.getByTestId('chat-defaults');
  await expect(defaults).toContainText('New chats start with these settings (the built-in defaults).');
  await page.getByLabel('System prompt').fill('Be brief.');
  await page.locator('.pg-params summary').click();
  await page.getByLabel('Temperature').fill('0.3');
  await expect(defaults).toContainText('New chats start from the built-in defaults, not these.');
  await defaults.getByRole('button', { name: 'Make these the default for new chats' }).click();
  await expect(defaults).toContainText('New chats start with these settings (your defaults).');
  await page.getByRole('button', { name: 'Done' }).click();

  // A chat with a turn, then a new one: it starts from the defaults.
  await sendAndWait(page, 'hello');
  await newChat(page);
  await openChatSettings(page);
  await expect(page.getByLabel('System prompt')).toHaveValue('Be brief.');
  await expect(page.getByLabel('Temperature')).toHaveValue('0.3');
  await page.getByRole('button', { name: 'Done' }).click();
  // Sent with them.
  const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/v1/chat/completions'));
  await sendAndWait(page, 'again');
  const body = (await sent).postDataJSON() as { temperature?: number; messages: { role: string; content: string }[] };
  expect(body.temperature).toBe(0.3);
  expect(body.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });

  // After a reload too.
  await page.reload();
  await page.evaluate(async () => {
    await window.inpageReady;
  });
  await newChat(page);
  await openChatSettings(page);
  await expect(page.getByLabel('System prompt')).toHaveValue('Be brief.');

  // Back to the built-in defaults: the next new chat starts empty.
  await page.getByTestId('chat-defaults').getByRole('button', { name: 'Back to the built-in defaults' }).click();
  await expect(page.getByTestId('chat-defaults')).toContainText('New chats start from the built-in defaults, not these.');
  await page.getByRole('button', { name: 'Done' }).click();
  await sendAndWait(page, 'third');
  await newChat(page);
  await openChatSettings(page);
  await expect(page.getByLabel('System prompt')).toHaveValue('');
  await expect(page.getByLabel('Temperature')).toHaveValue('');
});

test('a new chat starts from the preset applied last (also after a reload), else from the defaults', async ({ page }) => {
  await openWorkspace(page);
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  await playgroundKey(page);
  await openChatSettings(page);
  const presets = page.getByTestId('chat-presets');
  const saveAs = async (name: string) => {
    await page.locator('#pg-preset-name').fill(name);
    await presets.getByRole('button', { name: 'Save as preset' }).click();
    await expect(page.getByTestId('preset-said')).toHaveText(`Saved as preset “${name}”.`);
  };
  const apply = async (name: string) => {
    await page.locator('#pg-preset').selectOption(name);
    await presets.getByRole('button', { name: 'Apply' }).click();
    await expect(page.getByTestId('preset-said')).toHaveText(`Applied preset “${name}” to this chat.`);
  };
  await page.getByLabel('System prompt').fill('Be brief.');
  await page.locator('.pg-params summary').click();
  await page.getByLabel('Temperature').fill('0.3');
  await saveAs('A');
  await page.getByLabel('System prompt').fill('Answer in French.');
  await page.getByLabel('Temperature').fill('0.9');
  await saveAs('B');
  // Saved is not applied: new chats still start from the built-in defaults.
  await expect(page.getByTestId('chat-defaults')).toContainText('New chats start from the built-in defaults, not these.');
  await page.getByLabel('System prompt').fill('');
  await page.getByLabel('Temperature').fill('');
  await apply('B');
  await expect(page.getByTestId('chat-defaults')).toHaveText(/^New chats start with these settings \(preset “B”, the one applied last\)\./);
  await page.getByRole('button', { name: 'Done' }).click();
  await sendAndWait(page, 'hello');

  // A new chat: B's system prompt and parameters, and it says so; sent with them.
  await newChat(page);
  await openChatSettings(page);
  await expect(page.getByLabel('System prompt')).toHaveValue('Answer in French.');
  await expect(page.getByLabel('Temperature')).toHaveValue('0.9');
  await expect(page.getByTestId('chat-started-from')).toHaveText('This chat started from preset “B”, the one applied last when it was made.');
  await page.screenshot({ path: '/tmp/wt50c-started-from-preset-desktop.png' });
  await page.getByRole('button', { name: 'Done' }).click();
  const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/v1/chat/completions'));
  await sendAndWait(page, 'again');
  const body = (await sent).postDataJSON() as { temperature?: number; messages: { role: string; content: string }[] };
  expect(body.temperature).toBe(0.9);
  expect(body.messages[0]).toEqual({ role: 'system', content: 'Answer in French.' });

  // After a reload too (this browser's storage); the chat still says where it started.
  await page.reload();
  await page.evaluate(async () => {
    await window.inpageReady;
  });
  await openChatSettings(page);
  await expect(page.getByTestId('chat-started-from')).toContainText('preset “B”');
  await page.getByRole('button', { name: 'Done' }).click();
  await newChat(page);
  await openChatSettings(page);
  await expect(page.getByLabel('System prompt')).toHaveValue('Answer in French.');
  await expect(page.getByLabel('Temperature')).toHaveValue('0.9');
  await expect(page.getByTestId('chat-started-from')).toContainText('preset “B”');

  // The last applied wins: A applied in this (empty) chat, then the chat used; the next new chat is A's.
  await apply('A');
  await page.getByRole('button', { name: 'Done' }).click();
  await sendAndWait(page, 'third');
  await newChat(page);
  await openChatSettings(page);
  await expect(page.getByLabel('System prompt')).toHaveValue('Be brief.');
  await expect(page.getByLabel('Temperature')).toHaveValue('0.3');
  await expect(page.getByTestId('chat-started-from')).toContainText('preset “A”');

  // A deleted: new chats start from the defaults (the built-in ones here), and a new chat names no preset.
  await page.locator('#pg-preset').selectOption('A');
  await presets.getByRole('button', { name: 'Delete preset A' }).click();
  await expect(page.getByTestId('chat-defaults')).toContainText('New chats start from the built-in defaults, not these.');
  await page.getByRole('button', { name: 'Done' }).click();
  await sendAndWait(page, 'fourth');
  await newChat(page);
  await openChatSettings(page);
  await expect(page.getByLabel('System prompt')).toHaveValue('');
  await expect(page.getByLabel('Temperature')).toHaveValue('');
  await expect(page.getByTestId('chat-started-from')).toHaveCount(0);

  // An empty chat opened again by New chat (they do not pile up) takes the preset applied since, its settings untouched.
  await page.getByRole('button', { name: 'Done' }).click();
  await page.locator('.pg-chats .chat-open', { hasText: 'fourth' }).click();
  await openChatSettings(page);
  await apply('B');
  await page.getByRole('button', { name: 'Done' }).click();
  await newChat(page);
  await expect(page.locator('.pg-chats .chat-open')).toHaveCount(5);
  await openChatSettings(page);
  await expect(page.getByLabel('System prompt')).toHaveValue('Answer in French.');
  await expect(page.getByTestId('chat-started-from')).toContainText('preset “B”');
});
