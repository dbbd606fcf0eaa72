// Before a download (test build): each Models card shows the download's size and where it comes from, and a
// download over 100 MB asks once per model, from the Models area and from a Playground message, by keyboard
// too. The deterministic engine's pretend weights are made 200 MB here (the test knob pretendWeightsBytes).
import { expect, test, type Page } from '@playwright/test';
import { goToArea, openWorkspace, playgroundKey, registerThroughForm, screens } from './workspace-steps';

const BIG = '/?pretendWeightsBytes=200000000';
// Each test starts the page cold (a fresh service worker and engine), the first one twice (the reload): about
// 15 s of its 22 s on an idle machine. Under a load of 10 to 15 on two cores the steps ran three to four times
// slower and the first test overran the default 60 s with no assertion failing (no dialog came late or not at
// all): the time allowed covers that.
test.describe.configure({ timeout: 150_000 });
const card = (page: Page, id: string) => page.locator(`article[data-model="${id}"]`);

test('Models: the size before download; over 100 MB asks once per model (Escape and Cancel say no), remembered after a reload', async ({ page }) => {
  await openWorkspace(page, BIG);
  await registerThroughForm(page);
  await goToArea(page, 'Models');
  const short = card(page, 'svc-model-5.2-short');
  // The card names the model it stands for (the test build says the test engine stands in for it) and tells
  // the download's size and source before anything downloads.
  await expect(page.getByTestId('test-build')).toHaveText(
    'Test build: the deterministic test engine answers in place of the models named below; its weights are pretend and nothing is downloaded.',
  );
  await expect(short.getByTestId('model-name')).toHaveText('Qwen3 1.7B · 4-bit');
  await expect(short.getByTestId('download-size')).toHaveText('191 MiB (pretend weights from inpage-test; by the model’s manifest)');
  await expect(card(page, 'svc-vision').getByTestId('download-size')).toHaveText(/^191 MiB /);

  const download = page.getByRole('button', { name: 'Download and load svc-model-5.2-short', exact: true });
  const dialog = page.getByRole('dialog', { name: 'Download Qwen3 1.7B · 4-bit?' });
  await download.click();
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId('download-dialog-size')).toHaveText(
    'svc-model-5.2-short needs a download of 191 MiB (pretend weights from inpage-test; by the model’s manifest).',
  );
  await expect(dialog.getByRole('button', { name: 'Download' })).toBeFocused();
  await screens(page, 'models-download-ask');
  // Escape is a no: nothing downloads, focus goes back to the button.
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(download).toBeFocused();
  await expect(short).toHaveAttribute('data-state', 'not_downloaded');
  // So is Cancel, reached by Tab.
  await page.keyboard.press('Enter');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Download' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(short).toHaveAttribute('data-state', 'not_downloaded');
  // Keys go where the focus is once it has moved there: under load, focus comes back to the button a little
  // after the dialog hides, and lands on the dialog's Download button a little after it shows.
  await expect(download).toBeFocused();
  // Yes, by keyboard: it downloads and loads.
  await page.keyboard.press('Enter');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Download' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(short.getByTestId('state')).toHaveText('Ready');
  await expect(short.getByTestId('size')).toHaveText('191 MiB');

  // Asked once for this model: deleted and downloaded again, from either card that shares it, after a reload too.
  await page.getByRole('button', { name: 'Delete svc-model-5.2-short from cache', exact: true }).click();
  await page.getByRole('button', { name: 'Delete svc-model-5.2-short from cache now' }).click();
  await expect(short).toHaveAttribute('data-state', 'not_downloaded');
  await page.reload();
  await openWorkspace(page, `${BIG}#models`);
  await page.getByRole('button', { name: 'Download and load svc-model-5.2-short-fast', exact: true }).click();
  await expect(card(page, 'svc-model-5.2-short-fast').getByTestId('state')).toHaveText('Ready');
  await expect(page.getByRole('dialog')).toHaveCount(0);

  // Another model is asked about on its own.
  await page.getByRole('button', { name: 'Download and load svc-model-5.2', exact: true }).click();
  await expect(page.getByRole('dialog', { name: 'Download Qwen3 8B · 4-bit?' })).toBeVisible();
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(card(page, 'svc-model-5.2')).toHaveAttribute('data-state', 'not_downloaded');
});

test('Playground: a message that would start a download over 100 MB asks first; No keeps the message in the box', async ({ page }) => {
  await openWorkspace(page, BIG);
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  await playgroundKey(page);
  await page.getByLabel('Model').selectOption('svc-model-5.2-fast');
  // The composer says what the first message will do, with the size, before anything is sent.
  await expect(page.locator('#pg-model-hint')).toContainText('Not downloaded: the first message downloads it (191 MiB from inpage-test) and loads it.');
  const box = page.getByLabel('Message');
  await box.fill('hello there');
  await box.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Download Qwen3 8B · 4-bit?' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId('download-dialog-size')).toContainText('svc-model-5.2-fast needs a download of 191 MiB');
  await expect(dialog).toContainText('inpage-test');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(box).toHaveValue('hello there');
  await expect(page.locator('.turn')).toHaveCount(0);
  await expect(page.getByLabel('Model').locator('option[value="svc-model-5.2-fast"]')).toHaveText('svc-model-5.2-fast · Qwen3 8B · not downloaded · 191 MiB');

  await page.getByRole('button', { name: 'Send' }).click();
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Enter');
  await expect(page.locator('.turn.assistant')).toHaveAttribute('data-status', 'done');
  await expect(page.locator('.turn.assistant')).toContainText('Echo: hello there');
  await expect(box).toHaveValue('');
  // Asked once: the next message to a model sharing those weights goes straight out.
  await page.getByLabel('Model').selectOption('svc-model-5.2');
  await box.fill('again');
  await box.press('Enter');
  await expect(page.locator('.turn.assistant').nth(1)).toHaveAttribute('data-status', 'done');
  await expect(page.getByRole('dialog')).toHaveCount(0);

  // Regenerate on a model not downloaded asks too; Cancel keeps the answer as it was.
  await page.getByLabel('Model').selectOption('svc-model-5.2-short-fast');
  await page.getByRole('button', { name: 'Regenerate the last answer' }).click();
  const shortAsk = page.getByRole('dialog', { name: 'Download Qwen3 1.7B · 4-bit?' });
  await expect(shortAsk).toBeVisible();
  await shortAsk.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.locator('.turn.assistant')).toHaveCount(2);
  await expect(page.getByLabel('Model').locator('option[value="svc-model-5.2-short-fast"]')).toHaveText(
    'svc-model-5.2-short-fast · Qwen3 1.7B · not downloaded · 191 MiB',
  );
  await page.getByRole('button', { name: 'Regenerate the last answer' }).click();
  await shortAsk.getByRole('button', { name: 'Download' }).click();
  await expect(page.locator('.turn.assistant').nth(1)).toContainText('svc-model-5.2-short-fast');
  await expect(page.locator('.turn.assistant').nth(1)).toHaveAttribute('data-status', 'done');
  await expect(page.locator('.turn.assistant').nth(1)).toContainText('Echo: again');
});
