// What runs here first, in plain words: on a CPU-only device (the test build's knob: 4 GiB for a model, so
// Qwen3-8B's two variants do not fit) the Models area and the Playground's picker list the models that run first,
// a card that cannot run says why right under its badge, the engine's details are folded, and the picker names
// the model behind each id.
import { expect, test } from '@playwright/test';
import { goToArea, openWorkspace, playgroundKey, registerThroughForm, screens } from './workspace-steps';

for (const device of [
  { name: 'desktop', viewport: { width: 1280, height: 900 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
]) {
  test(`${device.name}: the first card on a CPU-only device is one that runs; the reason another cannot is beside its badge`, async ({ page }) => {
    await page.setViewportSize(device.viewport);
    await openWorkspace(page, '/?cpuMemoryMiB=4096');
    await registerThroughForm(page);
    await goToArea(page, 'Models');
    const cards = page.locator('article.model-card');
    await expect(cards).toHaveCount(6);
    await expect(cards.first()).toHaveAttribute('data-state', 'not_downloaded');
    const order = await cards.evaluateAll((all) => all.map((a) => [a.getAttribute('data-model'), a.getAttribute('data-state')]));
    // Every card that runs comes before the two that cannot.
    expect(order.slice(-2)).toEqual([
      ['svc-model-5.2', 'unavailable'],
      ['svc-model-5.2-fast', 'unavailable'],
    ]);
    expect(order.slice(0, -2).every(([, state]) => state !== 'unavailable')).toBe(true);
    // On a phone the first card that runs starts on the first screen's worth of page.
    const firstTop = (await cards.first().boundingBox())!.y;
    expect(firstTop).toBeLessThan(device.viewport.height * 1.5);

    // The reason is right under the badge: before the model's capabilities and facts, not at the card's foot.
    const big = page.locator('article[data-model="svc-model-5.2"]');
    const why = big.getByTestId('unavailable');
    await expect(why).toBeVisible();
    await expect(why).toContainText('do not fit the memory this device can give a model');
    const [whyBox, capsBox] = await Promise.all([why.boundingBox(), big.locator('.caps').boundingBox()]);
    expect(whyBox!.y).toBeLessThan(capsBox!.y);
    await screens(page, `models-cpu-${device.name}`, { screen: true });
    await big.scrollIntoViewIfNeeded();
    await screens(page, `models-cpu-${device.name}-unavailable`, { screen: true });
  });
}

test('the Playground picker names the model behind each id, those that run first, and the download size of the chosen one', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await openWorkspace(page, '/?cpuMemoryMiB=4096');
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  await playgroundKey(page);
  const picker = page.getByLabel('Model');
  const options = await picker.locator('option').allTextContents();
  expect(options.at(-2)).toBe('svc-model-5.2 · Qwen3 8B · cannot run here');
  expect(options.at(-1)).toBe('svc-model-5.2-fast · Qwen3 8B · cannot run here');
  // The chosen one, not downloaded: its size shows in the picker itself, not only in text for screen readers.
  await expect(picker.locator('option:checked')).toHaveText(/^svc-model-5\.2-short-fast · Qwen3 1\.7B · not downloaded · [\d.,]+ (MiB|GiB|MB|GB)$/);
});
