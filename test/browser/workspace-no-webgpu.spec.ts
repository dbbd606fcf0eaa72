// The workspace page in a Chromium launched without the WebGPU flags: no adapter, so the page says so.
import { expect, test } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../playwright.config';
import { auth, call } from './helpers';
import { goToArea, openWorkspace, playgroundKey, registerThroughForm, screens, sendAndWait } from './workspace-steps';

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

// A device without WebGPU where llama.cpp runs the models on the CPU, with 4 GiB for a model (the test build's
// knob): Qwen3-8B's variants do not fit it.
test('on a CPU device: the Playground starts on a variant that runs here, marks the others with the reason and the alternative, and never offers to download them; the same after a reload', async ({
  page,
}) => {
  await openWorkspace(page, '/?cpuMemoryMiB=4096');
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  await playgroundKey(page);
  const picker = page.getByLabel('Model');
  await expect(picker).toHaveValue('svc-model-5.2-short-fast');
  await expect(picker.locator('option[value="svc-model-5.2-fast"]')).toHaveText('svc-model-5.2-fast · Qwen3 8B · cannot run here');
  await expect(picker.locator('option[value="svc-model-5.2"]')).toHaveText('svc-model-5.2 · Qwen3 8B · cannot run here');
  // The default answers.
  const answer = await sendAndWait(page, 'hello');
  await expect(answer.locator('.answer')).toHaveText('Echo: hello');

  // Connect names the same model, one that runs here: its fetch snippet answers, and the test flags the models
  // that cannot run and runs a one-token completion on that one.
  await goToArea(page, 'Connect');
  await page.getByRole('button', { name: 'Use the Playground key' }).click();
  const fetchCode = (await page.locator('[data-snippet="fetch"] pre').textContent())!;
  expect(fetchCode).toContain("model: 'svc-model-5.2-short-fast'");
  const logged = await page.evaluate(async (code) => {
    const lines: unknown[] = [];
    const AsyncFunction = (async () => undefined).constructor as new (...args: string[]) => (console: unknown) => Promise<void>;
    await new AsyncFunction('console', code)({ log: (line: unknown) => lines.push(line) });
    return lines;
  }, fetchCode);
  expect(logged).toEqual(['Echo: Say hello in five words.']);
  await page.getByRole('button', { name: 'Test the connection' }).click();
  const tested = page.getByRole('status').filter({ hasText: 'GET /v1/models answered 200' });
  await expect(tested).toContainText('svc-model-5.2 (cannot run here), svc-model-5.2-fast (cannot run here)');
  await expect(tested).toContainText(/svc-model-5\.2-short-fast answered a one-token completion \("Echo:"\) in [\d,]+ ms\./);
  await goToArea(page, 'Playground');

  // Picked anyway: the composer says why and offers the one that runs; nothing is sent.
  await picker.selectOption('svc-model-5.2-fast');
  const notice = page.getByTestId('cannot-run');
  await expect(notice).toContainText('svc-model-5.2-fast cannot run on this device.');
  await expect(notice).toContainText('do not fit the memory this device can give a model');
  await page.getByLabel('Message').fill('hello again');
  await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
  await notice.getByRole('button', { name: 'Use svc-model-5.2-short-fast' }).click();
  await expect(picker).toHaveValue('svc-model-5.2-short-fast');
  await expect(notice).toHaveCount(0);

  // Models: those cards say why and name the alternative; no download is offered for them.
  await goToArea(page, 'Models');
  await expect(page.getByTestId('cpu-engine')).toBeVisible();
  // Plain words first; the browser's own reason folded under them.
  await expect(page.getByTestId('cpu-engine').locator('p').first()).toHaveText(/^This browser offers no usable WebGPU, so the models run on the processor/);
  await expect(page.getByTestId('cpu-reason')).toBeHidden();
  await expect(page.getByTestId('cpu-reason')).toHaveText('The test build pretends a device without WebGPU.');
  // The embedding model is not said to answer.
  await expect(page.locator('article[data-model="svc-embed"]')).toContainText('Embeddings: 384 numbers a text');
  await expect(page.locator('article[data-model="svc-embed"]')).not.toContainText('Answers directly');
  for (const id of ['svc-model-5.2', 'svc-model-5.2-fast']) {
    const card = page.locator(`article[data-model="${id}"]`);
    await expect(card).toHaveAttribute('data-state', 'unavailable');
    await expect(card.getByTestId('unavailable')).toContainText('do not fit the memory this device can give a model');
    await expect(card.getByTestId('unavailable')).toContainText('svc-model-5.2-short-fast runs on this device');
  }
  await expect(page.getByRole('button', { name: 'Download and load svc-model-5.2-fast' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Download and load svc-vision' })).toBeVisible();
  await screens(page, 'cpu-device-models');

  // After a reload, a new chat starts on the variant that runs, and the others are still marked.
  await page.reload();
  await page.evaluate(async () => {
    await window.inpageReady;
  });
  await goToArea(page, 'Playground');
  await page.getByRole('navigation', { name: 'Chats' }).getByRole('button', { name: 'New chat' }).click();
  await expect(page.getByTestId('chat-title')).toHaveText('New chat');
  await expect(picker).toHaveValue('svc-model-5.2-short-fast');
  await expect(picker.locator('option[value="svc-model-5.2-fast"]')).toHaveText('svc-model-5.2-fast · Qwen3 8B · cannot run here');
  await screens(page, 'cpu-device-playground');
});
