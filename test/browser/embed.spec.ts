// Embedding: another web app adds inpage to its own origin with the package's Vite plugin (inpage/vite) and
// talks to it through the openai SDK: examples/openai-app, built with the plugin around a test build of the
// library. (test/package/ builds the same example from the packed tarball, with the real engines.)
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { build } from 'vite';
import { buildLibrary } from '../../scripts/build-lib';
import { inpage } from '../../src/lib/vite';
import { engineOfPath } from '#shared/engine-files';
import { REPO_ROOT, serveStatic, type StaticServer } from './static-server';

const SUFFIX = process.env.INPAGE_BUILD_SUFFIX ?? '';
const LIB_TEST = join(REPO_ROOT, `dist-lib-test${SUFFIX}`);
const LIB_PROD = join(REPO_ROOT, `dist-lib${SUFFIX}`);
const EXAMPLE = join(REPO_ROOT, `dist-example-test${SUFFIX}`);
const EXAMPLE_SRC = join(REPO_ROOT, 'examples', 'openai-app');

test.describe.configure({ mode: 'serial' });

let server: StaticServer;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  // The library with the deterministic engine (never shipped), and the example app built around it.
  await buildLibrary({ outDir: LIB_TEST, test: true, logLevel: 'error' });
  // The example's own vite.config.js, with the plugin pointed at the test library.
  await build({
    root: EXAMPLE_SRC,
    configFile: false,
    plugins: [inpage({ libDir: LIB_TEST })],
    logLevel: 'error',
    build: { outDir: EXAMPLE, emptyOutDir: true, target: 'es2022' },
  });
  // The library as it is built, also copied by hand (no plugin) under sub-paths.
  server = await serveStatic(4581, { '/': EXAMPLE, '/plain/': LIB_TEST, '/stuck/': LIB_TEST });
});

test.afterAll(async () => {
  await server?.close();
});

async function ask(page: Page, question: string, stream: boolean): Promise<string> {
  await page.getByLabel('Question').fill(question);
  await page.getByLabel('Stream the answer').setChecked(stream);
  await page.getByRole('button', { name: 'Ask' }).click();
  await expect(page.getByRole('status')).toHaveText('Done.');
  return (await page.locator('#answer').textContent()) ?? '';
}

test('the example app answers through the openai SDK, JSON and streamed, from inpage’s library service worker', async ({ page, context }) => {
  const loads: string[] = [];
  page.on('load', () => loads.push(page.url()));
  await page.goto(`${server.origin}/`);
  await expect(page.getByRole('status')).toHaveText('Ready.', { timeout: 30_000 });
  // This server sends no isolation headers; inpage-sw.js precaches the app's page and serves it with them, so
  // installInpage reloaded the first visit once under it, before the engine started: isolated from the first visit.
  expect(await page.evaluate(() => self.crossOriginIsolated)).toBe(true);
  expect(loads).toHaveLength(2);
  // The key the app made reaches the one model it picked.
  await expect(page.locator('#models')).toHaveText('svc-model-5.2-short-fast (not_downloaded)');
  expect(await ask(page, 'Hello from the example app', false)).toBe('Echo: Hello from the example app');
  expect(await ask(page, 'count 5', true)).toBe('1 2 3 4 5');
  expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toBe(`${server.origin}/inpage-sw.js`);

  // A second tab of the app: served by the first tab's engine, with the same key (kept, not made again).
  const second = await context.newPage();
  const secondLoads: string[] = [];
  second.on('load', () => secondLoads.push(second.url()));
  await second.goto(`${server.origin}/`);
  await expect(second.getByRole('status')).toHaveText('Ready.', { timeout: 30_000 });
  expect(await second.evaluate(() => self.crossOriginIsolated)).toBe(true);
  expect(secondLoads).toHaveLength(1);
  expect(await second.evaluate(() => (window as unknown as { inpage: { engine: unknown } }).inpage.engine)).toBeNull();
  expect(await ask(second, 'from the second tab', false)).toBe('Echo: from the second tab');
  const keys = await second.evaluate(async () =>
    (await (window as unknown as { inpage: { keys: { list(): Promise<{ name: string }[]> } } }).inpage.keys.list()).map((k) => k.name),
  );
  expect(keys).toEqual(['openai-app']);

  // The first tab closes; the second takes the engine over and keeps answering.
  await page.close();
  await expect.poll(() => second.evaluate(() => (window as unknown as { inpage: { engine: unknown } }).inpage.engine !== null), { timeout: 15_000 }).toBe(true);
  expect(await ask(second, 'after the takeover', true)).toBe('Echo: after the takeover');
});

test('the library watches its service worker: unregistered, it is registered again; when that fails the app hears why, and then that it is back', async ({
  page,
}) => {
  test.setTimeout(90_000);
  type Inpage = { service: { running: boolean; reason?: string }; onServiceLost(l: (r: string) => void): void; onServiceRestored(l: () => void): void };
  await page.goto(`${server.origin}/`);
  await expect(page.getByRole('status')).toHaveText('Ready.', { timeout: 30_000 });
  await page.evaluate(() => {
    const w = window as unknown as { inpage: Inpage; heard: string[] };
    w.heard = [];
    w.inpage.onServiceLost((reason) => w.heard.push(`lost: ${reason}`));
    w.inpage.onServiceRestored(() => w.heard.push('restored'));
  });
  const heard = () => page.evaluate(() => (window as unknown as { heard: string[] }).heard);
  const registered = () => page.evaluate(async () => (await navigator.serviceWorker.getRegistration('/'))?.active?.scriptURL ?? null);
  const unregister = () => page.evaluate(async () => void (await (await navigator.serviceWorker.getRegistration('/'))!.unregister()));

  // Another script unregisters it: the page registers it again by itself, and the app keeps answering.
  await unregister();
  expect(await registered()).toBeNull();
  await expect.poll(registered, { timeout: 15_000 }).toBe(`${server.origin}/inpage-sw.js`);
  expect(await ask(page, 'after it came back', false)).toBe('Echo: after it came back');
  expect(await heard()).toEqual([]);

  // Now the service workers are cleared away (as Clear site data does) while registering again fails (the script
  // on the server is broken): the app is told, plainly, and the state says so. (An unregistered worker still
  // running is revived by registering again without fetching its script, so it takes the clearing to fail.)
  server.override('/inpage-sw.js', 'throw new Error("broken on purpose");');
  try {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Storage.clearDataForOrigin', { origin: server.origin, storageTypes: 'service_workers' });
    await expect.poll(async () => (await heard())[0] ?? '', { timeout: 15_000 }).toMatch(/^lost: /);
    const state = await page.evaluate(() => (window as unknown as { inpage: Inpage }).inpage.service);
    expect(state.running).toBe(false);
    expect(state.reason).toBeTruthy();
  } finally {
    server.override('/inpage-sw.js', null);
  }
  // The script is fine again: the watch's next try brings the service back, and says so.
  await expect.poll(async () => (await heard()).at(-1), { timeout: 15_000 }).toBe('restored');
  expect(await page.evaluate(() => (window as unknown as { inpage: Inpage }).inpage.service)).toEqual({ running: true });
  expect(await registered()).toBe(`${server.origin}/inpage-sw.js`);
  expect(await ask(page, 'after the restart', true)).toBe('Echo: after the restart');
});

test('an app whose scope has a service worker of its own is told so by installInpage, and that worker stays', async ({ browser }) => {
  server.override('/other.html', '<!doctype html><title>other</title>');
  server.override('/other-sw.js', "self.addEventListener('fetch', () => {});");
  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    await page.goto(`${server.origin}/other.html`);
    await page.evaluate(async () => {
      await navigator.serviceWorker.register('/other-sw.js', { scope: '/' });
      await navigator.serviceWorker.ready;
    });
    const refused = await page.evaluate(async () => {
      const url = '/inpage.js';
      const { installInpage } = (await import(/* @vite-ignore */ url)) as { installInpage(o: unknown): Promise<unknown> };
      return installInpage({ models: ['svc-model-5.2-short-fast'] }).then(
        () => 'installed',
        (err: unknown) => String(err),
      );
    });
    expect(refused).toContain(`already has a service worker at scope ${server.origin}/ (${server.origin}/other-sw.js)`);
    expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistration('/'))?.active?.scriptURL)).toBe(`${server.origin}/other-sw.js`);
  } finally {
    await context.close();
    server.override('/other.html', null);
    server.override('/other-sw.js', null);
  }
});

test("an app with its own service worker: inpage runs in it as a guest (importScripts), the app's own routes stay its own", async ({ browser }) => {
  server.override('/own.html', '<!doctype html><title>own worker</title>');
  server.override(
    '/app-sw.js',
    [
      "importScripts('/inpage-sw-guest.js');",
      "self.addEventListener('install', () => self.skipWaiting());",
      "self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));",
      "self.addEventListener('fetch', (event) => { if (new URL(event.request.url).pathname === '/from-app-worker') event.respondWith(new Response('the app worker answered')); });",
    ].join('\n'),
  );
  server.override(
    '/plain-sw.js',
    "self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim())); self.addEventListener('fetch', () => {});",
  );
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${server.origin}/own.html`);
    const answer = await page.evaluate(async () => {
      await navigator.serviceWorker.register('/app-sw.js', { scope: '/' });
      const url = '/inpage.js';
      const { installInpage } = (await import(/* @vite-ignore */ url)) as { installInpage(o: unknown): Promise<{ key(): Promise<string>; baseURL: string }> };
      const inpage = await installInpage({ models: ['svc-model-5.2-short-fast'], serviceWorker: 'own' });
      const res = await fetch(`${inpage.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await inpage.key()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'svc-model-5.2-short-fast', messages: [{ role: 'user', content: 'from the guest' }] }),
      });
      const body = (await res.json()) as { choices: { message: { content: string } }[] };
      return {
        content: body.choices[0]!.message.content,
        controller: navigator.serviceWorker.controller?.scriptURL,
        own: await (await fetch('/from-app-worker')).text(),
        // The app's worker decides its pages' headers (this one adds none): inpage, its guest, never reloads for
        // isolation (this evaluate would have ended if it had).
        isolated: self.crossOriginIsolated,
        reloaded: sessionStorage.getItem('inpage:isolation-reload'),
      };
    });
    expect(answer).toEqual({
      content: 'Echo: from the guest',
      controller: `${server.origin}/app-sw.js`,
      own: 'the app worker answered',
      isolated: false,
      reloaded: null,
    });

    // A worker of the app's that does not run inpage: installInpage says which one, and registers nothing.
    const other = await browser.newContext();
    const page2 = await other.newPage();
    await page2.goto(`${server.origin}/own.html`);
    const refused = await page2.evaluate(async () => {
      await navigator.serviceWorker.register('/plain-sw.js', { scope: '/' });
      const url = '/inpage.js';
      const { installInpage } = (await import(/* @vite-ignore */ url)) as { installInpage(o: unknown): Promise<unknown> };
      return installInpage({ models: ['svc-model-5.2-short-fast'], serviceWorker: 'own' }).then(
        () => 'installed',
        (err: unknown) => String(err),
      );
    });
    expect(refused).toContain(`the service worker that controls this page (${server.origin}/plain-sw.js) does not run inpage`);
    await other.close();
  } finally {
    await context.close();
    for (const path of ['/own.html', '/app-sw.js', '/plain-sw.js']) server.override(path, null);
  }
});

test('without the plugin, at a sub-path: inpage finds its service worker, settings file and engine beside itself, and the API is <base>v1', async ({
  browser,
}) => {
  server.override('/plain/index.html', '<!doctype html><title>plain at a sub-path</title>');
  server.override('/plain/inpage.config.json', '{"queueDepth": 4}');
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const requested: string[] = [];
    page.on('request', (r) => requested.push(new URL(r.url()).pathname));
    await page.goto(`${server.origin}/plain/index.html`);
    const outcome = await page.evaluate(async () => {
      const url = './inpage.js';
      const { installInpage } = (await import(/* @vite-ignore */ url)) as { installInpage(o: unknown): Promise<{ key(): Promise<string>; baseURL: string }> };
      const inpage = await installInpage({ models: ['svc-model-5.2-short-fast'] });
      const res = await fetch(`${inpage.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await inpage.key()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'svc-model-5.2-short-fast', messages: [{ role: 'user', content: 'under a sub-path' }] }),
      });
      const body = (await res.json()) as { choices: { message: { content: string } }[] };
      const registration = await navigator.serviceWorker.getRegistration();
      return {
        baseURL: inpage.baseURL,
        content: body.choices[0]!.message.content,
        scope: registration?.scope,
        worker: navigator.serviceWorker.controller?.scriptURL,
        // inpage-sw.js copied by hand precaches inpage's files, not this page: its navigations reach the server
        // (no isolation headers here), so installInpage does not reload for isolation.
        isolated: self.crossOriginIsolated,
      };
    });
    expect(outcome).toEqual({
      baseURL: `${server.origin}/plain/v1`,
      content: 'Echo: under a sub-path',
      scope: `${server.origin}/plain/`,
      worker: `${server.origin}/plain/inpage-sw.js`,
      isolated: false,
    });
    // The settings file at the base was read; nothing was asked for at the origin's root.
    expect(requested).toContain('/plain/inpage.config.json');
    expect(requested.filter((path) => !path.startsWith('/plain/'))).toEqual([]);
    expect(requested.some((path) => /^\/plain\/inpage-engine-worker-[\w-]+\.js$/.test(path))).toBe(true);
  } finally {
    await context.close();
    for (const path of ['/plain/index.html', '/plain/inpage.config.json']) server.override(path, null);
  }
});

test('installInpage settles within startTimeoutMs: a service worker that never takes control rejects, naming the step and the file', async ({ browser }) => {
  server.override('/stuck/index.html', '<!doctype html><title>stuck</title>');
  // Its install never ends, so it never activates nor takes control.
  server.override('/stuck/inpage-sw.js', "self.addEventListener('install', (event) => event.waitUntil(new Promise(() => {})));");
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${server.origin}/stuck/index.html`);
    const refused = await page.evaluate(async () => {
      const url = './inpage.js';
      const { installInpage } = (await import(/* @vite-ignore */ url)) as { installInpage(o: unknown): Promise<unknown> };
      return installInpage({ models: ['svc-model-5.2-short-fast'], startTimeoutMs: 3000 }).then(
        () => 'installed',
        (err: unknown) => (err as Error).message,
      );
    });
    expect(refused).toBe(
      `inpage: registering the service worker ${server.origin}/stuck/inpage-sw.js (scope ${server.origin}/stuck/) and its taking control of this page did not finish within 3 s (startTimeoutMs): check that the file is served there as JavaScript; the browser's DevTools (Application, Service workers) show its state.`,
    );
  } finally {
    await context.close();
    for (const path of ['/stuck/index.html', '/stuck/inpage-sw.js']) server.override(path, null);
  }
});

test('a tab that takes the engine over after its start bound has passed starts it with a bound of its own', async ({ browser }) => {
  server.override('/plain/index.html', '<!doctype html><title>plain at a sub-path</title>');
  const context = await browser.newContext();
  type Installed = { engine: unknown; key(): Promise<string>; baseURL: string };
  const install = (page: Page, startTimeoutMs: number) =>
    page.evaluate(async (ms) => {
      const url = './inpage.js';
      const { installInpage } = (await import(/* @vite-ignore */ url)) as { installInpage(o: unknown): Promise<Installed> };
      const inpage = await installInpage({ models: ['svc-model-5.2-short-fast'], startTimeoutMs: ms });
      (window as unknown as { inpage: Installed }).inpage = inpage;
      return inpage.engine !== null;
    }, startTimeoutMs);
  try {
    const first = await context.newPage();
    await first.goto(`${server.origin}/plain/index.html`);
    expect(await install(first, 60_000)).toBe(true);
    const second = await context.newPage();
    await second.goto(`${server.origin}/plain/index.html`);
    // The second tab waits in line for the engine; its own start's bound passes meanwhile.
    expect(await install(second, 5000)).toBe(false);
    await second.waitForTimeout(6000);
    await first.close();
    await expect.poll(() => second.evaluate(() => (window as unknown as { inpage: Installed }).inpage.engine !== null), { timeout: 30_000 }).toBe(true);
    const content = await second.evaluate(async () => {
      const inpage = (window as unknown as { inpage: Installed }).inpage;
      const res = await fetch(`${inpage.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await inpage.key()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'svc-model-5.2-short-fast', messages: [{ role: 'user', content: 'taken over' }] }),
      });
      return ((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
    });
    expect(content).toBe('Echo: taken over');
  } finally {
    await context.close();
    server.override('/plain/index.html', null);
  }
});

test('the built app: inpage-sw.js lists the app shell and inpage\'s files for offline use; `import … from "inpage"` loads /inpage.js', async () => {
  const files = await readdir(EXAMPLE, { recursive: true });
  const sw = await readFile(join(EXAMPLE, 'inpage-sw.js'), 'utf8');
  expect(sw).not.toContain('self.__WB_MANIFEST');
  expect(sw).toContain('"url":"index.html"');
  expect(sw).toContain('"url":"inpage.js"');
  const appScripts = files.filter((f) => /^assets\/.+\.js$/.test(f));
  expect(appScripts.length).toBeGreaterThan(0);
  for (const f of appScripts) {
    expect(sw, f).toContain(`"url":"${f}"`);
    const text = await readFile(join(EXAMPLE, f), 'utf8');
    // The app's bundle imports the module the plugin put beside it; it does not carry inpage itself.
    if (text.includes('installInpage')) expect(text).toMatch(/from\s*["']\/inpage\.js["']/);
  }
});

test('the shipped library carries web-llm and llama.cpp, never the test engine; the service worker lists the library for offline use', async () => {
  test.setTimeout(120_000);
  await buildLibrary({ outDir: LIB_PROD, logLevel: 'error' });
  const marker = 'Thinking about: '; // the deterministic engine's own text
  const texts = async (dir: string) =>
    Promise.all((await readdir(dir)).filter((f) => f.endsWith('.js')).map(async (f) => ({ f, text: await readFile(join(dir, f), 'utf8') })));
  const shipped = await texts(LIB_PROD);
  const forTests = await texts(LIB_TEST);
  expect(forTests.some(({ text }) => text.includes(marker))).toBe(true);
  expect(shipped.filter(({ text }) => text.includes(marker)).map(({ f }) => f)).toEqual([]);
  expect(shipped.some(({ text }) => text.includes('MLCEngine'))).toBe(true);
  // llama.cpp for devices without WebGPU: wllama and its wasm, named as the rest: the main build's own and the two
  // with the SIMD kernels spliced in (worker/engine/llamacpp/wasm-variants.ts), and the compat build's three for
  // browsers without Memory64 (wasm-build.ts, wasm-compat-files.ts): a device downloads one of the six.
  expect(shipped.some(({ text }) => text.includes('wllama'))).toBe(true);
  const wasm = (await readdir(LIB_PROD)).filter((f) => f.endsWith('.wasm')).sort();
  expect(wasm).toHaveLength(6);
  for (const variant of ['relaxed', 'simd128', 'compat-relaxed', 'compat-simd128']) {
    expect(
      wasm.filter((f) => new RegExp(`^inpage-wllama-${variant}-[\\w-]+\\.wasm$`).test(f)),
      variant,
    ).toHaveLength(1);
  }
  expect(wasm.filter((f) => /^inpage-wllama-[\w-]+\.wasm$/.test(f))).toHaveLength(6);

  const names = shipped.map(({ f }) => f);
  expect(names).toContain('inpage.js');
  expect(names).toContain('inpage-sw.js');
  expect(names.every((f) => f.startsWith('inpage'))).toBe(true);
  const sw = shipped.find(({ f }) => f === 'inpage-sw.js')!.text;
  expect(sw).not.toContain('self.__WB_MANIFEST');
  // Everything a page and the engine worker load, but each engine's own files (kept on first use by the devices
  // that run it: src/shared/engine-files.ts); the guest script is for an app's own service worker only.
  const engineOwn = names.filter((f) => engineOfPath(`/${f}`) !== null);
  expect(engineOwn.map((f) => f.replace(/-[\w-]{8}\.js$/, ''))).toEqual(expect.arrayContaining(['inpage-engine-webllm', 'inpage-engine-llamacpp']));
  for (const f of engineOwn) expect(sw, f).not.toContain(`"url":"${f}"`);
  expect(sw).not.toMatch(/"url":"[^"]+\.wasm"/);
  for (const f of names.filter((n) => n !== 'inpage-sw.js' && n !== 'inpage-sw-guest.js' && !engineOwn.includes(n))) expect(sw, f).toContain(`"url":"${f}"`);
  expect(names).toContain('inpage-sw-guest.js');
  // One self-contained classic script: no imports to resolve wherever it is served from.
  expect(sw).not.toMatch(/^\s*import[\s{]/m);
});
