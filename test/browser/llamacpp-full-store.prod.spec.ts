// llama.cpp when the site's storage is full: the site's quota set, through the DevTools protocol, to what it uses
// plus 30 KB, fewer than the model's 95 KB. Chromium's OPFS write fails (its sync handle returned 4294967288, not a
// count, here); the engine keeps the file in memory instead (worker/engine/llamacpp/stores.ts `spill`), answers
// whole, and /v1/models says why. (The Models card shows the same text, as llamacpp-no-opfs.prod.spec.ts checks; a
// reload to show it here would end the page's memory.) The Firefox smoke set tests the same with Firefox's short
// writes (test/firefox/llamacpp.test.ts).
import { expect, test } from '@playwright/test';
import { synthesizeGguf } from '../../scripts/gguf/synthesize';
import { auth, call, chat, makeKey, openApp } from './helpers';
import { ggufPath, llamaCppDeployment } from './llamacpp-deployment';

const model = synthesizeGguf({ seed: 7 });
const deployment = llamaCppDeployment({ port: 4615, prefix: 'full-store', files: (put) => put(ggufPath('qwen3-1.7b'), model.bytes) });

/** Room the site is given beyond what it uses: less than the model's file. */
const ROOM = 30_000;

interface Models {
  data: { id: string; engine?: { storage?: { store: string; why: string } } }[];
}

test('a full store: the model is kept in memory, the answer comes back whole, /v1/models says why', async () => {
  const context = await deployment.browser.newContext({ baseURL: deployment.server.origin });
  const page = await context.newPage();
  await openApp(page, '/');
  const key = await makeKey(page);
  const { usage } = await page.evaluate(async () => ({ usage: (await navigator.storage.estimate()).usage ?? 0 }));
  expect(model.bytes.length).toBeGreaterThan(ROOM);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin: deployment.server.origin, quotaSize: usage + ROOM });
  // In force for writes (navigator.storage.estimate() still reports the quota before the override).
  const probe = await page.evaluate(async (bytes: number) => {
    const writable = await (await (await navigator.storage.getDirectory()).getFileHandle('probe', { create: true })).createWritable();
    try {
      await writable.write(new Uint8Array(bytes));
      await writable.close();
      return 'kept';
    } catch (err) {
      return (err as Error).name;
    } finally {
      await (await navigator.storage.getDirectory()).removeEntry('probe');
    }
  }, model.bytes.length);
  expect(probe).toBe('QuotaExceededError');

  const answer = await chat(page, key, { model: 'svc-model-5.2-short', messages: [{ role: 'user', content: 'Hello' }], temperature: 0, max_tokens: 12 });
  expect(answer.status, answer.text).toBe(200);
  expect(answer.json).toMatchObject({
    choices: [{ message: { reasoning_content: 'Let me think.' }, finish_reason: 'length' }],
    usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 },
  });

  const models = (await call(page, '/v1/models', { headers: auth(key) })).json as Models;
  const storage = models.data.find((m) => m.id === 'svc-model-5.2-short')!.engine!.storage!;
  expect(storage.store).toBe('opfs');
  expect(storage.why).toMatch(
    /^OPFS \(the origin private file system\): kept across visits; a cut download resumes\. But it is full \(.+\): 1 model file\(s\) kept in memory for this page's life only, downloaded again on the next visit\. Free space on the disk, or delete models in the Models area\.$/,
  );
  // Nothing of the model stayed in the store (wllama's folder, cache/: the file and its metadata are gone; at most
  // the empty file the download opened).
  const kept = await page.evaluate(async () => {
    const folder = await (await navigator.storage.getDirectory()).getDirectoryHandle('cache');
    const files: string[] = [];
    for await (const [name, handle] of folder as unknown as AsyncIterable<[string, FileSystemFileHandle]>) {
      if ((await handle.getFile()).size > 0) files.push(name);
    }
    return files;
  });
  expect(kept).toEqual([]);

  await context.close();
});
