// Issue 14's blocker, in the production build with real web-llm: a link to the genuine page cannot choose the
// code the engine runs. `?modelBaseUrl=…&modelLibBaseUrl=…` (and the stability settings) are ignored, the page
// says so, the attacker's host never hears from the page, and the engine loads from the deployment's host.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { serveAttacker, TRAPPING_WASM, type AttackerServer } from './attacker-server';
import { chat, deployConfig, makeKey, openApp } from './helpers';
import { REPO_ROOT } from './static-server';

// One attacker server for the file: its tests run in order in one worker.
test.describe.configure({ mode: 'serial' });

let attacker: AttackerServer;
test.beforeAll(async () => {
  attacker = await serveAttacker(4595);
});
test.afterAll(async () => {
  await attacker.close();
});

test('the attacker server is live and reachable from the test (so zero requests below means none were made)', async ({ request }) => {
  const before = attacker.requests.length;
  const res = await request.get(`${attacker.origin}/lib/probe.wasm`);
  expect(new Uint8Array(await res.body())).toEqual(TRAPPING_WASM);
  expect(attacker.requests.length).toBe(before + 1);
  attacker.requests.splice(0);
});

test('a link naming model and library hosts is ignored with a notice: zero requests reach them, the engine loads from the deployment', async ({
  page,
  context,
}) => {
  const configured: string[] = [];
  await context.route('https://models.example/**', (route) => {
    configured.push(route.request().url());
    return route.fulfill({ status: 404, headers: { 'access-control-allow-origin': '*' }, body: 'no' });
  });
  await context.route('https://libs.example/**', (route) => {
    configured.push(route.request().url());
    return route.fulfill({ status: 404, headers: { 'access-control-allow-origin': '*' }, body: 'no such library' });
  });
  await deployConfig(context, { modelBaseUrl: 'https://models.example/mlc', modelLibBaseUrl: 'https://libs.example/v0_2_86' });

  const link =
    `/?modelBaseUrl=${encodeURIComponent(`${attacker.origin}/w`)}&modelLibBaseUrl=${encodeURIComponent(`${attacker.origin}/lib`)}` +
    '&engineHeartbeatMs=1&queueDepth=0&gpuMemoryMB=1&tokenDelayMs=9';
  await openApp(page, link);
  const notice = page.locator('#inpage-url-notice');
  await expect(notice).toBeVisible();
  for (const name of ['modelBaseUrl', 'modelLibBaseUrl', 'engineHeartbeatMs', 'queueDepth', 'gpuMemoryMB']) await expect(notice).toContainText(name);

  const key = await makeKey(page);
  const answer = await chat(page, key, { model: 'svc-model-5.2-short-fast', messages: [{ role: 'user', content: 'hello' }] });
  expect(answer.status).toBe(503);
  const error = (answer.json as { error: { code: string; message: string } }).error;
  expect(error.code).toBe('model_load_failed');
  expect(error.message).toContain('https://libs.example/v0_2_86/');
  expect(error.message).not.toContain('127.0.0.2');
  // The engine went to the deployment's hosts, and the attacker's got nothing at all.
  expect(configured.length).toBeGreaterThan(0);
  expect(configured.every((url) => url.startsWith('https://models.example/mlc/') || url.startsWith('https://libs.example/v0_2_86/'))).toBe(true);
  await page.waitForTimeout(500);
  expect(attacker.requests).toEqual([]);
});

test("npm run build contains none of the test build's knobs", async () => {
  const dist = join(REPO_ROOT, `dist${process.env.INPAGE_BUILD_SUFFIX ?? ''}`);
  const files = (await readdir(dist, { recursive: true })).filter((f) => f.endsWith('.js'));
  expect(files.length).toBeGreaterThan(2);
  for (const file of files) expect(await readFile(join(dist, file), 'utf8'), file).not.toContain('tokenDelayMs');
});
