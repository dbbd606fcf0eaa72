// llama.cpp without OPFS (a private window, WebKit): `StorageManager.prototype.getDirectory` removed from the page
// and from the engine worker's own scope (its entry script, as the deployment serves it, deletes it first). The
// engine starts, keeps the model files in Cache Storage, says so with why in /v1/models and on the card, answers,
// and a second visit reads the model from Cache Storage (not a byte of it fetched again). With Cache Storage gone
// too, the files are kept in memory for the page's life, and both say that every visit downloads them again.
import { readdirSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { synthesizeGguf } from '../../scripts/gguf/synthesize';
import { auth, call, chat, makeKey, openApp } from './helpers';
import { ggufPath, llamaCppDeployment } from './llamacpp-deployment';
import { PROD_BUILD_DIR } from './static-server';

test.describe.configure({ mode: 'serial' });

const model = synthesizeGguf({ seed: 7 });
const deployment = llamaCppDeployment({ port: 4605, prefix: 'no-opfs', files: (put) => put(ggufPath('qwen3-1.7b'), model.bytes) });

interface Models {
  data: { id: string; state: string; engine?: { storage?: { store: string; why: string } } }[];
}

/** The engine worker's entry (a one-line module: scripts/worker-chunks.ts), with `prelude` run before it. */
function serveWorkerEntryWith(prelude: string): void {
  const entry = readdirSync(`${PROD_BUILD_DIR}/assets`).find((f) => /^engine-worker-[\w-]+\.js$/.test(f))!;
  const original = `import"./${readdirSync(`${PROD_BUILD_DIR}/assets`).find((f) => /^engine-core-[\w-]+\.js$/.test(f))!}";`;
  deployment.server.override(`/assets/${entry}`, `${prelude}\n${original}`);
}

const NO_OPFS = 'delete StorageManager.prototype.getDirectory;';
const NO_CACHES = 'delete self.caches; delete Object.getPrototypeOf(self).caches; delete WorkerGlobalScope.prototype.caches;';

/** Opens the app in a page without OPFS (the engine worker's entry takes it from the worker: serveWorkerEntryWith). */
async function openWithout(page: Page): Promise<string> {
  await page.addInitScript(NO_OPFS);
  await openApp(page, '/');
  expect(await page.evaluate(() => typeof navigator.storage.getDirectory)).toBe('undefined');
  return makeKey(page);
}

const ask = (page: Page, key: string) =>
  chat(page, key, { model: 'svc-model-5.2-short', messages: [{ role: 'user', content: 'Hello' }], temperature: 0, max_tokens: 12 });

test('without OPFS: Cache Storage keeps the model, /v1/models and the card say so and why; the next visit fetches nothing', async () => {
  serveWorkerEntryWith(NO_OPFS);
  const context = await deployment.browser.newContext({ baseURL: deployment.server.origin });
  const page = await context.newPage();
  const key = await openWithout(page);
  const first = await ask(page, key);
  expect(first.status, first.text).toBe(200);
  expect((first.json as { choices: { message: { reasoning_content: string } }[] }).choices[0]!.message.reasoning_content).toBe('Let me think.');
  const models = (await call(page, '/v1/models', { headers: auth(key) })).json as Models;
  const storage = models.data.find((m) => m.id === 'svc-model-5.2-short')!.engine!.storage!;
  expect(storage).toEqual({
    store: 'cache-storage',
    why: 'Cache Storage, because OPFS cannot be used here (OPFS: this browser has no OPFS (navigator.storage.getDirectory)): kept across visits; a cut download starts over.',
  });
  // The same on the Models area's card.
  // Loaded again, the UI shows the workspace the API made.
  await page.goto('/#models');
  await page.reload();
  await expect(page.locator('article[data-model="svc-model-5.2-short"] [data-testid="storage"]')).toHaveText(storage.why);

  // A second visit (a new page of the same browser): the model comes from Cache Storage.
  const before = deployment.server.gets.filter((path) => path.startsWith('/gguf/')).length;
  const second = await context.newPage();
  await second.addInitScript(NO_OPFS);
  await openApp(second, '/');
  await page.close();
  const again = await ask(second, key);
  expect(again.status, again.text).toBe(200);
  expect(again.json).toMatchObject({
    choices: [{ message: { content: (first.json as { choices: { message: { content: string } }[] }).choices[0]!.message.content } }],
  });
  expect(deployment.server.gets.filter((path) => path.startsWith('/gguf/')).length).toBe(before);
  await context.close();
});

test('without OPFS and Cache Storage: the model is kept in memory for the page’s life, and both places say every visit downloads it again', async () => {
  serveWorkerEntryWith(`${NO_OPFS} ${NO_CACHES}`);
  const context = await deployment.browser.newContext({ baseURL: deployment.server.origin });
  const page = await context.newPage();
  const key = await openWithout(page);
  const answer = await ask(page, key);
  expect(answer.status, answer.text).toBe(200);
  const models = (await call(page, '/v1/models', { headers: auth(key) })).json as Models;
  const storage = models.data.find((m) => m.id === 'svc-model-5.2-short')!.engine!.storage!;
  expect(storage.store).toBe('memory');
  expect(storage.why).toMatch(
    /^Memory, for this page's life only, because no store can be used here \(OPFS: this browser has no OPFS \(navigator\.storage\.getDirectory\); Cache Storage: this browser has no Cache Storage\): every visit downloads the model again\.$/,
  );
  // Loaded again, the UI shows the workspace the API made.
  await page.goto('/#models');
  await page.reload();
  await expect(page.locator('article[data-model="svc-model-5.2-short"] [data-testid="storage"]')).toHaveText(storage.why);
  await context.close();
});
