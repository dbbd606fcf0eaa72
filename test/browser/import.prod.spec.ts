// The production build (real web-llm engine on SwiftShader): a model imported from a folder shows as cached
// at once; when the browser evicts the cache, it goes back to not_downloaded, and the next use downloads again.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { fakeModel, writeFolder } from './fake-model';
import { chat, deployConfig, makeKey } from './helpers';
import { goToArea, openWorkspace, registerThroughForm } from './workspace-steps';

/** Nothing listens here: a download from this source fails at once (there is no internet anyway). */
const NOWHERE = 'http://127.0.0.1:9';
const APP = '/';

test.beforeEach(async ({ context }) => {
  // The deployment's settings (its /inpage.config.json): a page's URL cannot set the model source.
  await deployConfig(context, { modelBaseUrl: `${NOWHERE}/models`, modelLibBaseUrl: `${NOWHERE}/libs` });
});

const card = (page: Page, id: string) => page.locator(`article[data-model="${id}"]`);

async function engineStatus(page: Page, id: string) {
  return page.evaluate(async (id) => (await window.inpage!.engine!.control.status()).find((s) => s.id === id)!, id);
}

test('import from a folder: the engine sees the model cached; after an eviction it is not_downloaded and downloads again', async ({ page }) => {
  const dir = await mkdtemp(join(tmpdir(), 'inpage-import-prod-'));
  try {
    await openWorkspace(page, APP);
    await registerThroughForm(page);
    await goToArea(page, 'Models');
    const adapter = await page.evaluate(() => window.inpage!.engine!.control.adapter());
    // The weights this adapter runs: q4f16 with shader-f16, else q4f32 (SwiftShader).
    const modelId = adapter.shaderF16 ? 'Qwen3-1.7B-q4f16_1-MLC' : 'Qwen3-1.7B-q4f32_1-MLC';
    const model = fakeModel(modelId);
    await writeFolder(join(dir, modelId), model);
    await expect(card(page, 'svc-model-5.2-short')).toHaveAttribute('data-state', 'not_downloaded');

    await page.getByLabel('Import a model from a folder').setInputFiles(join(dir, modelId));
    await expect(page.getByTestId('import-report')).toContainText(`Imported ${modelId}`);
    // The engine read its cache again: both variants of those weights are cached, the others untouched.
    await expect(card(page, 'svc-model-5.2-short')).toHaveAttribute('data-state', 'cached');
    await expect(card(page, 'svc-model-5.2-short-fast')).toHaveAttribute('data-state', 'cached');
    await expect(card(page, 'svc-model-5.2')).toHaveAttribute('data-state', 'not_downloaded');
    expect(await page.evaluate(() => window.inpage!.modelFiles.cached())).toEqual([modelId]);

    // The browser evicts the origin's IndexedDB (as under storage pressure); the tab is shown again.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Storage.clearDataForOrigin', { origin: new URL(page.url()).origin, storageTypes: 'indexeddb' });
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await expect(card(page, 'svc-model-5.2-short')).toHaveAttribute('data-state', 'not_downloaded');
    const status = await engineStatus(page, 'svc-model-5.2-short');
    expect(status.state).toBe('not_downloaded');
    expect(status.error).toBeUndefined();
    expect(await page.evaluate(() => window.inpage!.modelFiles.cached())).toEqual([]);

    // The next use downloads again: from the configured source, unreachable here, so the load says so.
    const key = await makeKey(page);
    const answer = await chat(page, key, { model: 'svc-model-5.2-short-fast', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.status).toBe(503);
    expect(answer.json).toMatchObject({ error: { code: 'model_load_failed' } });
    expect((answer.json as { error: { message: string } }).error.message).toContain(`${NOWHERE}/models/${modelId}/`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
