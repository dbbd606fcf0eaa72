// Named presets: a chat's system prompt and parameters saved under a name, applied to another chat (and sent
// with it), kept across a reload, deleted; all of it by keyboard.
import { expect, test, type Page } from '@playwright/test';
import { goToArea, openChatSettings, openWorkspace, playgroundKey, registerThroughForm, sendAndWait, tabTo } from './workspace-steps';

async function newChat(page: Page): Promise<void> {
  // The shortcut: on a phone the chat list is a drawer.
  await page.keyboard.press('Alt+Shift+N');
  await expect(page.getByTestId('chat-title')).toHaveText('New chat');
}

async function saveAs(page: Page, name: string): Promise<void> {
  await tabTo(page, '#pg-preset-name');
  await page.keyboard.type(name);
  await page.keyboard.press('Enter');
}

for (const [label, viewport] of [
  ['desktop', { width: 1280, height: 900 }],
  ['phone', { width: 390, height: 844 }],
] as const) {
  test(`a preset saved, applied to a new chat, kept and deleted, by keyboard, ${label}`, async ({ page }) => {
    await page.setViewportSize(viewport);
    await openWorkspace(page);
    await registerThroughForm(page);
    await goToArea(page, 'Playground');
    await playgroundKey(page);
    await openChatSettings(page);
    const presets = page.getByTestId('chat-presets');
    await expect(presets).toContainText('No presets yet');

    await page.getByLabel('System prompt').fill('Be brief.');
    await page.locator('.pg-params summary').click();
    await page.getByLabel('Temperature').fill('0.3');
    await saveAs(page, 'Brief');
    await expect(page.getByTestId('preset-said')).toHaveText('Saved as preset “Brief”.');
    await page.getByLabel('System prompt').fill('Answer in French.');
    await page.getByLabel('Temperature').fill('');
    await saveAs(page, 'French');
    await expect(page.getByTestId('preset-said')).toHaveText('Saved as preset “French”.');
    await expect(presets.getByLabel('Preset', { exact: true }).locator('option')).toHaveText(['Brief', 'French']);
    await page.screenshot({ path: `/tmp/wt50b-presets-${label}.png` });
    await page.getByRole('button', { name: 'Done' }).click();
    await sendAndWait(page, 'hello');

    // A new chat starts from the built-in defaults; the preset applies to it, by keyboard.
    await newChat(page);
    await openChatSettings(page);
    await expect(page.getByLabel('System prompt')).toHaveValue('');
    await tabTo(page, '#pg-preset');
    await page.locator('#pg-preset').selectOption('Brief');
    await expect(page.locator('#pg-preset')).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(presets.getByRole('button', { name: 'Apply' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('preset-said')).toHaveText('Applied preset “Brief” to this chat.');
    await expect(page.getByLabel('System prompt')).toHaveValue('Be brief.');
    await page.locator('.pg-params summary').click();
    await expect(page.getByLabel('Temperature')).toHaveValue('0.3');
    await page.getByRole('button', { name: 'Done' }).click();
    const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/v1/chat/completions'));
    await sendAndWait(page, 'again');
    const body = (await sent).postDataJSON() as { temperature?: number; messages: { role: string; content: string }[] };
    expect(body.temperature).toBe(0.3);
    expect(body.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });

    // Kept across a reload; Delete removes one, by keyboard.
    await page.reload();
    await page.evaluate(async () => {
      await window.inpageReady;
    });
    await openChatSettings(page);
    await expect(page.locator('#pg-preset option')).toHaveText(['Brief', 'French']);
    await page.locator('#pg-preset').selectOption('French');
    await presets.getByRole('button', { name: 'Delete preset French' }).focus();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('preset-said')).toHaveText('Preset “French” deleted.');
    await expect(page.locator('#pg-preset option')).toHaveText(['Brief']);
    // The same name saved again replaces it.
    await saveAs(page, 'Brief');
    await expect(page.getByTestId('preset-said')).toHaveText('Preset “Brief” replaced with these settings.');
    await expect(page.locator('#pg-preset option')).toHaveText(['Brief']);
  });
}
