// Importing a model's files from a folder on disk (air-gapped use), through the Models area, into web-llm's cache.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { fakeModel, sha256, writeFolder } from './fake-model';
import { goToArea, openWorkspace, registerThroughForm } from './workspace-steps';

test('import from a folder: the Models area reports what it took, web-llm finds the model cached, the bytes are the files’', async ({ page }) => {
  const dir = await mkdtemp(join(tmpdir(), 'inpage-import-'));
  // What someone carries on a disk: one complete model folder, and one whose shard got lost.
  const model = fakeModel('Qwen3-1.7B-q4f32_1-MLC', { shardBytes: 300_000 });
  await writeFolder(join(dir, 'disk', model.modelId), model);
  const broken = fakeModel('Qwen3-8B-q4f32_1-MLC', { shardBytes: 1000 });
  broken.files.delete('params_shard_2.bin');
  await writeFolder(join(dir, 'disk', broken.modelId), broken);
  try {
    await openWorkspace(page);
    await registerThroughForm(page);
    await goToArea(page, 'Models');
    const before = await page.evaluate(async () => (await window.inpage!.storage.report()).usage ?? 0);
    expect(await page.evaluate(() => window.inpage!.modelFiles.cached())).toEqual([]);

    await page.getByLabel('Import a model from a folder').setInputFiles(join(dir, 'disk'));
    const report = page.getByTestId('import-report');
    await expect(report).toContainText(`Imported ${model.modelId} (svc-model-5.2-short, svc-model-5.2-short-fast): 7 files`);
    await expect(report).toContainText(`Not imported: disk/${broken.modelId}: the weights are incomplete: params_shard_2.bin is missing.`);

    // web-llm's own hasModelInCache, for this deployment's model source.
    expect(await page.evaluate(() => window.inpage!.modelFiles.cached())).toEqual([model.modelId]);
    const stored = await page.evaluate(async (modelId) => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const req = indexedDB.open('webllm/model');
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
      const get = (url: string) =>
        new Promise<{ data: ArrayBuffer } | undefined>((resolve) => {
          const req = db.transaction('urls').objectStore('urls').get(url);
          req.onsuccess = () => resolve(req.result as { data: ArrayBuffer } | undefined);
        });
      const base = `https://huggingface.co/mlc-ai/${modelId}/resolve/main/`;
      const out: Record<string, string> = {};
      for (const name of ['params_shard_0.bin', 'params_shard_2.bin', 'tokenizer.json']) {
        const record = await get(base + name);
        const hash = record ? await crypto.subtle.digest('SHA-256', record.data) : null;
        out[name] = hash ? Array.from(new Uint8Array(hash), (b) => b.toString(16).padStart(2, '0')).join('') : 'missing';
      }
      db.close();
      return out;
    }, model.modelId);
    for (const name of ['params_shard_0.bin', 'params_shard_2.bin', 'tokenizer.json']) expect(stored[name], name).toBe(sha256(model.files.get(name)!));

    // Quota and use: the Models area shows them, and the use grew by the import.
    const after = await page.evaluate(async () => window.inpage!.storage.report());
    expect(after.supported).toBe(true);
    expect(after.quota).toBeGreaterThan(0);
    expect(after.usage!).toBeGreaterThan(before);
    await expect(page.getByTestId('storage-used')).toContainText(' of ');
    await expect(page.getByTestId('storage-persisted')).not.toBeEmpty();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
