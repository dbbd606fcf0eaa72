// Security: keys are never stored or logged in full; revocation holds for the very next request in every
// tab (the service worker remembers verified keys for a few seconds); model output never runs as HTML; the
// built page carries a strict Content-Security-Policy that the app itself passes.
import { expect, test, type BrowserContext, type ConsoleMessage, type Page } from '@playwright/test';
import { auth, call, chat, makeKey, openApp } from './helpers';
import { goToArea, openWorkspace, playgroundKey, registerThroughForm, sendAndWait } from './workspace-steps';

/** Every console message of the context's pages, their workers and the service worker. */
function recordConsole(context: BrowserContext): string[] {
  const lines: string[] = [];
  const take = (where: string) => (m: ConsoleMessage) => lines.push(`${where} ${m.type()}: ${m.text()}`);
  const watchPage = (page: Page) => {
    page.on('console', take('page'));
    page.on('pageerror', (e) => lines.push(`page error: ${e.message}`));
    page.on('worker', (w) => w.on('console', take(`worker ${w.url()}`)));
  };
  context.pages().forEach(watchPage);
  context.on('page', watchPage);
  const watched = new Set<unknown>();
  const watchSw = (w: import('@playwright/test').Worker) => {
    if (watched.has(w)) return;
    watched.add(w);
    w.on('console', take('service worker'));
  };
  context.serviceWorkers().forEach(watchSw);
  context.on('serviceworker', watchSw);
  return lines;
}

/** Everything the origin keeps: every IndexedDB database (all stores, all records), Cache Storage, Web Storage. */
async function dumpStorage(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const out: string[] = [];
    const text = (v: unknown) =>
      JSON.stringify(v, (_k, x: unknown) => {
        if (x instanceof ArrayBuffer) return new TextDecoder().decode(x);
        if (ArrayBuffer.isView(x)) return new TextDecoder().decode(x);
        return x;
      });
    for (const info of await indexedDB.databases()) {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const req = indexedDB.open(info.name!);
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
      for (const store of Array.from(db.objectStoreNames)) {
        const [keys, values] = await Promise.all(
          ['getAllKeys', 'getAll'].map(
            (m) =>
              new Promise<unknown>((resolve, reject) => {
                const req = (db.transaction(store).objectStore(store) as unknown as Record<string, () => IDBRequest>)[m]!();
                req.onsuccess = () => resolve(req.result);
                req.onerror = () => reject(req.error);
              }),
          ),
        );
        for (const v of values as unknown[]) {
          if (v instanceof Blob) out.push(await v.text());
        }
        out.push(`idb ${info.name}/${store}: ${text(keys)} ${text(values)}`);
      }
      db.close();
    }
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      for (const request of await cache.keys()) {
        const res = await cache.match(request);
        out.push(`cache ${name} ${request.url} ${res ? await res.text() : ''}`);
      }
    }
    out.push(`localStorage ${text({ ...localStorage })}`, `sessionStorage ${text({ ...sessionStorage })}`, `cookie ${document.cookie}`);
    return out.join('\n');
  });
}

test('full keys appear in no database, cache, web storage or console output of the page, its workers and the service worker', async ({ page, context }) => {
  const lines = recordConsole(context);
  await openApp(page, '/?tokenDelayMs=1');
  const keys = [await makeKey(page, { name: 'one' }), await makeKey(page, { name: 'two', models: ['svc-model-5.2-fast'] })];
  // A key made through the UI, as a person would.
  const ui = await context.newPage();
  await openWorkspace(ui);
  await goToArea(ui, 'API Keys');
  await ui.getByLabel('Name').fill('made in the UI');
  await ui.getByRole('button', { name: 'Create key' }).click();
  keys.push(await ui.getByRole('textbox', { name: 'The new API key' }).inputValue());
  expect(keys[2]).toMatch(/^sk-svc-[A-Za-z0-9_-]{43}$/);

  // Use them every way: JSON, streams, models, unknown model, refused reach, a broken key, revoked keys.
  for (const key of keys) {
    expect((await chat(page, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'hello' }] })).status).toBe(200);
    expect((await chat(page, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'count 20' }], stream: true })).status).toBe(200);
    expect((await call(page, '/v1/models', { headers: auth(key) })).status).toBe(200);
    const broken = await chat(page, `${key}x`, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'hi' }] });
    expect(broken.status).toBe(401);
    expect(broken.text).not.toContain(key);
  }
  expect((await chat(page, keys[1]!, { model: 'svc-vision', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(404);
  await page.evaluate(async () => {
    for (const k of await window.inpage!.keys.list()) if (k.name !== 'made in the UI') await window.inpage!.keys.revoke(k.id);
  });
  const refused = await chat(page, keys[0]!, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'hi' }] });
  expect(refused.status).toBe(401);
  expect(refused.text).toContain(`sk-svc-${keys[0]!.slice(7, 11)}…${keys[0]!.slice(-4)}`);

  // The console watch is live in every realm: a line from each reaches it.
  await page.evaluate(() => console.info('probe from the page'));
  const sw = context.serviceWorkers()[0]!;
  await sw.evaluate(() => console.info('probe from the service worker'));
  await expect.poll(() => lines.some((l) => l.startsWith('service worker') && l.includes('probe from the service worker'))).toBe(true);
  await expect.poll(() => lines.some((l) => l.startsWith('page') && l.includes('probe from the page'))).toBe(true);

  const stored = (await dumpStorage(page)) + (await dumpStorage(ui));
  expect(stored).toContain('sk-svc-'); // the display forms are there: the dump did read the key records
  for (const key of keys) {
    const secret = key.slice('sk-svc-'.length);
    for (const [where, text] of [
      ['storage', stored],
      ['console', lines.join('\n')],
    ] as const) {
      expect(text.includes(secret), `the key's secret is in ${where}`).toBe(false);
      // Nor any long piece of it (the display form shows 4 + 4 characters).
      for (let at = 0; at + 12 <= secret.length; at += 4) {
        expect(text.includes(secret.slice(at, at + 12)), `12 characters of a key in ${where}`).toBe(false);
      }
    }
  }
});

test('revocation holds for the very next request, in the same tab and in another, however recently the key was used', async ({ page, context }) => {
  await openApp(page);
  const other = await context.newPage();
  await openApp(other, '/?engine=off');
  const hi = { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'hi' }] };
  for (let round = 0; round < 10; round++) {
    const key = await makeKey(page, { name: `round ${round}` });
    // Used just now from both tabs: the service worker remembers it as good.
    expect((await chat(page, key, hi)).status).toBe(200);
    expect((await chat(other, key, hi)).status).toBe(200);
    // Revoked in one tab (alternating), then used at once from both.
    const revoker = round % 2 === 0 ? page : other;
    await revoker.evaluate(async (name) => {
      const api = await window.inpageReady!;
      const record = (await api.keys.list()).find((k) => k.name === name)!;
      await api.keys.revoke(record.id);
    }, `round ${round}`);
    const [a, b] = await Promise.all([chat(page, key, hi), chat(other, key, hi)]);
    expect([a.status, b.status]).toEqual([401, 401]);
    expect((a.json as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'invalid_api_key',
      message: expect.stringContaining('has been revoked'),
    });
  }
});

test('the page carries a strict Content-Security-Policy, the app runs under it without a single violation, and model output stays inert', async ({ page }) => {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} blocked ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber}`));
  });
  const consoleCsp: string[] = [];
  page.on('console', (m) => {
    if (/Content.Security.Policy/i.test(m.text())) consoleCsp.push(m.text());
  });

  // The whole app: sign-up, keys, models, playground (with output that would run if it became HTML), connect.
  await openWorkspace(page);
  await registerThroughForm(page);
  await page.getByLabel('Name').fill('csp');
  await page.getByRole('button', { name: 'Create key' }).click();
  await expect(page.getByRole('textbox', { name: 'The new API key' })).toHaveValue(/^sk-svc-/);
  await page.getByRole('button', { name: 'Fill into the Connect snippets' }).click();
  await page.getByRole('button', { name: 'Test the connection' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'GET /v1/models answered 200' })).toBeVisible();
  await goToArea(page, 'Models');
  await goToArea(page, 'Playground');
  await playgroundKey(page);
  await page.evaluate(() => ((window as unknown as { pwned: number[] }).pwned = []));
  const answer = await sendAndWait(
    page,
    '<img src=x onerror="window.pwned.push(1)"> <script>window.pwned.push(2)</script> [go](javascript:window.pwned.push(3))',
  );
  await expect(answer).toContainText('<img src=x onerror="window.pwned.push(1)">');
  await expect(answer.locator('img, script, [onerror], a[href^="javascript"]')).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { pwned: number[] }).pwned)).toEqual([]);
  await goToArea(page, 'Connect');
  await page.reload();
  await page.evaluate(async () => {
    await window.inpageReady;
  });
  await expect(page.getByTestId('org-id')).toBeVisible();

  expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
  expect(consoleCsp).toEqual([]);

  // The policy is there and strict ...
  const policy = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  expect(policy).toContain("default-src 'self'");
  expect(policy).toContain("script-src 'self' 'wasm-unsafe-eval'");
  expect(policy).toContain("object-src 'none'");
  expect(policy).toContain("base-uri 'none'");
  expect(policy).not.toMatch(/unsafe-inline|'unsafe-eval'/);
  // ... and enforced: were markup ever to slip past the sanitiser, its handlers and inline scripts would not run.
  const enforced = await page.evaluate(async () => {
    const pwned: number[] = ((window as unknown as { pwned: number[] }).pwned = []);
    const div = document.createElement('div');
    div.innerHTML = '<img src="data:," onerror="window.pwned.push(5)">';
    document.body.append(div);
    const script = document.createElement('script');
    script.textContent = 'window.pwned.push(6)';
    document.body.append(script);
    await new Promise((r) => setTimeout(r, 200));
    return { pwned: [...pwned], violations: (window as unknown as { cspViolations: string[] }).cspViolations.length };
  });
  expect(enforced.pwned).toEqual([]);
  expect(enforced.violations).toBeGreaterThan(0);
});
