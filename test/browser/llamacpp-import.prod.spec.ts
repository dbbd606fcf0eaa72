// Importing GGUF files from disk on the production build's llama.cpp engine (a browser without WebGPU): a chosen
// folder, or files dropped on the Models area, go into wllama's cache under the URLs the engine would download
// them from, so the card says downloaded and a chat through /v1 fetches nothing from the model host. A folder
// without the expected file says which file it expected.
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { synthesizeGguf } from '../../scripts/gguf/synthesize';
import { GGUF_DEFAULTS } from '../../worker/engine/llamacpp/models';
import { chat, makeKey } from './helpers';
import { llamaCppDeployment } from './llamacpp-deployment';
import { goToArea, openWorkspace, registerThroughForm } from './workspace-steps';

test.describe.configure({ mode: 'serial' });

const SHORT = GGUF_DEFAULTS['qwen3-1.7b']!.file;
const model = synthesizeGguf({ seed: 7 });
/** The model host serves an empty folder, so any download would fail; its GETs are counted. */
const deployment = llamaCppDeployment({
  port: 4650,
  prefix: 'gguf-import',
  hostDir: 'host',
  files: async (put) => {
    await put(join('picked', SHORT), model.bytes);
    await put(join('wrong', 'Some-Other-Model.gguf'), model.bytes.slice(0, 1024));
  },
});

const card = (page: Page, id: string) => page.locator(`article[data-model="${id}"]`);
const modelGets = () => deployment.server.gets.filter((p) => p.startsWith('/gguf/'));

async function openModels(): Promise<Page> {
  const context = await deployment.browser.newContext({ baseURL: deployment.server.origin });
  const page = await context.newPage();
  await openWorkspace(page, '/');
  await registerThroughForm(page);
  await goToArea(page, 'Models');
  await expect(card(page, 'svc-model-5.2-short')).toHaveAttribute('data-state', 'not_downloaded');
  return page;
}

async function answersWithoutTheHost(page: Page) {
  const before = modelGets().length;
  const key = await makeKey(page);
  const answer = await chat(page, key, { model: 'svc-model-5.2-short-fast', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 4, temperature: 0 });
  expect(answer.status).toBe(200);
  const body = answer.json as { choices: { message: { content: string } }[]; usage: { completion_tokens: number } };
  expect(body.choices[0]!.message.content.length).toBeGreaterThan(0);
  expect(body.usage.completion_tokens).toBe(4);
  // Not one byte of the model came from its host.
  expect(modelGets().slice(before)).toEqual([]);
  expect(modelGets()).toEqual([]);
}

test('import of a .gguf from a folder: the card says downloaded, a chat through /v1 fetches nothing from the model host', async () => {
  test.setTimeout(120_000);
  const page = await openModels();
  await page.getByLabel('Import a model from a folder').setInputFiles(join(deployment.dir, 'picked'));
  await expect(page.getByTestId('import-report')).toContainText(`Imported ${SHORT} (svc-model-5.2-short, svc-model-5.2-short-fast)`);
  await expect(card(page, 'svc-model-5.2-short')).toHaveAttribute('data-state', 'cached');
  await expect(card(page, 'svc-model-5.2-short-fast')).toHaveAttribute('data-state', 'cached');
  // Not imported, and Qwen3-8B's GGUF is too large for this device anyway: unavailable, saying so.
  await expect(card(page, 'svc-model-5.2')).toHaveAttribute('data-state', 'unavailable');
  await answersWithoutTheHost(page);
  await page.context().close();
});

test('a .gguf dropped on a model card is imported the same way', async () => {
  test.setTimeout(120_000);
  const page = await openModels();
  await page.evaluate(
    async ({ base64, name }) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const data = new DataTransfer();
      data.items.add(new File([bytes], name));
      const target = document.querySelector('article[data-model="svc-model-5.2-short"]')!;
      target.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
      target.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    },
    { base64: Buffer.from(model.bytes).toString('base64'), name: SHORT },
  );
  await expect(page.getByTestId('import-report')).toContainText(`Imported ${SHORT}`);
  await expect(card(page, 'svc-model-5.2-short')).toHaveAttribute('data-state', 'cached');
  await answersWithoutTheHost(page);
  await page.context().close();
});

test('a folder without the expected file: the error names the file it expected', async () => {
  const page = await openModels();
  await page.getByLabel('Import a model from a folder').setInputFiles(join(deployment.dir, 'wrong'));
  const report = page.getByTestId('import-report');
  await expect(report).toContainText('Not imported: No GGUF file');
  await expect(report).toContainText('Some-Other-Model.gguf');
  await expect(report).toContainText(SHORT);
  await expect(card(page, 'svc-model-5.2-short')).toHaveAttribute('data-state', 'not_downloaded');
  await page.context().close();
});
