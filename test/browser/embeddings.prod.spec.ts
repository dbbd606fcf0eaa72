// The production build (real web-llm on SwiftShader): svc-embed is listed with its state, and an embeddings
// request whose model cannot load answers as chat does: 503 model_load_failed.
import { expect, test } from '@playwright/test';
import { auth, call, deployConfig, makeKey, openApp } from './helpers';

/** Port 9 (discard) on the loopback interface: nothing listens, every load fails at once. */
const NOWHERE = 'http://127.0.0.1:9';

test.beforeEach(async ({ context }) => {
  await deployConfig(context, { modelBaseUrl: `${NOWHERE}/models`, modelLibBaseUrl: `${NOWHERE}/libs` });
});

test('embeddings whose model cannot load: 503 model_load_failed naming snowflake-arctic-embed-s, its state kept; checks before the engine still 400', async ({
  page,
}) => {
  await openApp(page, '/');
  const key = await makeKey(page);
  const ask = (body: unknown) => call(page, '/v1/embeddings', { method: 'POST', headers: auth(key), body: JSON.stringify(body) });
  for (const body of [
    { model: 'svc-embed', input: 'hello' },
    { model: 'svc-embed', input: ['a', 'b'], encoding_format: 'base64' },
  ]) {
    const answer = await ask(body);
    expect(answer.status, answer.text).toBe(503);
    expect(answer.json).toMatchObject({ error: { type: 'server_error', code: 'model_load_failed', param: null } });
    const message = (answer.json as { error: { message: string } }).error.message;
    expect(message).toContain('snowflake-arctic-embed-s-q0f32-MLC-b4');
    expect(message).toContain(`${NOWHERE}/models/snowflake-arctic-embed-s-q0f32-MLC-b4/`);
  }
  const models = (await call(page, '/v1/models', { headers: auth(key) })).json as { data: { id: string; state: string; error?: string }[] };
  expect(models.data.find((m) => m.id === 'svc-embed')).toMatchObject({ state: 'not_downloaded', context_length: 512, embeddings: true });
  const refused = await ask({ model: 'svc-embed', input: 'x', dimensions: 768 });
  expect(refused.status).toBe(400);
  expect(refused.json).toMatchObject({ error: { code: 'unsupported_parameter', param: 'dimensions' } });
});
