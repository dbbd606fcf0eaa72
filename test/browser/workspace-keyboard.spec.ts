// The workspace page with the keyboard alone, and a name on every control of every area.
import { expect, test } from '@playwright/test';
import { goToArea, openWorkspace, playgroundKey, registerThroughForm, sendAndWait, tabTo, unlabeledControls } from './workspace-steps';

test('keyboard alone: sign up, make and copy a key, move between areas, chat', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await openWorkspace(page);

  await tabTo(page, '#workspace-name');
  await page.keyboard.type('Keyboard workspace');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('org-id')).toHaveText(/^org-/);
  await expect(page.getByRole('heading', { name: 'API keys', level: 1 })).toBeFocused();

  // The area's first control follows its heading; a checkbox toggles with Space.
  await page.keyboard.press('Tab');
  await expect(page.locator('#key-name')).toBeFocused();
  await page.keyboard.type('kb-key');
  await page.keyboard.press('Tab');
  await expect(page.getByRole('checkbox', { name: /svc-model-5\.2 thinks/ })).toBeFocused();
  await page.keyboard.press('Space');
  await expect(page.getByRole('checkbox', { name: /svc-model-5\.2 thinks/ })).not.toBeChecked();
  await tabTo(page, 'button[type=submit]');
  await page.keyboard.press('Enter');

  await expect(page.getByRole('heading', { name: 'Your new key “kb-key”' })).toBeFocused();
  await tabTo(page, 'button[aria-label="Copy the new API key"]');
  await page.keyboard.press('Enter');
  const key = await page.getByRole('textbox', { name: 'The new API key' }).inputValue();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
  await tabTo(page, 'button.primary');
  await expect(page.locator(':focus')).toHaveText('Done, I saved it');
  await page.keyboard.press('Enter');
  await expect(page.locator('#key-name')).toBeFocused();
  await expect(page.locator('tr', { hasText: 'kb-key' })).toContainText('svc-model-5.2-fast, svc-model-5.2-short, svc-model-5.2-short-fast, svc-vision');

  // Navigation links take focus visibly and move it to the chosen area's heading.
  await tabTo(page, 'nav a[href="#models"]', true);
  expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('solid');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Models', level: 1 })).toBeFocused();
  await tabTo(page, 'button[aria-label="Download and load svc-model-5.2-short-fast"]');
  await page.keyboard.press('Enter');
  await expect(page.locator('article[data-model="svc-model-5.2-short-fast"]').getByTestId('state')).toHaveText('Ready');

  await tabTo(page, 'nav a[href="#playground"]', true);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Playground', level: 1 })).toBeFocused();
  await tabTo(page, 'button.primary');
  await expect(page.locator(':focus')).toHaveText('Create a Playground key');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('pg-key')).toBeVisible();
  await tabTo(page, '#pg-model');
  await page.keyboard.press('ArrowDown'); // svc-model-5.2-fast → svc-model-5.2-short
  await expect(page.locator('#pg-model')).toHaveValue('svc-model-5.2-short');
  await tabTo(page, '#pg-message');
  await page.keyboard.type('typed by keyboard');
  await page.keyboard.press('Enter');
  const answer = page.locator('.turn.assistant').first();
  await expect(answer).toHaveAttribute('data-status', 'done');
  await expect(answer.locator('.answer')).toHaveText('Echo: typed by keyboard');
  // The thinking block opens from the keyboard too.
  await tabTo(page, 'summary', true);
  await page.keyboard.press('Enter');
  await expect(answer.locator('.thinking-text')).toHaveText('Thinking about: typed by keyboard');
});

test('every button, field, link and summary has a name, in every area', async ({ page }) => {
  await openWorkspace(page);
  expect(await unlabeledControls(page)).toEqual([]);
  await registerThroughForm(page);
  await page.getByLabel('Name').fill('labels');
  await page.getByRole('button', { name: 'Create key' }).click();
  await expect(page.getByRole('textbox', { name: 'The new API key' })).toBeVisible();
  expect(await unlabeledControls(page)).toEqual([]);
  await page.getByRole('button', { name: 'Done, I saved it' }).click();
  expect(await unlabeledControls(page)).toEqual([]);

  await goToArea(page, 'Models');
  await expect(page.locator('article[data-model]')).toHaveCount(6); // the five chat variants and svc-embed
  expect(await unlabeledControls(page)).toEqual([]);

  await goToArea(page, 'Playground');
  expect(await unlabeledControls(page)).toEqual([]);
  await playgroundKey(page);
  await page.getByLabel('Model').selectOption('svc-vision');
  await sendAndWait(page, 'hello');
  await page.getByLabel('Model').selectOption('svc-model-5.2');
  await sendAndWait(page, 'hello again');
  await expect(page.locator('details.thinking summary')).toHaveCount(1);
  expect(await unlabeledControls(page)).toEqual([]);

  await goToArea(page, 'Connect');
  expect(await unlabeledControls(page)).toEqual([]);
});
