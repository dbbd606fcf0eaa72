// The Models area on the production build (real web-llm on SwiftShader): a download that fails because the
// device is offline shows one error in plain words, the engine's text folded, Retry and Import beside it;
// Retry, once the files are reachable, fetches them (served here by a local server with generated files).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { fakeModel, writeHosted } from './fake-model';
import { deployConfig } from './helpers';
import { serveStatic } from './static-server';
import { goToArea, openWorkspace, registerThroughForm, screens } from './workspace-steps';

const HOST_PORT = 4597;
const host = `http://127.0.0.1:${HOST_PORT + Number(process.env.INPAGE_PORT_OFFSET ?? 0)}`;

test('a failed download offline: one error in plain words, the detail folded, Retry works once the files are reachable', async ({ page, context }) => {
  const dir = await mkdtemp(join(tmpdir(), 'inpage-models-prod-'));
  await deployConfig(context, { modelBaseUrl: `${host}/hf`, modelLibBaseUrl: `${host}/libs` });
  const server = { current: null as Awaited<ReturnType<typeof serveStatic>> | null };
  try {
    await openWorkspace(page);
    await registerThroughForm(page);
    await goToArea(page, 'Models');
    const adapter = await page.evaluate(() => window.inpage!.engine!.control.adapter());
    const modelId = adapter.shaderF16 ? 'Qwen3-1.7B-q4f16_1-MLC' : 'Qwen3-1.7B-q4f32_1-MLC';
    await writeHosted(dir, fakeModel(modelId));
    const card = page.locator('article[data-model="svc-model-5.2-short"]');
    await expect(card).toHaveAttribute('data-state', 'not_downloaded');
    // Each card names the real model this device runs, its licence and the GPU memory it needs.
    await expect(card.getByTestId('model-name')).toHaveText('Qwen3 1.7B · 4-bit');
    await expect(card).toContainText(`Qwen3 1.7B, 4-bit weights, ${adapter.shaderF16 ? '16' : '32'}-bit activations`);
    await expect(card).toContainText(`(${modelId})`);
    await expect(card.getByRole('link', { name: 'Apache-2.0' })).toBeVisible();
    await expect(card.getByTestId('memory')).toHaveText(new RegExp(`^${adapter.shaderF16 ? '2,037' : '2,635'} MB at 4,096 tokens of context`));
    await expect(page.locator('article[data-model="svc-vision"]').getByTestId('model-name')).toHaveText('Phi-3.5-vision-instruct 4.2B · 4-bit');
    await expect(page.locator('article[data-model="svc-vision"]').getByRole('link', { name: 'MIT' })).toBeVisible();

    // The files' host cannot be reached yet: the size is not made up.
    await expect(card.getByTestId('download-size')).toHaveText(`size unknown until download starts (the files come from ${new URL(host).host})`);

    await context.setOffline(true);
    await page.getByRole('button', { name: 'Download and load svc-model-5.2-short', exact: true }).click();
    // A download of unknown size asks first, naming where it comes from.
    const ask = page.getByRole('dialog', { name: 'Download Qwen3 1.7B · 4-bit?' });
    await expect(ask).toContainText(`svc-model-5.2-short needs a download whose size is not known until it starts; the files come from ${new URL(host).host}.`);
    await ask.getByRole('button', { name: 'Download' }).click();
    const error = page.getByTestId('load-error');
    await expect(error).toHaveCount(1);
    await expect(card.getByTestId('load-error')).toBeVisible();
    await expect(error.locator('.plain')).toHaveText(`Could not reach ${new URL(host).host}: this device seems to be offline.`);
    // The engine's own text is there, folded.
    await expect(error.locator('.detail-text')).toBeHidden();
    await error.getByText('Technical detail').click();
    await expect(error.locator('.detail-text')).toContainText(`Loading svc-model-5.2-short (web-llm model ${modelId}) failed`);
    // It wraps inside its box: nothing sticks out of the card.
    const [box, cardBox] = await Promise.all([error.boundingBox(), card.boundingBox()]);
    expect(box!.x + box!.width).toBeLessThanOrEqual(cardBox!.x + cardBox!.width + 0.5);
    expect(await error.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    // The card sharing the weights points to it instead of repeating it.
    await expect(page.locator('article[data-model="svc-model-5.2-short-fast"]')).toContainText('Loading these weights failed: see svc-model-5.2-short.');
    await expect(error.getByRole('button', { name: 'Retry loading svc-model-5.2-short' })).toBeVisible();
    await error.getByRole('button', { name: 'Import from a folder' }).click();
    await expect(page.locator('#import-folder')).toBeFocused();
    await screens(page, 'models-download-failed');

    // Back online with the files served: the card sums the manifest's shards and the library's length (HEAD)
    // before any weight is fetched; Retry fetches them (without asking again).
    server.current = await serveStatic(HOST_PORT, { '/': dir }, { cors: true });
    await context.setOffline(false);
    const model = fakeModel(modelId);
    const expected = [...model.files].filter(([name]) => name.startsWith('params_shard_')).reduce((sum, [, b]) => sum + b.length, 0) + model.libBytes.length;
    expect(expected).toBe(650_008);
    await expect(card.getByTestId('download-size')).toHaveText(`635 KiB (weights and model library from ${new URL(host).host}; by the model’s manifest)`);
    // Its files only (the other cards ask for their own manifests, which this host does not have).
    const mine = (paths: string[]) => paths.filter((p) => p.startsWith(`/hf/${modelId}/`) || p.startsWith('/libs/Qwen3-1.7B-'));
    expect(mine(server.current.gets)).toEqual([`/hf/${modelId}/resolve/main/tensor-cache.json`]);
    expect(mine(server.current.requests)).toEqual([
      `/hf/${modelId}/resolve/main/tensor-cache.json`,
      expect.stringMatching(/^\/libs\/Qwen3-1\.7B-q4f(16|32)_1_cs1k-webgpu\.wasm$/),
    ]);
    expect(server.current.gets.filter((p) => p.includes('params_shard'))).toEqual([]);
    const before = server.current.requests.length;
    await page.getByRole('button', { name: 'Retry loading svc-model-5.2-short' }).click();
    // web-llm fetches the model's config and its library first; the generated library is no real one, so the
    // load fails there, no longer for want of a network, and still with one error.
    await expect(page.getByTestId('load-error').locator('.plain')).toHaveText(
      `The model library from ${new URL(host).host} could not be started: the file is damaged or not built for this version of web-llm.`,
      { timeout: 30_000 },
    );
    await expect(page.getByTestId('load-error')).toHaveCount(1);
    await expect(page.getByRole('dialog')).toHaveCount(0);
    expect(mine(server.current.requests.slice(before))).toEqual([
      `/hf/${modelId}/resolve/main/mlc-chat-config.json`,
      expect.stringMatching(/^\/libs\/Qwen3-1\.7B-q4f(16|32)_1_cs1k-webgpu\.wasm$/),
    ]);
    await screens(page, 'models-retry-reached');

    // Offline on a later visit, the host cannot be asked: the card shows the size measured before, saying so.
    await context.setOffline(true);
    await page.reload();
    await expect(page.locator('article[data-model="svc-model-5.2-short"]').getByTestId('download-size')).toHaveText(
      `635 KiB (weights and model library from ${new URL(host).host}; measured on an earlier visit)`,
    );
    await expect(page.locator('article[data-model="svc-model-5.2"]').getByTestId('download-size')).toHaveText(
      `size unknown until download starts (the files come from ${new URL(host).host})`,
    );
  } finally {
    await server.current?.close();
    await rm(dir, { recursive: true, force: true });
  }
});
