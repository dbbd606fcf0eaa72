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
  test.setTimeout(180_000);
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
    await expect(picker.locator('option[value="svc-model-5.2-fast"]')).toHaveText('svc-model-5.2-fast · cannot run here');
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
  } finally {
    await context.close();
  }
});
