// The workspace page in a Chromium launched without the WebGPU flags: no adapter, so the page says so.
import { expect, test } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../playwright.config';
import { auth, call } from './helpers';
import { goToArea, openWorkspace, registerThroughForm, screens } from './workspace-steps';

const WEBGPU_FLAGS = ['--enable-unsafe-webgpu', '--enable-unsafe-swiftshader'];
test.use({ launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS.filter((arg) => !WEBGPU_FLAGS.includes(arg)) } });

test('without WebGPU: a clear page on what to do, while keys and Connect still work', async ({ page }) => {
  await openWorkspace(page);
  // The premise: this browser really offers the page no adapter.
  expect(await page.evaluate(async () => (navigator.gpu ? await navigator.gpu.requestAdapter() : null) === null)).toBe(true);
  // The first screen, before anyone signs up, already says so and what to do.
  const early = page.getByRole('region', { name: 'The models cannot run in this browser: no usable WebGPU' });
  await expect(early).toBeVisible();
  await expect(early).toContainText('Chrome or Edge 113 or newer');
  await expect(early).toContainText('You can still create the workspace below');
  const [helpTop, formTop] = await Promise.all([early.boundingBox(), page.getByLabel('Workspace name').boundingBox()]);
  expect(helpTop!.y).toBeLessThan(formTop!.y);
  await screens(page, 'no-webgpu-register');
  await registerThroughForm(page);

  await expect(page.getByRole('note')).toContainText('No WebGPU here: models cannot run in this browser; keys and Connect still work.');
  await page.getByLabel('Name').fill('still works');
  await page.getByRole('button', { name: 'Create key' }).click();
  const key = await page.getByRole('textbox', { name: 'The new API key' }).inputValue();
  const models = await call(page, '/v1/models', { headers: auth(key) });
  expect(models.status).toBe(200);
  await page.getByRole('button', { name: 'Done, I saved it' }).click();

  await page.getByRole('note').getByRole('link', { name: 'What to do' }).click();
  await expect(page.getByRole('heading', { name: 'Models', level: 1 })).toBeFocused();
  const help = page.getByRole('region', { name: 'The models cannot run in this browser: no usable WebGPU' });
  await expect(help).toContainText('The browser has WebGPU but offered no adapter');
  await expect(help).toContainText('Chrome or Edge 113 or newer');
  await expect(help).toContainText('chrome://flags/#enable-unsafe-webgpu');
  await expect(help).toContainText('chrome://gpu');
  await expect(help).toContainText('Safari 26');
  await expect(page.locator('article[data-model]')).toHaveCount(0);
  await expect(page.getByRole('button', { name: /^Download and load/ })).toHaveCount(0);
  await screens(page, 'no-webgpu-models');

  await goToArea(page, 'Playground');
  await expect(page.getByText('No WebGPU in this browser:')).toBeVisible();
  await goToArea(page, 'Connect');
  await expect(page.getByTestId('base-url')).toHaveText(`${new URL(page.url()).origin}/v1`);
  await screens(page, 'no-webgpu-connect');
});
