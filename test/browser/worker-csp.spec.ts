// Issue 14: every script the app ships runs under a policy of its own. A dedicated worker does not take the
// page's Content-Security-Policy, so the service worker serves the engine worker's script with one allowing the
// origin and the deployment's model hosts only; the service worker's own script comes with a policy from the server.
import { expect, test, type Worker } from '@playwright/test';
import { serveAttacker, type AttackerServer } from './attacker-server';
import { deployConfig, makeKey, openApp, chat } from './helpers';

test.describe.configure({ mode: 'serial' });

let attacker: AttackerServer;
test.beforeAll(async () => {
  attacker = await serveAttacker(4596);
});
test.afterAll(async () => {
  await attacker.close();
});

/** What a fetch from inside a worker came to: 'ok <status>' or 'refused'. */
function tryFetch(worker: Worker, url: string): Promise<string> {
  return worker.evaluate(async (url) => {
    try {
      const res = await fetch(url);
      return `ok ${res.status}`;
    } catch {
      return 'refused';
    }
  }, url);
}

test('the engine worker reaches the origin and the configured model hosts only, from the first visit on', async ({ page, context }) => {
  const modelHost: string[] = [];
  await context.route('https://models.example/**', (route) => {
    modelHost.push(route.request().url());
    return route.fulfill({ status: 200, headers: { 'access-control-allow-origin': '*' }, body: 'weights' });
  });
  await deployConfig(context, { modelBaseUrl: 'https://models.example/mlc' });
  await openApp(page);
  const engine = page.workers().find((w) => w.url().includes('engine-worker'));
  expect(engine, 'the engine worker').toBeDefined();

  expect(await tryFetch(engine!, 'https://models.example/mlc/config.json')).toBe('ok 200');
  expect(modelHost).toEqual(['https://models.example/mlc/config.json']);
  expect(await tryFetch(engine!, '/inpage.config.json')).toBe('ok 200');
  // Another host (reachable from the test itself) and web-llm's default hosts, which this deployment replaced.
  expect(await tryFetch(engine!, `${attacker.origin}/lib/x.wasm`)).toBe('refused');
  expect(await tryFetch(engine!, 'https://raw.githubusercontent.com/x')).toBe('refused');
  expect(attacker.requests).toEqual([]);
  // The page itself is unaffected: the service still answers.
  const key = await makeKey(page);
  expect((await chat(page, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
});

test("after a reload and with web-llm's default hosts the policy holds too; the service worker script has its own", async ({ page, context, request }) => {
  await openApp(page);
  await page.reload();
  await page.evaluate(async () => void (await window.inpageReady));
  const engine = page.workers().find((w) => w.url().includes('engine-worker'))!;
  expect(await tryFetch(engine, `${attacker.origin}/w/mlc-chat-config.json`)).toBe('refused');
  expect(attacker.requests).toEqual([]);

  const sw = await request.get('/sw.js');
  expect(sw.headers()['content-security-policy']).toBe("default-src 'none'; script-src 'self'; connect-src 'self'");
  const worker = context.serviceWorkers()[0]!;
  expect(await tryFetch(worker, `${attacker.origin}/sw-probe`)).toBe('refused');
  expect(attacker.requests).toEqual([]);
});
