// Importing GGUF files from disk on the production build's llama.cpp engine (a browser without WebGPU): a chosen
// folder, or files dropped on the Models area, go into wllama's cache under the URLs the engine would download
// them from, so the card says downloaded and a chat through /v1 fetches nothing from the model host. A folder
// without the expected file says which file it expected.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, expect, test, type Browser, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../playwright.config';
import { synthesizeGguf } from '../../scripts/gguf/synthesize';
import { GGUF_DEFAULTS } from '../../worker/engine/llamacpp/models';
import { chat, makeKey } from './helpers';
import { PROD_BUILD_DIR, serveStatic, type StaticServer } from './static-server';
import { goToArea, openWorkspace, registerThroughForm } from './workspace-steps';

test.describe.configure({ mode: 'serial' });

const SHORT = GGUF_DEFAULTS['qwen3-1.7b']!.file;
let dir: string;
/** The model host: an empty folder, so any download would fail; its GETs are counted. */
let server: StaticServer;
let noGpu: Browser;
const model = synthesizeGguf({ seed: 7 });

test.beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inpage-gguf-import-'));
  await mkdir(join(dir, 'host'));
  await mkdir(join(dir, 'picked'));
  await writeFile(join(dir, 'picked', SHORT), model.bytes);
  await mkdir(join(dir, 'wrong'));
  await writeFile(join(dir, 'wrong', 'Some-Other-Model.gguf'), model.bytes.slice(0, 1024));
  server = await serveStatic(4650, { '/': PROD_BUILD_DIR, '/gguf': join(dir, 'host') });
  server.override('/inpage.config.json', JSON.stringify({ ggufBaseUrl: '/gguf', engineHeartbeatMs: 0 }));
  noGpu = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS.filter((a) => !/webgpu|swiftshader/i.test(a)) });
});

test.afterAll(async () => {
  await noGpu?.close();
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const card = (page: Page, id: string) => page.locator(`article[data-model="${id}"]`);
const modelGets = () => server.gets.filter((p) => p.startsWith('/gguf/'));

async function openModels(): Promise<Page> {
  const context = await noGpu.newContext({ baseURL: server.origin });
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
  await page.getByLabel('Import a model from a folder').setInputFiles(join(dir, 'picked'));
  await expect(page.getByTestId('import-report')).toContainText(`Imported ${SHORT} (svc-model-5.2-short, svc-model-5.2-short-fast)`);
  await expect(card(page, 'svc-model-5.2-short')).toHaveAttribute('data-state', 'cached');
  await expect(card(page, 'svc-model-5.2-short-fast')).toHaveAttribute('data-state', 'cached');
  await expect(card(page, 'svc-model-5.2')).toHaveAttribute('data-state', 'not_downloaded');
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
  await page.getByLabel('Import a model from a folder').setInputFiles(join(dir, 'wrong'));
  const report = page.getByTestId('import-report');
  await expect(report).toContainText('Not imported: No GGUF file');
  await expect(report).toContainText('Some-Other-Model.gguf');
  await expect(report).toContainText(SHORT);
  await expect(card(page, 'svc-model-5.2-short')).toHaveAttribute('data-state', 'not_downloaded');
  await page.context().close();
});
