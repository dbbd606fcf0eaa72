// A first visit without a GPU (production build): Chromium without WebGPU, so the engine runs llama.cpp on the
// CPU, where Qwen3-8B's GGUF weights (5.03 GB) exceed what the device can give a model (half of
// navigator.deviceMemory, and never more than WebAssembly's 4 GiB). The Playground's default variant is
// one that runs here, and it answers, through llama.cpp, with a tiny GGUF synthesized at test time and served
// by the deployment in the place of Qwen3-1.7B's.
import { expect, test } from '@playwright/test';
import { synthesizeGguf } from '../../scripts/gguf/synthesize';
import { ggufPath, llamaCppDeployment } from './llamacpp-deployment';
import { goToArea, openWorkspace, playgroundKey, registerThroughForm, screens } from './workspace-steps';

const model = synthesizeGguf({ seed: 5 });
const deployment = llamaCppDeployment({
  port: 4653,
  prefix: 'no-gpu',
  files: (put) => put(ggufPath('qwen3-1.7b'), model.bytes),
});

test('no GPU: the Playground starts on a variant this device runs, and it answers through llama.cpp', async () => {
  test.setTimeout(360_000);
  const context = await deployment.browser.newContext({ baseURL: deployment.server.origin });
  try {
    const page = await context.newPage();
    await openWorkspace(page);
    // The premise: no adapter, and a browser that tells the device's memory (so the engine checks what fits).
    expect(await page.evaluate(async () => (navigator.gpu ? await navigator.gpu.requestAdapter() : null) === null)).toBe(true);
    expect(await page.evaluate(() => (navigator as { deviceMemory?: number }).deviceMemory)).toBeGreaterThan(0);
    await registerThroughForm(page);
    await goToArea(page, 'Playground');
    await playgroundKey(page);
    const picker = page.getByLabel('Model');
    // The id, the model behind it where the page has its card, the state.
    await expect(picker.locator('option[value="svc-model-5.2-fast"]')).toHaveText(/^svc-model-5\.2-fast( · [^·]+)? · cannot run here$/);
    await expect(picker).toHaveValue('svc-model-5.2-short-fast');
    await expect(page.getByTestId('cannot-run')).toHaveCount(0);

    await page.getByLabel('Message').fill('Hello');
    await page.getByRole('button', { name: 'Send' }).click();
    // The synthesized model is small: no download question.
    const answer = page.locator('.turn.assistant').first();
    await expect(answer).toHaveAttribute('data-status', 'done', { timeout: 120_000 });
    await expect(page.getByRole('dialog')).toHaveCount(0);
    expect((await answer.locator('.answer').textContent())!.trim().length).toBeGreaterThan(0);
    await expect(answer.getByTestId('stats')).toHaveText(/^≈?[\d,]+ tokens? · /);
    // It ran on llama.cpp: the engine says so for the model that answered.
    const status = await page.evaluate(async () => (await window.inpage!.engine!.control.status()).find((m) => m.id === 'svc-model-5.2-short-fast'));
    expect(status).toMatchObject({ state: 'ready', runtime: { engine: 'llamacpp', device: 'cpu' } });
    await screens(page, 'no-gpu-playground-answered');

    // Connect names the model that runs here: the fetch snippet, as shown, answers through llama.cpp on the CPU.
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
    expect(logged).toHaveLength(1);
    expect(typeof logged[0]).toBe('string');
    await page.getByRole('button', { name: 'Test the connection' }).click();
    const tested = page.getByRole('status').filter({ hasText: 'GET /v1/models answered 200' });
    await expect(tested).toContainText('svc-model-5.2 (cannot run here)', { timeout: 60_000 });
    await expect(tested).toContainText(/svc-model-5\.2-short-fast answered a one-token completion \(".*"\) in [\d,]+ ms\./, { timeout: 60_000 });

    // A file missing at its address (the host is up and answers 404): the error names the file, not the network.
    await goToArea(page, 'Models');
    const vision = page.locator('article[data-model="svc-vision"]');
    await page.getByRole('button', { name: 'Download and load svc-vision' }).click();
    // Its size is unknown (the host has no such file): it asks first.
    const ask = page.getByRole('dialog');
    await ask.getByRole('button', { name: 'Download' }).click();
    const plain = vision.getByTestId('load-error').locator('.plain');
    await expect(plain).toContainText(
      /^The model file \S+\.gguf is missing at http:\/\/127\.0\.0\.1:\d+\/gguf\/\S+: 127\.0\.0\.1:\d+ answered 404 \(not found\)\./,
      { timeout: 60_000 },
    );
    await expect(plain).not.toContainText('Could not reach');
    await screens(page, 'no-gpu-models-404');
    // The Playground says the same of it.
    await goToArea(page, 'Playground');
    await page.getByLabel('Model').selectOption('svc-vision');
    await page.getByLabel('Message').fill('What is this?');
    await page.getByRole('button', { name: 'Send' }).click();
    // Asked once for this model already (in Models): no question now.
    await expect(page.locator('form.composer .notice-error .plain')).toContainText(/The model file \S+\.gguf is missing at .*answered 404 \(not found\)/, {
      timeout: 60_000,
    });
    await expect(page.getByLabel('Message')).toHaveValue('What is this?');
  } finally {
    await context.close();
  }
});
