// `npm run bench -- --only weight` (and the full bench): what the npm package weighs, and what a device downloads.
//   - `npm pack --dry-run`: the tarball's size and its unpacked size;
//   - examples/openai-app built with the shipped plugin (dist-pkg/vite.js) around the shipped library
//     (dist-pkg/lib), served by `vite preview` with a GGUF synthesized here, opened in Chromium without WebGPU;
//     every request the server gets is listed (the page's, its workers' and the service worker's: what crosses the
//     network), each file's size gzipped (zlib's default level, from the built file). Per device kind:
//       CPU-only   the default settings: llama.cpp; until the app says "Ready." (installInpage resolved, GET
//                  /v1/models answered), then until its first answer, then what the caches keep;
//       WebGPU     `engineChoice: "webllm"` (no GPU here, so the engine web-llm's device would choose is forced):
//                  until "Ready." (the engine started), and what the caches keep then (no answer without a GPU);
//   - the service worker's precache: what it fetches in the background on the first visit (its list in inpage-sw.js).
// Written into the weight region of FILE ("## Weight (the package)", scripts/bench-regions.mjs).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { regionText, stampLine, writeRegions } from './bench-regions.mjs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from '@playwright/test';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The engines' own code: web-llm's and llama.cpp's chunks and llama.cpp's wasm (older builds named them without `engine-`). */
const ENGINE_CODE = /^inpage-(?:engine-)?(webllm|llamacpp|wllama)-/;
const MODEL = 'svc-model-5.2-short-fast';

/** The device kinds: the settings that make the engine each one runs, and whether an answer can be had here. */
const KINDS = [
  { kind: 'cpu', label: 'CPU-only (llama.cpp)', settings: { ggufBaseUrl: '/gguf' }, answers: true },
  { kind: 'webgpu', label: 'WebGPU (web-llm)', settings: { engineChoice: 'webllm' }, answers: false },
];

export async function benchWeight({ noBuild, port, log, chromiumPath, chromiumArgs }) {
  if (!noBuild) {
    log('building the package into dist-pkg/');
    execFileSync('node', ['scripts/build-pkg.mjs'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
  );
  const { build, preview, runnerImport } = await import('vite');
  const { inpage } = await import(new URL('../dist-pkg/vite.js', import.meta.url).href);
  const outDir = join(ROOT, `dist-weight${process.env.INPAGE_BUILD_SUFFIX ?? '-bench'}`);
  // Every request the server gets, and the settings file each visit is served.
  let served = [];
  let settings = {};
  const config = {
    root: join(ROOT, 'examples/openai-app'),
    configFile: false,
    plugins: [
      inpage({ libDir: join(ROOT, 'dist-pkg/lib') }),
      {
        name: 'weight-log',
        configurePreviewServer(server) {
          server.middlewares.use((req, res, next) => {
            const path = (req.url ?? '').split('?')[0];
            served.push(path);
            if (path !== '/inpage.config.json') return next();
            res.setHeader('content-type', 'application/json');
            res.end(JSON.stringify(settings));
          });
        },
      },
    ],
    logLevel: 'error',
    build: { outDir, emptyOutDir: true, target: 'es2022' },
    preview: { host: '127.0.0.1', port, strictPort: true },
  };
  log('building examples/openai-app with the shipped plugin');
  await build(config);
  // The CPU device's model: a GGUF synthesized here, at its default path under /gguf.
  const load = async (path) => (await runnerImport(join(ROOT, path), { configFile: false, logLevel: 'error' })).module;
  const { synthesizeGguf } = await load('scripts/gguf/synthesize.ts');
  const { GGUF_DEFAULTS } = await load('worker/engine/llamacpp/models.ts');
  const gguf = join(outDir, 'gguf', GGUF_DEFAULTS['qwen3-1.7b'].repo, 'resolve/main', GGUF_DEFAULTS['qwen3-1.7b'].file);
  mkdirSync(dirname(gguf), { recursive: true });
  writeFileSync(gguf, synthesizeGguf({ seed: 7 }).bytes);
  const sizeOf = (path) => {
    const name = path === '/' ? 'index.html' : path.slice(1);
    const bytes = readFileSync(join(outDir, name));
    return { name, raw: bytes.length, gzip: gzipSync(bytes).length };
  };
  /** The files among these paths (unique), less the API, the settings and the model's weights. */
  const files = (paths) =>
    [...new Set(paths)]
      .filter(
        (p) =>
          !p.startsWith('/v1') && !p.startsWith('/gguf/') && p !== '/inpage.config.json' && existsSync(join(outDir, p === '/' ? 'index.html' : p.slice(1))),
      )
      .map(sizeOf);
  const precache = [...readFileSync(join(outDir, 'inpage-sw.js'), 'utf8').matchAll(/"url":"([^"]+)"/g)].map((m) => sizeOf(`/${m[1]}`));
  const server = await preview(config);
  const origin = `http://127.0.0.1:${port}`;
  // No WebGPU: the CPU device runs llama.cpp; the WebGPU device's engine is forced by its settings.
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs.filter((a) => !/webgpu|swiftshader/i.test(a)) });
  try {
    const kinds = {};
    let pageFiles = [];
    for (const { kind, settings: visit, answers } of KINDS) {
      settings = visit;
      served = [];
      const context = await browser.newContext();
      const page = await context.newPage();
      const requested = [];
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (url.origin === origin) requested.push(url.pathname);
      });
      await page.goto(`${origin}/`);
      await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'Ready.', null, { timeout: 120_000 });
      const worker = new URL(await page.evaluate(() => navigator.serviceWorker.controller.scriptURL)).pathname;
      if (kind === 'cpu') pageFiles = files([...requested, worker]);
      const beforeCall = files(served);
      let afterAnswer = null;
      if (answers) {
        await page.fill('#question', 'Hello');
        await page.click('#ask button');
        await page.waitForFunction(() => /^(Done\.|Failed)/.test(document.querySelector('#status')?.textContent ?? ''), null, { timeout: 180_000 });
        const status = await page.locator('#status').textContent();
        if (status !== 'Done.') throw new Error(`weight: the ${kind} device's first answer failed: ${status}`);
        afterAnswer = files(served);
      }
      const kept = await page.evaluate(async () => {
        const out = [];
        for (const name of await caches.keys()) for (const request of await (await caches.open(name)).keys()) out.push(new URL(request.url).pathname);
        return out;
      });
      kinds[kind] = { beforeCall, afterAnswer, kept: files(kept) };
      await context.close();
    }
    return { tarball: packed.size, unpacked: packed.unpackedSize, entries: packed.entryCount, files: pageFiles, precache, kinds, model: MODEL };
  } finally {
    await browser.close();
    await server.close();
  }
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

function weightRows(w) {
  const sum = (list, key) => list.reduce((n, f) => n + f[key], 0);
  const total = (list) => `${kb(sum(list, 'gzip'))} (${list.length} files)`;
  const engineOf = (list) => {
    const engine = list.filter((f) => ENGINE_CODE.test(f.name));
    return engine.length === 0 ? 'none' : `${engine.map((f) => `\`${f.name}\``).join(', ')}: ${kb(sum(engine, 'gzip'))}`;
  };
  const inpageFiles = w.files.filter((f) => f.name.startsWith('inpage'));
  const setup = w.files.find((f) => f.name === 'inpage.js');
  const { cpu, webgpu } = w.kinds;
  return [
    `The package as \`npm pack\` makes it, and examples/openai-app built with it, served by \`vite preview\` and opened in Chromium without WebGPU, once per device kind in a fresh context: every request the server got (the page's, its workers' and the service worker's), until the app was ready to call /v1 (installInpage resolved, GET /v1/models answered), then until its first answer (llama.cpp on a synthesized GGUF; a WebGPU device cannot answer here, so its engine is forced with \`engineChoice: "webllm"\` and it is measured until its engine started). Model weights and the settings file are not counted. Sizes gzipped (zlib's default level) from the built files; "KB" is 1,024 bytes.`,
    '',
    '| row | size |',
    '|---|---|',
    `| \`npm pack\` tarball (${w.entries} files) | ${mb(w.tarball)} |`,
    `| unpacked | ${mb(w.unpacked)} |`,
    `| setup module \`inpage.js\`, gzip | ${kb(setup?.gzip ?? 0)} (${kb(setup?.raw ?? 0)} raw) |`,
    `| inpage's files the page and its workers loaded before the first /v1 call (CPU-only), gzip | ${kb(sum(inpageFiles, 'gzip'))} (${inpageFiles.length} files) |`,
    `| everything the page and its workers loaded before the first /v1 call (CPU-only; the app's own files too), gzip | ${kb(sum(w.files, 'gzip'))} (${w.files.length} files) |`,
    `| the service worker's precache, fetched in the background on the first visit (every device), gzip | ${total(w.precache)} |`,
    `| engine code in the precache | ${engineOf(w.precache)} |`,
    '',
    '| per device kind, gzip | WebGPU (web-llm) | CPU-only (llama.cpp) |',
    '|---|---|---|',
    `| fetched from the server before the first /v1 call (page, workers, service worker's precache and engine files) | ${total(webgpu.beforeCall)} | ${total(cpu.beforeCall)} |`,
    `| engine code among them | ${engineOf(webgpu.beforeCall)} | ${engineOf(cpu.beforeCall)} |`,
    `| fetched until the first answer | (no GPU here) | ${total(cpu.afterAnswer)} |`,
    `| engine code among them | (no GPU here) | ${engineOf(cpu.afterAnswer)} |`,
    `| kept by the service worker (its caches) after the engine started / the first answer | ${total(webgpu.kept)} | ${total(cpu.kept)} |`,
    `| engine code kept | ${engineOf(webgpu.kept)} | ${engineOf(cpu.kept)} |`,
    '',
    '| file the page and its workers loaded before the first /v1 call (CPU-only) | gzip | raw |',
    '|---|---|---|',
    ...w.files.map((f) => `| \`${f.name}\` | ${kb(f.gzip)} | ${kb(f.raw)} |`),
    '',
  ];
}

/** The weight region of BENCHMARKS.md: weightRows under `stamp`. */
export const weightRegion = (w, stamp) => regionText('Weight (the package)', stampLine(stamp), weightRows(w));

/** `--only weight`: the weight rows alone, written into the weight region of FILE. */
export async function benchWeightOnly({ outFile, noBuild, port, log, chromiumPath, chromiumArgs, uptime }) {
  const before = uptime();
  const started = Date.now();
  const text = weightRegion(await benchWeight({ noBuild, port, log, chromiumPath, chromiumArgs }), { started, before, after: uptime() });
  console.log(text);
  writeRegions(outFile, { weight: text });
  log(`wrote the weight rows into ${outFile}`);
}
