// Chat first, keyboard and phone, rendering (issue 40), in the test build: where the focus goes after each action,
// the shortcuts and their list, the chat list as one Tab stop, maths, code labels, JSON answers, parameters that
// refuse values out of range, View as code that closes, an exported chat that imports back the same; and an
// accessibility scan (axe-core, injected into the page) of every area, desktop and phone, light and dark, with no
// serious or critical violation. Screenshots of every area go to test-results/screens/.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { expect, test, type Download, type Page } from '@playwright/test';
import { chatAction, goToArea, openChatSettings, openWorkspace, playgroundKey, registerThroughForm, screens, sendAndWait } from './workspace-steps';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The serious and critical violations axe-core finds on the page as it is (rule, impact and where). */
async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's Content-Security-Policy (no inline script) stays as it is.
  await page.evaluate(`${AXE}\n;undefined`);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run: (ctx: Document, opts: object) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map(
        (v) =>
          `${v.id} (${v.impact}): ${v.nodes
            .map((n) => n.target.join(' '))
            .slice(0, 4)
            .join(', ')}`,
      );
  });
}

/**
 * Scans in the light and the dark scheme. With reduced motion: the colours' short transitions would otherwise be
 * caught halfway between the schemes.
 */
async function scan(page: Page, where: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
    expect(await axeViolations(page), `${where}, ${colorScheme}`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

const focusedMatches = (page: Page, selector: string) => page.evaluate((sel) => document.activeElement?.matches(sel) ?? false, selector);

for (const device of [
  { name: 'desktop', viewport: { width: 1366, height: 900 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
]) {
  test(`${device.name}: every area passes an axe-core scan (no serious or critical violation), light and dark; the sign-up is on the first screen`, async ({
    page,
  }) => {
    test.setTimeout(180_000);
    await page.setViewportSize(device.viewport);
    await openWorkspace(page);
    // The sign-up button is on the first screen, a phone's too.
    const create = await page.getByRole('button', { name: 'Create workspace' }).boundingBox();
    expect(create!.y + create!.height).toBeLessThanOrEqual(device.viewport.height);
    await scan(page, 'sign-up');
    await screens(page, `a11y-${device.name}-signup`, { screen: true });
    await registerThroughForm(page);
    await scan(page, 'API Keys');
    await screens(page, `a11y-${device.name}-keys`);
    await goToArea(page, 'Models');
    await scan(page, 'Models');
    await screens(page, `a11y-${device.name}-models`);
    await goToArea(page, 'Playground');
    await scan(page, 'Playground without a key');
    await playgroundKey(page);
    await sendAndWait(page, 'A formula: $$e^{i\\pi} + 1 = 0$$ and code:\n```js\nconst a = 1;\n```');
    await scan(page, 'Playground with an answer');
    await screens(page, `a11y-${device.name}-playground`);
    // As the person sees it: the chat's first screen (the slim lines above it, the composer below).
    await screens(page, `a11y-${device.name}-playground-screen`, { screen: true });
    await openChatSettings(page);
    await scan(page, 'Playground settings');
    await screens(page, `a11y-${device.name}-playground-settings`, { screen: true });
    await page.getByRole('button', { name: 'Done' }).click();
    await goToArea(page, 'Connect');
    await scan(page, 'Connect');
    await screens(page, `a11y-${device.name}-connect`);
  });
}

test('focus after every action, the shortcuts and their list, the chat list as one Tab stop', async ({ page }) => {
  test.setTimeout(180_000);
  await openWorkspace(page, '/?tokenDelayMs=20');
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  // Create a Playground key: the focus goes to the message box (the chooser it was in is gone).
  await playgroundKey(page);
  await expect(page.getByLabel('Message')).toBeFocused();
  await expect(page.getByLabel('Message')).toHaveAttribute('placeholder', 'Message');

  // Escape stops an answer; the focus is in the message box after it. So does Stop.
  await page.getByLabel('Message').fill('count 400');
  await page.keyboard.press('Enter');
  const first = page.locator('.turn.assistant').first();
  await expect(first).toHaveAttribute('data-status', 'streaming');
  await page.getByTestId('chat-title').focus();
  await page.keyboard.press('Escape');
  await expect(first).toHaveAttribute('data-status', 'stopped');
  await expect(page.getByLabel('Message')).toBeFocused();
  await page.getByLabel('Message').fill('count 400');
  await page.keyboard.press('Enter');
  const second = page.locator('.turn.assistant').nth(1);
  await expect(second).toHaveAttribute('data-status', 'streaming');
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(second).toHaveAttribute('data-status', 'stopped');
  await expect(page.getByLabel('Message')).toBeFocused();

  // "/" goes to the message box from anywhere but a field; Alt+Shift+N starts a new chat.
  await page.getByTestId('chat-title').focus();
  await page.keyboard.press('/');
  await expect(page.getByLabel('Message')).toBeFocused();
  await expect(page.getByLabel('Message')).toHaveValue('');
  await page.keyboard.press('Alt+Shift+N');
  await expect(page.getByTestId('chat-title')).toHaveText('New chat');
  await expect(page.getByLabel('Message')).toBeFocused();
  await sendAndWait(page, 'third chat');

  // Shift+? lists the shortcuts in a dialog; Escape closes it and the focus goes back.
  await page.getByTestId('chat-title').focus();
  await page.keyboard.press('Shift+?');
  const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(help).toBeVisible();
  await expect(help).toContainText('Stop the answer that is streaming');
  await page.keyboard.press('Escape');
  await expect(help).toHaveCount(0);
  await expect(page.getByTestId('chat-title')).toBeFocused();

  // The chat list is one Tab stop: Tab enters it at the chat on screen and the next Tab leaves it.
  const rows = page.locator('.pg-chats .chat-open');
  await expect(rows).toHaveCount(2);
  await page.getByLabel('Search chats').focus();
  await page.keyboard.press('Tab');
  expect(await focusedMatches(page, '.chat-open[aria-current="true"]')).toBe(true);
  await page.keyboard.press('Tab');
  expect(await focusedMatches(page, '.chat-open')).toBe(false);
  await page.getByLabel('Search chats').focus();
  await page.keyboard.press('Tab');
  await page.keyboard.press('ArrowDown');
  await expect(rows.nth(1)).toBeFocused();
  // Each row tells when the chat changed.
  await expect(rows.nth(1).locator('.chat-meta')).toHaveText(/^(just now|\d+ minutes? ago) · 2 sent$/);
  // Delete from the keyboard: asked once, then the focus goes to the chat that opens in its place.
  await page.keyboard.press('Delete');
  const confirm = page.getByRole('button', { name: /^Delete the chat “count 400” now$/ });
  await expect(confirm).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toBeFocused();

  // Settings open with the focus on Done, not in the system prompt (a phone would raise its keyboard).
  await openChatSettings(page);
  await expect(page.getByRole('button', { name: 'Done' })).toBeFocused();
  await page.getByRole('button', { name: 'Done' }).click();

  // View as code closes with its button and with Escape.
  await chatAction(page, 'View as code');
  await expect(page.locator('.pg-code')).toBeVisible();
  await page.locator('.pg-code').getByRole('button', { name: 'Close' }).click();
  await expect(page.locator('.pg-code')).toHaveCount(0);
  await chatAction(page, 'View as code');
  await page.locator('.pg-code button', { hasText: 'fetch' }).focus();
  await page.keyboard.press('Escape');
  await expect(page.locator('.pg-code')).toHaveCount(0);
  await expect(page.getByLabel('More chat actions')).toBeFocused();

  // Models: after Load the focus is on Unload, after Unload on Load (never the page's body).
  await goToArea(page, 'Models');
  await page
    .getByRole('button', { name: 'Load svc-model-5.2-fast', exact: true })
    .or(page.getByRole('button', { name: 'Unload svc-model-5.2-fast', exact: true }))
    .first()
    .waitFor();
  const unload = page.getByRole('button', { name: 'Unload svc-model-5.2-fast', exact: true });
  if (await unload.isVisible()) {
    await unload.click();
    await expect(page.getByRole('button', { name: 'Load svc-model-5.2-fast', exact: true })).toBeFocused();
  }
  await page.getByRole('button', { name: 'Load svc-model-5.2-fast', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Unload svc-model-5.2-fast', exact: true })).toBeFocused({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Unload svc-model-5.2-fast', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Load svc-model-5.2-fast', exact: true })).toBeFocused({ timeout: 30_000 });
});

async function downloadedText(download: Download): Promise<string> {
  return readFileSync((await download.path())!, 'utf8');
}

test('rendering: maths, code labels and no guessed language, JSON answers indented; parameters refuse values out of range; an exported chat imports back the same', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await openWorkspace(page);
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  await playgroundKey(page);

  // Maths (KaTeX, as MathML), display and inline; a dollar amount stays text.
  const maths = await sendAndWait(page, 'So $$\\frac{a}{b}$$ and \\(x_1^2\\) cost $5 each');
  await expect(maths.locator('span.math.display math')).toHaveCount(1);
  await expect(maths.locator('span.math:not(.display) math')).toHaveCount(1);
  await expect(maths.locator('span.math.display mfrac')).toHaveCount(1);
  await expect(maths.locator('.answer')).toContainText('cost $5 each');

  // A code block with a language is labelled and highlighted; one without is neither guessed nor highlighted.
  const code = await sendAndWait(page, 'two blocks:\n```python\nprint(1)\n```\n```\nSELECT name FROM t\n```');
  await expect(code.locator('.code-language')).toHaveText(['python']);
  await expect(code.locator('pre code').first()).toHaveAttribute('data-highlighted', 'python');
  await expect(code.locator('pre code').nth(1)).toHaveAttribute('data-highlighted', 'plain');
  await expect(code.locator('pre code').nth(1).locator('span')).toHaveCount(0);

  // Parameters: their defaults in the boxes; a value out of range is refused in the form, Send waits.
  await openChatSettings(page);
  await page.locator('.pg-params summary').click();
  await expect(page.getByLabel('Temperature')).toHaveAttribute('placeholder', 'default: the model’s own');
  await expect(page.getByLabel('Max tokens')).toHaveAttribute('placeholder', 'default: the room the context has left');
  await page.getByLabel('Temperature').fill('5');
  await expect(page.locator('#pg-temperature-hint')).toHaveText('Temperature is between 0 and 2. Nothing is sent until it is.');
  await expect(page.getByLabel('Temperature')).toHaveAttribute('aria-invalid', 'true');
  await page.getByLabel('Message').fill('hot');
  await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
  await expect(page.locator('form.composer .notice-error')).toHaveText('Temperature is between 0 and 2 (it is 5): change it in Settings.');
  await page.getByLabel('Temperature').fill('0.5');
  await expect(page.getByRole('button', { name: 'Send' })).toBeEnabled();

  // A JSON answer is shown indented, in a block labelled json.
  await page.getByLabel('Response format').selectOption('json_schema');
  await page.getByRole('button', { name: 'Done' }).click();
  const json = await sendAndWait(page, 'as json');
  await expect(json.locator('.code-language')).toHaveText('json');
  const shown = (await json.locator('pre code').textContent())!.trimEnd();
  expect(shown).toBe(JSON.stringify(JSON.parse(shown), null, 2));
  expect(shown).toMatch(/^\{\n {2}"answer": /);

  // Export JSON, import it: the same chat again, and its export the same file.
  const [exported] = await Promise.all([page.waitForEvent('download'), chatAction(page, 'Export JSON')]);
  const text = await downloadedText(exported);
  await page.locator('#pg-import').setInputFiles({ name: 'chat.json', mimeType: 'application/json', buffer: Buffer.from(text) });
  await expect(page.locator('.pg-chats .chat-open')).toHaveCount(2);
  await expect(page.getByTestId('chat-title')).toHaveText(JSON.parse(text).title);
  await expect(page.locator('.turn.user')).toHaveCount(3);
  const [again] = await Promise.all([page.waitForEvent('download'), chatAction(page, 'Export JSON')]);
  expect(JSON.parse(await downloadedText(again))).toEqual(JSON.parse(text));
  // Not an export: said, nothing added.
  await page.locator('#pg-import').setInputFiles({ name: 'x.json', mimeType: 'application/json', buffer: Buffer.from('{"hello": 1}') });
  await expect(page.locator('.pg-chats .notice-error')).toHaveText('That file has no "messages": choose a chat exported with Export JSON.');
  await expect(page.locator('.pg-chats .chat-open')).toHaveCount(2);
});
