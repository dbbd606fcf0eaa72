// A full-height chat: the message box pinned to the bottom of the screen, also in an empty chat; slim chrome
// above the chat; the tab bar in the same place in every area; the shortcuts dialog in the middle of the screen.
// On a desktop and on a phone.
import { expect, test, type Page } from '@playwright/test';
import { goToArea, openWorkspace, playgroundKey, registerThroughForm, screens, sendAndWait } from './workspace-steps';

async function composerBottom(page: Page): Promise<number> {
  const box = (await page.locator('form.composer').boundingBox())!;
  return box.y + box.height;
}

for (const device of [
  { name: 'desktop', viewport: { width: 1280, height: 900 }, chrome: 170 },
  { name: 'phone', viewport: { width: 390, height: 844 }, chrome: 140 },
]) {
  test(`${device.name}: the message box sits at the bottom of the screen, empty chat or not, under slim chrome`, async ({ page }) => {
    await page.setViewportSize(device.viewport);
    await openWorkspace(page);
    await registerThroughForm(page);
    const tabsIn = async () => (await page.getByRole('navigation', { name: 'Workspace' }).locator('a').first().boundingBox())!.x;
    const keysX = await tabsIn();
    await goToArea(page, 'Playground');
    // One page width: the tabs do not move between areas.
    expect(await tabsIn()).toBe(keysX);
    await playgroundKey(page);

    // An empty chat: the box at the bottom, not in the middle of the screen, and nothing to scroll.
    await expect(page.locator('.turns .empty')).toBeVisible();
    expect(Math.abs((await composerBottom(page)) - device.viewport.height)).toBeLessThanOrEqual(2);
    expect(await page.evaluate(() => document.documentElement.scrollHeight - innerHeight)).toBeLessThanOrEqual(1);
    // Slim chrome: the chat's head starts high on the screen.
    expect((await page.locator('.pg-head').boundingBox())!.y).toBeLessThan(device.chrome);
    await screens(page, `full-height-empty-${device.name}`, { screen: true });

    // A short chat: still at the bottom.
    await sendAndWait(page, 'hello');
    expect(Math.abs((await composerBottom(page)) - device.viewport.height)).toBeLessThanOrEqual(2);
    // A long one, scrolled to its end: at the bottom too.
    await sendAndWait(page, 'count 400');
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    expect(Math.abs((await composerBottom(page)) - device.viewport.height)).toBeLessThanOrEqual(2);
    await screens(page, `full-height-chat-${device.name}`, { screen: true });

    // The shortcuts dialog: in the middle of the screen.
    await page.getByLabel('Message').blur();
    await page.keyboard.press('Shift+?');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await expect(dialog).toBeVisible();
    const box = (await dialog.boundingBox())!;
    expect(Math.abs(box.x + box.width / 2 - device.viewport.width / 2)).toBeLessThanOrEqual(2);
    expect(Math.abs(box.y + box.height / 2 - device.viewport.height / 2)).toBeLessThanOrEqual(2);
    await screens(page, `full-height-shortcuts-${device.name}`, { screen: true });
  });
}
