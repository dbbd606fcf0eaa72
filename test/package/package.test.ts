// The npm package as another app gets it: `npm pack` (which builds dist-pkg/ through `prepack`), the tarball
// installed into a temporary copy of examples/openai-app with that app's own package.json (registry packages
// only, no path back into this repository), `vite build` and `vite preview` there, and the app in Chromium
// without WebGPU: inpage's service worker controls it, the page is cross-origin isolated (the plugin's headers),
// and the openai SDK gets a real llama.cpp answer from a GGUF synthesized here. Run by `npm test` (test:package).
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../playwright.config';
import { synthesizeGguf } from '../../scripts/gguf/synthesize';
import { ggufPath } from '../browser/llamacpp-host';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PORT = 4648 + Number(process.env.INPAGE_PORT_OFFSET ?? 0);
const run = (cmd: string, args: string[], cwd: string) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });

describe('the packed package in a fresh app', { timeout: 600_000 }, () => {
  const work = mkdtempSync(join(tmpdir(), 'inpage-package-'));
  const app = join(work, 'app');
  let tarball = '';
  let preview: ChildProcess | undefined;
  let browser: Browser | undefined;

  before(async () => {
    // What `prepack` runs, with its log apart from npm's JSON.
    execFileSync('node', ['scripts/build-pkg.mjs'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    const packed = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], ROOT)) as { filename: string; files: { path: string }[] }[];
    tarball = join(work, packed[0]!.filename);
    const files = packed[0]!.files.map((f) => f.path);
    writeFileSync(join(work, 'files.json'), JSON.stringify(files));
    cpSync(join(ROOT, 'examples/openai-app'), app, { recursive: true });
    // The app's own dependencies from the registry (npm's cache), inpage from the tarball.
    run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], app);
    run('npx', ['vite', 'build', '--logLevel', 'warn'], app);
    // The deployment's model: a GGUF synthesized here, served by the app's own server at /gguf.
    const model = synthesizeGguf({ seed: 7 });
    const gguf = join(app, 'dist/gguf', ggufPath('qwen3-1.7b'));
    mkdirSync(dirname(gguf), { recursive: true });
    writeFileSync(gguf, model.bytes);
    writeFileSync(join(app, 'dist/inpage.config.json'), JSON.stringify({ ggufBaseUrl: '/gguf' }));
    preview = spawn('npx', ['vite', 'preview', '--port', String(PORT), '--strictPort'], { cwd: app, stdio: 'ignore', detached: true });
    for (let i = 0; i < 100; i++) {
      if (await fetch(`http://127.0.0.1:${PORT}/`).then((r) => r.ok, () => false)) break;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS.filter((a) => !/webgpu|swiftshader/i.test(a)) });
  }, { timeout: 540_000 });

  after(async () => {
    await browser?.close();
    if (preview?.pid) process.kill(-preview.pid);
    rmSync(work, { recursive: true, force: true });
  });

  test('the tarball holds the built library, the plugin and their types, and nothing of the tests', () => {
    const files = JSON.parse(readFileSync(join(work, 'files.json'), 'utf8')) as string[];
    for (const f of ['package.json', 'dist-pkg/config.schema.json', 'dist-pkg/sw.js', 'dist-pkg/lib/inpage-sw-guest.js', 'dist-pkg/lib/inpage.js', 'dist-pkg/lib/inpage-sw.js', 'dist-pkg/vite.js', 'dist-pkg/types/src/lib/inpage.d.ts', 'dist-pkg/types/src/lib/vite.d.ts']) {
      assert.ok(files.includes(f), f);
    }
    assert.ok(files.some((f) => /^dist-pkg\/lib\/inpage-wllama-[\w-]+\.wasm$/.test(f)), 'llama.cpp wasm');
    assert.deepEqual(files.filter((f) => /^(test|src|worker|scripts)\//.test(f) || /deterministic|fixture|\.map$/.test(f)), []);
    const installed = JSON.parse(readFileSync(join(app, 'node_modules/inpage/package.json'), 'utf8')) as { dependencies: Record<string, string> };
    assert.deepEqual(Object.keys(installed.dependencies), ['workbox-build']);
  });

  test('the built app carries inpage at its root, its service worker listing the app for offline use', () => {
    const dist = readdirSync(join(app, 'dist'));
    for (const f of ['index.html', 'inpage.js', 'inpage-sw.js']) assert.ok(dist.includes(f), f);
    const sw = readFileSync(join(app, 'dist/inpage-sw.js'), 'utf8');
    assert.match(sw, /"url":"index\.html"/);
    assert.match(sw, /"url":"inpage\.js"/);
    // The app's bundle imports inpage.js from the app's root at run time; it does not carry a copy of inpage.
    const assets = readdirSync(join(app, 'dist/assets'));
    assert.deepEqual(assets.filter((f) => f.startsWith('inpage')), []);
    const bundles = assets.filter((f) => f.endsWith('.js')).map((f) => readFileSync(join(app, 'dist/assets', f), 'utf8'));
    assert.ok(bundles.some((text) => /from\s*["']\/inpage\.js["']/.test(text)));
    assert.ok(bundles.every((text) => !text.includes('function installInpage') && !text.includes('inpage-sw.js')));
  });

  test('the openai SDK gets a real llama.cpp answer in the app, under its service worker, cross-origin isolated', async () => {
    const page = await browser!.newPage();
    const heard: string[] = [];
    page.on('console', (m) => heard.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => heard.push(`pageerror: ${e.message}`));
    await page.goto(`http://127.0.0.1:${PORT}/`);
    await page
      .waitForFunction(() => document.querySelector('#status')?.textContent === 'Ready.', null, { timeout: 60_000 })
      .catch(async (err: unknown) => {
        throw new Error(`the app did not start: ${await page.locator('#status').textContent()}\n${heard.join('\n')}\n${String(err)}`);
      });
    assert.equal(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL), `http://127.0.0.1:${PORT}/inpage-sw.js`);
    assert.equal(await page.evaluate(() => crossOriginIsolated), true);
    assert.equal(await page.locator('#models').textContent(), 'svc-model-5.2-short-fast (not_downloaded)');
    await page.fill('#question', 'Hello');
    await page.click('#ask button');
    await page.waitForFunction(() => /^(Done\.|Failed)/.test(document.querySelector('#status')?.textContent ?? ''), null, { timeout: 120_000 });
    assert.equal(await page.locator('#status').textContent(), 'Done.');
    const answer = (await page.locator('#answer').textContent()) ?? '';
    // The synthesized model's free text: printable ASCII, from the engine, not an error.
    assert.match(answer, /^[\x20-\x7e]+$/);
    // llama.cpp's wasm is kept for offline use by the service worker (its name as the package ships it).
    const kept = await page.evaluate(async () => (await (await caches.open('inpage-llamacpp-wasm')).keys()).map((r) => new URL(r.url).pathname));
    assert.equal(kept.length, 1);
    assert.match(kept[0]!, /^\/inpage-wllama-[\w-]+\.wasm$/);
  });
});
