// `npm run bench -- --only weight` (and the full bench): what the npm package weighs, and what an app's page
// loads before it can first call /v1.
//   - `npm pack --dry-run`: the tarball's size and its unpacked size;
//   - examples/openai-app built with the shipped plugin (dist-pkg/vite.js) around the shipped library
//     (dist-pkg/lib), served by `vite preview`, opened in Chromium; every request the page and its workers make
//     until the app says "Ready." (installInpage resolved and GET /v1/models answered) is listed, with the
//     service worker's script, and each file's size gzipped (zlib's default level, from the built file);
//   - the engine code among them (web-llm's and llama.cpp's chunks, the wasm), which must be none: they load
//     only when an engine starts.
// Spliced into FILE as "## Weight (the package)".
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from '@playwright/test';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HEADING = '## Weight (the package)';
/** The engines' own code: web-llm's and llama.cpp's chunks and llama.cpp's wasm. */
const ENGINE_CODE = /^inpage-(webllm|llamacpp|wllama)-/;

export async function benchWeight({ noBuild, port, log, chromiumPath, chromiumArgs }) {
  if (!noBuild) {
    log('building the package into dist-pkg/');
    execFileSync('node', ['scripts/build-pkg.mjs'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  const { build, preview } = await import('vite');
  const { inpage } = await import(new URL('../dist-pkg/vite.js', import.meta.url).href);
  const outDir = join(ROOT, `dist-weight${process.env.INPAGE_BUILD_SUFFIX ?? '-bench'}`);
  const config = {
    root: join(ROOT, 'examples/openai-app'),
    configFile: false,
    plugins: [inpage({ libDir: join(ROOT, 'dist-pkg/lib') })],
    logLevel: 'error',
    build: { outDir, emptyOutDir: true, target: 'es2022' },
    preview: { host: '127.0.0.1', port, strictPort: true },
  };
  log('building examples/openai-app with the shipped plugin');
  await build(config);
  const server = await preview(config);
  const origin = `http://127.0.0.1:${port}`;
  // No WebGPU: the device llama.cpp serves, so nothing of web-llm is needed; the engine code must wait anyway.
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs.filter((a) => !/webgpu|swiftshader/i.test(a)) });
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    const requested = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.origin === origin) requested.push(url.pathname);
    });
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'Ready.', null, { timeout: 60_000 });
    const worker = new URL(await page.evaluate(() => navigator.serviceWorker.controller.scriptURL)).pathname;
    const before = [...new Set([...requested, worker])].filter((path) => !path.startsWith('/v1') && path !== '/inpage.config.json');
    const files = before.map((path) => {
      const name = path === '/' ? 'index.html' : path.slice(1);
      const bytes = readFileSync(join(outDir, name));
      return { name, raw: bytes.length, gzip: gzipSync(bytes).length };
    });
    await context.close();
    return { tarball: packed.size, unpacked: packed.unpackedSize, entries: packed.entryCount, files };
  } finally {
    await browser.close();
    await server.close();
  }
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

export function weightRows(w) {
  const sum = (list, key) => list.reduce((n, f) => n + f[key], 0);
  const inpageFiles = w.files.filter((f) => f.name.startsWith('inpage'));
  const setup = w.files.find((f) => f.name === 'inpage.js');
  const engine = w.files.filter((f) => ENGINE_CODE.test(f.name));
  return [
    HEADING,
    '',
    `From \`npm run bench -- --only weight\` (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC). The package as \`npm pack\` makes it, and examples/openai-app built with it, opened in Chromium without WebGPU: the files the page and its workers requested until the app was ready to call /v1 (installInpage resolved, GET /v1/models answered), with the service worker's script. Sizes gzipped (zlib's default level) from the built files; "KB" is 1,024 bytes.`,
    '',
    '| row | size |',
    '|---|---|',
    `| \`npm pack\` tarball (${w.entries} files) | ${mb(w.tarball)} |`,
    `| unpacked | ${mb(w.unpacked)} |`,
    `| setup module \`inpage.js\`, gzip | ${kb(setup?.gzip ?? 0)} (${kb(setup?.raw ?? 0)} raw) |`,
    `| inpage's files before the first /v1 call, gzip | ${kb(sum(inpageFiles, 'gzip'))} (${inpageFiles.length} files) |`,
    `| everything the page loaded before the first /v1 call (the app's own files too), gzip | ${kb(sum(w.files, 'gzip'))} (${w.files.length} files) |`,
    `| engine code among them (web-llm, llama.cpp, its wasm) | ${engine.length === 0 ? 'none' : `**${engine.map((f) => f.name).join(', ')}**`} |`,
    ...(engine.length === 0
      ? []
      : ['', "Engine code before the first call: the engine worker, as it starts, probes the device and creates the engine it chooses (worker/engine/production-engine.ts, `ChosenEngine.setup`, run by the worker's `init`); creating llama.cpp's imports its script chunk. Its wasm and the model load on the first request."]),
    '',
    '| file | gzip | raw |',
    '|---|---|---|',
    ...w.files.map((f) => `| \`${f.name}\` | ${kb(f.gzip)} | ${kb(f.raw)} |`),
    '',
  ];
}

export async function benchWeightOnly({ outFile, noBuild, port, log, chromiumPath, chromiumArgs }) {
  const rows = weightRows(await benchWeight({ noBuild, port, log, chromiumPath, chromiumArgs }));
  console.log(rows.join('\n'));
  let text = existsSync(outFile) ? readFileSync(outFile, 'utf8') : '# Benchmarks\n';
  const at = text.indexOf(HEADING);
  if (at >= 0) {
    const end = text.indexOf('\n## ', at + 1);
    text = text.slice(0, at) + (end >= 0 ? text.slice(end + 1) : '');
  }
  writeFileSync(outFile, `${text.trimEnd()}\n\n${rows.join('\n')}`);
  log(`wrote the weight rows into ${outFile}`);
}
