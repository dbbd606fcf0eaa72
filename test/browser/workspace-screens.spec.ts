// Every area of the workspace at a desktop and a phone size, light and dark: full-page screenshots in
// test-results/screens/ (to look at), and no page may be wider than its viewport.
import { expect, test, type Page } from '@playwright/test';
import { goToArea, openChatSettings, openWorkspace, playgroundKey, registerThroughForm, screens, sendAndWait } from './workspace-steps';

const SIZES = [
  { name: 'desktop', width: 1366, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/** The page's own width beyond the viewport, in CSS pixels (0 when nothing widens it). */
async function overflow(page: Page): Promise<{ excess: number; culprits: string[] }> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    // Content clipped by a block that scrolls (or hides) sideways does not widen the page.
    const clipped = (el: Element): boolean => {
      for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
        if (getComputedStyle(up).overflowX !== 'visible') return true;
      }
      return false;
    };
    const culprits = Array.from(document.querySelectorAll('body *'))
      .filter((el) => el.getBoundingClientRect().right > width + 0.5)
      .filter((el) => !clipped(el) && !el.closest('.visually-hidden, .offscreen'))
      .slice(0, 5)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className}`);
    return { excess: document.documentElement.scrollWidth - width, culprits };
  });
}

async function noWiderThanViewport(page: Page): Promise<void> {
  expect(await overflow(page)).toEqual({ excess: 0, culprits: [] });
}

for (const size of SIZES) {
  test(`every area at ${size.width}×${size.height}, light and dark, is no wider than the screen`, async ({ page }) => {
    await page.setViewportSize({ width: size.width, height: size.height });
    await openWorkspace(page);
    await noWiderThanViewport(page);
    await screens(page, `${size.name}-register`);
    await registerThroughForm(page);

    // Keys: a live key and a revoked one.
    await page.getByLabel('Name').fill('a key with a rather long name for a phone');
    await page.getByRole('button', { name: 'Create key' }).click();
    await noWiderThanViewport(page);
    await screens(page, `${size.name}-keys-new`);
    await page.getByRole('button', { name: 'Done, I saved it' }).click();
    await page.evaluate(async () => {
      const { id } = (await window.inpage!.keys.create({ name: 'old' })).record;
      await window.inpage!.keys.revoke(id);
    });
    await page.reload();
    await expect(page.getByText('old', { exact: true })).toBeVisible();
    await noWiderThanViewport(page);
    await screens(page, `${size.name}-keys`);

    await goToArea(page, 'Models');
    await noWiderThanViewport(page);
    await screens(page, `${size.name}-models`);

    // A wide markdown table and a long code line in an answer scroll inside their blocks.
    await goToArea(page, 'Playground');
    await playgroundKey(page);
    const wide = Array.from({ length: 12 }, (_, i) => `column${i}`);
    const table = [`| ${wide.join(' | ')} |`, `| ${wide.map(() => '---').join(' | ')} |`, `| ${wide.map((c) => `${c}-value`).join(' | ')} |`].join('\n');
    const code = '```js\nconst aVeryLongLine = ' + JSON.stringify('x'.repeat(160)) + ';\n```';
    const answer = await sendAndWait(page, `A table:\n\n${table}\n\n${code}`);
    await expect(answer.locator('.answer table th')).toHaveCount(12);
    await expect(answer.locator('.answer pre')).toContainText('aVeryLongLine');
    await noWiderThanViewport(page);
    await screens(page, `${size.name}-playground`);

    // The chats: a drawer over the page on a phone, a column on a wide screen.
    if (size.name === 'phone') {
      await page.getByRole('button', { name: 'Chats', exact: true }).click();
      await expect(page.getByRole('navigation', { name: 'Chats' })).toBeVisible();
      await noWiderThanViewport(page);
      await screens(page, `${size.name}-chats-drawer`, { screen: true });
      await page.getByRole('button', { name: 'Close the chats' }).click();
      await expect(page.getByRole('navigation', { name: 'Chats' })).toBeHidden();
    }
    // The system prompt and parameters: a sheet from the bottom on a phone, a column on a wide screen.
    await openChatSettings(page);
    await page.getByLabel('System prompt').fill('Answer in one short sentence.');
    await noWiderThanViewport(page);
    await screens(page, `${size.name}-settings`, { screen: size.name === 'phone' });
    await page.getByRole('complementary', { name: 'Chat settings' }).getByRole('button', { name: 'Done' }).click();
    await expect(page.getByRole('complementary', { name: 'Chat settings' })).toBeHidden();

    await goToArea(page, 'Connect');
    await noWiderThanViewport(page);
    await screens(page, `${size.name}-connect`);
  });
}
