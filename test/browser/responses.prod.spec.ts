// The production build (real web-llm on SwiftShader): /v1/responses and /v1/completions take the chat path, so
// a model that cannot load answers them as it answers chat: 503 model_load_failed, streams included.
import { expect, test } from '@playwright/test';
import { auth, call, deployConfig, makeKey, openApp } from './helpers';

/** Port 9 (discard) on the loopback interface: nothing listens, every load fails at once. */
const NOWHERE = 'http://127.0.0.1:9';

test.beforeEach(async ({ context }) => {
  await deployConfig(context, { modelBaseUrl: `${NOWHERE}/models`, modelLibBaseUrl: `${NOWHERE}/libs` });
});

test('responses and legacy completions whose model cannot load: 503 model_load_failed, before any stream begins', async ({ page }) => {
  await openApp(page, '/');
  const key = await makeKey(page);
  const ask = (path: string, body: unknown) => call(page, path, { method: 'POST', headers: auth(key), body: JSON.stringify(body) });
  const answers = [
    await ask('/v1/responses', { model: 'svc-model-5.2-short-fast', input: 'hello' }),
    await ask('/v1/responses', { model: 'svc-model-5.2-short-fast', input: 'hello', stream: true }),
    await ask('/v1/completions', { model: 'svc-model-5.2-short-fast', prompt: 'hello' }),
    await ask('/v1/completions', { model: 'svc-model-5.2-short-fast', prompt: 'hello', stream: true }),
  ];
  for (const answer of answers) {
    expect(answer.status, answer.text).toBe(503);
    expect(answer.json).toMatchObject({ error: { type: 'server_error', code: 'model_load_failed', param: null } });
    expect((answer.json as { error: { message: string } }).error.message).toContain('Qwen3-1.7B-q4f32_1-MLC');
  }
  // Nothing was stored for a response that never ran.
  const stored = await page.evaluate(async () => {
    if (!(await indexedDB.databases()).some((d) => d.name === 'inpage-responses')) return 0;
    return new Promise<number>((resolve, reject) => {
      const open = indexedDB.open('inpage-responses');
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const db = open.result;
        const count = db.transaction('responses').objectStore('responses').count();
        count.onsuccess = () => (db.close(), resolve(count.result));
        count.onerror = () => reject(count.error);
      };
    });
  });
  expect(stored).toBe(0);
  // Checks before the engine still answer as ever.
  const refused = await ask('/v1/responses', { model: 'svc-model-5.2-short-fast', input: 'x', background: true });
  expect(refused.json).toMatchObject({ error: { code: 'unsupported_parameter', param: 'background' } });
});
