// The production build (real web-llm on SwiftShader) serving a model of the deployment's own: its record names
// where the files are, a local server serves them (generated, not a working model), and the app lists the id,
// fetches exactly the record's URLs, and reports a load failure naming them.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { fakeModel, writeHosted } from './fake-model';
import { call, chat, deployConfig, makeKey, openApp } from './helpers';
import { PROD_BUILD_DIR, serveStatic } from './static-server';

const MODEL_ID = 'Acme-Chat-q4f32_1-MLC';
const LIB = 'Acme-Chat-q4f32_1-webgpu.wasm';

test("a custom record: /v1/models lists the id, web-llm fetches the record's URLs, the load error names them", async ({ page, context }) => {
  const dir = await mkdtemp(join(tmpdir(), 'inpage-custom-model-'));
  const model = fakeModel(MODEL_ID, { lib: LIB });
  await writeHosted(join(dir, 'files'), model);
  // The app and its model files from one origin, as a self-hosting deployment serves them.
  const server = await serveStatic(4582, { '/': PROD_BUILD_DIR, '/models': join(dir, 'files') });
  try {
    await deployConfig(context, {
      models: {
        'acme-chat': {
          record: {
            model_id: MODEL_ID,
            model: `/models/hf/${MODEL_ID}`,
            model_lib: `/models/libs/${LIB}`,
            vram_required_MB: 600,
            overrides: { context_window_size: 2048 },
          },
        },
      },
    });
    await openApp(page, `${server.origin}/`);
    const key = await makeKey(page);
    const list = (await call(page, '/v1/models', { headers: { authorization: `Bearer ${key}` } })).json as {
      data: { id: string; state: string; context_length: number }[];
    };
    expect(list.data.map((m) => m.id)).toEqual([
      'svc-model-5.2',
      'svc-model-5.2-fast',
      'svc-model-5.2-short',
      'svc-model-5.2-short-fast',
      'svc-vision',
      'svc-embed',
      'acme-chat',
    ]);
    expect(list.data.at(-1)).toMatchObject({ state: 'not_downloaded', context_length: 4096 });
    expect(await page.evaluate(async () => (await window.inpage!.engine!.control.status()).find((s) => s.id === 'acme-chat')!.modelId)).toBe(MODEL_ID);

    const answer = await chat(page, key, { model: 'acme-chat', messages: [{ role: 'user', content: 'hello' }] });
    expect(answer.status).toBe(503);
    const error = (answer.json as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('model_load_failed');
    expect(error.message).toContain(`${server.origin}/models/hf/${MODEL_ID}`);
    expect(error.message).toContain(`${server.origin}/models/libs/${LIB}`);
    // web-llm asked the record's host for the model's files: its config, and nothing of web-llm's own hosts.
    const asked = server.requests.filter((path) => path.startsWith('/models/'));
    expect(asked).toContain(`/models/hf/${MODEL_ID}/resolve/main/mlc-chat-config.json`);
    expect(asked.every((path) => path.startsWith(`/models/hf/${MODEL_ID}/resolve/main/`) || path === `/models/libs/${LIB}`)).toBe(true);
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});
