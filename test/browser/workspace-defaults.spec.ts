// Setups that carry over: a chat's system prompt and parameters made the default, new chats start from them
// (also after a reload), and "Back to the built-in defaults" undoes it.
import { expect, test, type Page } from '@playwright/test';
import { goToArea, openChatSettings, openWorkspace, playgroundKey, registerThroughForm, sendAndWait } from './workspace-steps';

test.use({ viewport: { width: 1280, height: 900 } });

async function newChat(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Chats' }).getByRole('button', { name: 'New chat' }).click();
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
