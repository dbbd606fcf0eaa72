// One error, in plain words first, wherever the page shows it (production build, real web-llm): offline, a
// Playground message for a model that is not downloaded fails with the same plain sentence the Models area
// gives, the engine's text folded under "Technical detail"; in Models the failure shows on the card of the
// variant whose load failed (the one the message was for, or the one pressed), the card sharing its weights
// pointing there.
import { expect, test, type Page } from '@playwright/test';
import { deployConfig } from './helpers';
import { goToArea, openWorkspace, playgroundKey, registerThroughForm, screens } from './workspace-steps';

// Nothing listens here: the model host of this deployment, unreachable (and the browser offline besides).
const HOST_PORT = 4654;
const host = `127.0.0.1:${HOST_PORT + Number(process.env.INPAGE_PORT_OFFSET ?? 0)}`;
const OFFLINE = `Could not reach ${host}: this device seems to be offline.`;
const card = (page: Page, id: string) => page.locator(`article[data-model="${id}"]`);

test('offline: a Playground send and a Models download fail in the same plain words, on the card of the model that failed', async ({ page, context }) => {
  await deployConfig(context, { modelBaseUrl: `http://${host}/hf`, modelLibBaseUrl: `http://${host}/libs` });
  await openWorkspace(page);
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  await playgroundKey(page);
  await context.setOffline(true);
  await page.getByLabel('Model').selectOption('svc-model-5.2-short-fast');
  const box = page.getByLabel('Message');
  await box.fill('hello');
  await box.press('Enter');
  // The download's size is unknown (its host cannot be asked): it asks first.
  await page.getByRole('dialog', { name: 'Download Qwen3 1.7B · 4-bit?' }).getByRole('button', { name: 'Download' }).click();
  const notice = page.locator('form.composer .notice-error');
  await expect(notice.locator('.plain')).toHaveText(`Not sent: ${OFFLINE} Your message is back in the box below.`, { timeout: 30_000 });
  // The engine's own text is there, folded.
  await expect(notice.locator('.detail-text')).toBeHidden();
  await notice.getByText('Technical detail').click();
  await expect(notice.locator('.detail-text')).toContainText('Loading svc-model-5.2-short-fast (web-llm model Qwen3-1.7B-');
  await expect(box).toHaveValue('hello');
  await expect(page.locator('.turn')).toHaveCount(0);
  await screens(page, 'playground-offline-error');

  // Models: the same words, on the card of the model the message was for; the card sharing its weights points there.
  await goToArea(page, 'Models');
  await expect(page.getByTestId('load-error')).toHaveCount(1);
  await expect(card(page, 'svc-model-5.2-short-fast').getByTestId('load-error').locator('.plain')).toHaveText(OFFLINE);
  await expect(card(page, 'svc-model-5.2-short').locator('.error-pointer')).toHaveText('Loading these weights failed: see svc-model-5.2-short-fast.');

  // Pressed on the other card, the failure is that card's: its error shows there, and the first points to it.
  await page.getByRole('button', { name: 'Download and load svc-model-5.2-short', exact: true }).click();
  await expect(card(page, 'svc-model-5.2-short').getByTestId('load-error').locator('.plain')).toHaveText(OFFLINE, { timeout: 30_000 });
  await expect(page.getByTestId('load-error')).toHaveCount(1);
  await expect(card(page, 'svc-model-5.2-short-fast').locator('.error-pointer')).toHaveText('Loading these weights failed: see svc-model-5.2-short.');
  await expect(page.getByRole('dialog')).toHaveCount(0);
});
