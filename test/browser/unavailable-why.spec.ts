// Every `unavailable` says why, in /v1/models (`why`), in the 503 a request for it gets, and on its Models card:
// with no engine connected (a tab that hosts none, `?engine=off`), and on a CPU device too small for some models
// (the test build's `cpuMemoryMiB` knob, as the llama.cpp engine refuses them).
import { expect, test } from '@playwright/test';
import { auth, call, chat, makeKey, openApp } from './helpers';
import { goToArea } from './workspace-steps';

interface Models {
  data: { id: string; state: string; why?: string }[];
}

test('no engine connected: every model is unavailable saying why, and a request is refused with the same reason', async ({ page }) => {
  await openApp(page, '/?engine=off');
  const key = await makeKey(page);
  const models = await call(page, '/v1/models', { headers: auth(key) });
  expect(models.status).toBe(200);
  const data = (models.json as Models).data;
  expect(data.length).toBeGreaterThan(0);
  for (const m of data) {
    expect(m.state, m.id).toBe('unavailable');
    expect(m.why, m.id).toMatch(/^No inference engine is connected: open the inpage page in a tab of this origin/);
  }
  const refused = await chat(page, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'hi' }] });
  expect(refused.status).toBe(503);
  expect((refused.json as { error: { code: string; message: string } }).error).toMatchObject({ code: 'engine_unavailable', message: data[0]!.why });
});

test('a CPU device too small for some models: each unavailable one says why in /v1/models and on its card; the others have no why', async ({ page }) => {
  await openApp(page, '/?cpuMemoryMiB=4096');
  const key = await makeKey(page);
  const data = ((await call(page, '/v1/models', { headers: auth(key) })).json as Models).data;
  const unavailable = data.filter((m) => m.state === 'unavailable');
  // Qwen3-8B's two variants do not fit 4 GiB.
  expect(unavailable.map((m) => m.id).sort()).toEqual(['svc-model-5.2', 'svc-model-5.2-fast']);
  for (const m of unavailable) expect(m.why, m.id).toMatch(/do not fit the memory this device can give a model/);
  for (const m of data.filter((m) => m.state !== 'unavailable')) expect(m.why, m.id).toBeUndefined();
  const refused = await chat(page, key, { model: 'svc-model-5.2', messages: [{ role: 'user', content: 'hi' }] });
  expect((refused.json as { error: { message: string } }).error.message).toBe(unavailable.find((m) => m.id === 'svc-model-5.2')!.why);
  // The UI shows the workspace made through the API once the page is loaded again.
  await page.reload();
  await goToArea(page, 'Models');
  for (const m of unavailable) await expect(page.locator(`article[data-model="${m.id}"] [data-testid="unavailable"]`)).toContainText(m.why!);
});
