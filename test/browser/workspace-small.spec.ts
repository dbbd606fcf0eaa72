// Smaller findings of issue 50: where the focus goes after a tab change to the Playground (the message box, with a
// key) and after "Use the Playground key" on Connect (never the page's body); the parameters' count leaves the
// functions, which have their own section, out.
import { expect, test } from '@playwright/test';
import { goToArea, openChatSettings, openWorkspace, playgroundKey, registerThroughForm } from './workspace-steps';

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
