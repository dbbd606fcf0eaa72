// The npm package as other apps get it: `npm pack` once (the build `prepack` runs), the tarball installed into
// temporary copies of the three examples with each app's own package.json (registry packages only, no path back
// into this repository), each built its own way, served, and opened in one Chromium without WebGPU, so llama.cpp
// answers from a GGUF synthesized here:
//   openai-app  inpage/vite and the openai SDK, inpage's own service worker (vite build, vite preview);
//   pwa-app     vite-plugin-pwa in injectManifest mode: the app's own worker imports inpage/sw;
//   plain-app   no Vite: plain ES modules, a hand-written Workbox worker bundled by esbuild (build.mjs, serve.mjs).
//   sub-app     openai-app at a sub-path base, `base: '/app/'` (vite build, vite preview; vite dev too): every URL
//               inpage derives under /app/, the API at /app/v1, the settings file found at the base;
// Each: a JSON answer, a stream, a tool call, and a reload offline (the page from its service worker, /v1 still
// answering), with no web-llm file fetched or kept by a CPU-only visit; openai-app and sub-app in `vite dev` too.
// And sub-app's build with the engine worker's file removed: installInpage rejects naming it, /app/v1 answers a
// 503 naming it. Run by `npm test` (test:package).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../playwright.config';
import { synthesizeGguf } from '../../scripts/gguf/synthesize';
import { ggufPath } from '../browser/llamacpp-host';
import { count, weather } from '../fixtures/tools';
import { ProcessError, Processes, suiteBound, type Managed } from '../harness/processes';
import { lockPath, packageVariant, withInpageFrom } from './variant';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OFFSET = Number(process.env.INPAGE_PORT_OFFSET ?? 0);
const PORT = 4648 + OFFSET;
const MODEL = 'svc-model-5.2-short-fast';
/** A build or an install of one app ends by then. */
const STEP_MS = 300_000;
/** A server's start (its ready line, then its first answer) ends by then. */
const SERVER_MS = 60_000;
/** The whole file ends by then, whatever it waits on (node's own per-test timeout is longer). */
const SUITE_MS = 1_500_000;
/** Which dependencies the apps install: locked (CI), the newest in their ranges, or with another Vite (variant.ts). */
const VARIANT = packageVariant();
const processes = new Processes();
suiteBound(SUITE_MS, `the package test (${VARIANT.name})`, processes);

/** A short command (a build): its output kept and shown if it fails, bounded by STEP_MS. */
const run = (cmd: string, args: string[], cwd: string) => {
  try {
    return execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', timeout: STEP_MS, maxBuffer: 64 * 1024 * 1024 });
  } catch (err) {
    const e = err as { status?: number | null; signal?: string | null; stdout?: string; stderr?: string };
    throw new Error(`${cmd} ${args.join(' ')} in ${cwd}: ${e.signal ? `ended by ${e.signal}` : `exit ${e.status}`}\n${e.stdout ?? ''}${e.stderr ?? ''}`, {
      cause: err,
    });
  }
};

/** As `run`, without holding the event loop: several can wait on npm at once. */
async function runAsync(name: string, cmd: string, args: string[], cwd: string): Promise<void> {
  const child = processes.start(name, cmd, args, { cwd });
  const exit = await Promise.race([child.exited, sleep(STEP_MS, undefined, { ref: false })]);
  if (!exit) throw new ProcessError(child, `did not end within ${STEP_MS / 1000} s`);
  if (exit.code !== 0) throw new ProcessError(child, `${cmd} ${args.join(' ')} failed (exit ${exit.code ?? exit.signal ?? exit.error})`);
}

/** Waits until a server started by `serve` says it listens and answers at `url`; fails at once if it exits. */
async function ready(server: Managed, url: string): Promise<void> {
  await server.waitForLine(/Local:\s+http|^http:\/\/127\.0\.0\.1/, SERVER_MS);
  await server.waitForUrl(url, SERVER_MS);
}

interface Example {
  name: string;
  /** The folder of examples/ it is copied from (default: its name). */
  from?: string;
  /** The app's base path (default `/`). */
  base?: string;
  port: number;
  /** The app's build, in its folder. */
  build: (dir: string) => void;
  /** The app's server, serving its dist/ on `port` (started through `processes`). */
  serve: (dir: string, port: number) => Managed;
  /** Whether the app is built with Vite (the apps a Vite variant runs). */
  vite: boolean;
  /** The script of the service worker that must control the app's pages. */
  worker: string;
}

const vitePreview = (dir: string, port: number) =>
  processes.start(`vite preview :${port}`, 'npx', ['vite', 'preview', '--port', String(port), '--strictPort'], { cwd: dir });
/** The app at a sub-path: openai-app's files, its Vite config given `base: '/app/'`. */
const SUB_BASE = '/app/';
const SUB_APP_CONFIG = `import { defineConfig } from 'vite';
import { inpage } from 'inpage/vite';

export default defineConfig({ base: '${SUB_BASE}', plugins: [inpage()], build: { target: 'es2022' }, preview: { host: '127.0.0.1' }, server: { host: '127.0.0.1' } });
`;
const ALL_EXAMPLES: Example[] = [
  {
    name: 'openai-app',
    port: PORT,
    build: (dir) => run('npx', ['vite', 'build', '--logLevel', 'warn'], dir),
    serve: vitePreview,
    worker: '/inpage-sw.js',
    vite: true,
  },
  {
    name: 'pwa-app',
    port: 4649 + OFFSET,
    build: (dir) => run('npx', ['vite', 'build', '--logLevel', 'warn'], dir),
    serve: vitePreview,
    worker: '/sw.js',
    vite: true,
  },
  {
    name: 'plain-app',
    port: 4651 + OFFSET,
    build: (dir) => run('node', ['build.mjs'], dir),
    serve: (dir, port) => processes.start(`plain-app serve.mjs :${port}`, 'node', ['serve.mjs'], { cwd: dir, env: { ...process.env, PORT: String(port) } }),
    worker: '/sw.js',
    vite: false,
  },
  {
    name: 'sub-app',
    from: 'openai-app',
    base: SUB_BASE,
    port: 4656 + OFFSET,
    build: (dir) => run('npx', ['vite', 'build', '--logLevel', 'warn'], dir),
    serve: vitePreview,
    worker: `${SUB_BASE}inpage-sw.js`,
    vite: true,
  },
];
/** The apps this variant runs: with another Vite than the examples name, the ones Vite builds. */
const EXAMPLES = ALL_EXAMPLES.filter((e) => e.vite || !VARIANT.vite);

interface Answer {
  status: number;
  text: string;
}

/** A /v1 request from the app's page, with the key the app's inpage makes (window.inpage, as each example exposes it). */
async function v1(page: Page, path: string, body?: Record<string, unknown>): Promise<Answer> {
  return page.evaluate(
    async ({ path, body }) => {
      const inpage = (window as unknown as { inpage: { baseURL: string; key(name: string): Promise<string> } }).inpage;
      const res = await fetch(`${inpage.baseURL}${path}`, {
        method: body ? 'POST' : 'GET',
        headers: { authorization: `Bearer ${await inpage.key('package-test')}`, 'content-type': 'application/json' },
        body: body && JSON.stringify(body),
      });
      return { status: res.status, text: await res.text() };
    },
    { path, body },
  );
}

/** The JSON of an answer that must be a 200 (the error body in the failure message otherwise). */
function json<T>(answer: Answer, what: string): T {
  assert.equal(answer.status, 200, `${what}: ${answer.text}`);
  return JSON.parse(answer.text) as T;
}

interface Completion {
  object: string;
  model: string;
  choices: {
    message: { role: string; content: string | null; tool_calls?: { type: string; function: { name: string; arguments: string } }[] };
    finish_reason: string;
  }[];
  usage: { prompt_tokens: number; completion_tokens: number };
}

/** A plain answer: the synthesized model's free text, from the engine (not an error), with its usage. */
async function expectJsonAnswer(page: Page, what: string): Promise<void> {
  const completion = json<Completion>(
    await v1(page, '/chat/completions', { model: MODEL, messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8, seed: 1 }),
    what,
  );
  assert.equal(completion.object, 'chat.completion', what);
  assert.equal(completion.model, MODEL, what);
  const choice = completion.choices[0]!;
  assert.equal(choice.message.role, 'assistant', what);
  assert.match(choice.message.content ?? '', /^[\x20-\x7e]+$/, `${what}: ${JSON.stringify(choice.message)}`);
  assert.ok(['stop', 'length'].includes(choice.finish_reason), `${what}: ${choice.finish_reason}`);
  assert.ok(
    completion.usage.prompt_tokens > 0 && completion.usage.completion_tokens > 0 && completion.usage.completion_tokens <= 8,
    `${what}: ${JSON.stringify(completion.usage)}`,
  );
}

async function expectStream(page: Page, what: string): Promise<void> {
  const answer = await v1(page, '/chat/completions', { model: MODEL, messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8, seed: 2, stream: true });
  assert.equal(answer.status, 200, `${what}: ${answer.text}`);
  const events = answer.text
    .split('\n\n')
    .filter((block) => block.length > 0)
    .map((block) => {
      assert.ok(block.startsWith('data: '), `${what}: not an SSE event: ${block}`);
      return block.slice('data: '.length);
    });
  assert.equal(events.at(-1), '[DONE]', what);
  const chunks = events
    .slice(0, -1)
    .map((e) => JSON.parse(e) as { object: string; choices: { delta: { content?: string | null }; finish_reason: string | null }[] });
  assert.ok(
    chunks.every((c) => c.object === 'chat.completion.chunk'),
    what,
  );
  const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
  assert.match(text, /^[\x20-\x7e]+$/, `${what}: ${text}`);
  assert.ok(['stop', 'length'].includes(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason ?? ''), what);
}

/** A call forced by naming the function: held to the tool's schema by llama.cpp's grammar. */
async function expectToolCall(page: Page, what: string): Promise<void> {
  // As test/browser/llamacpp-tools.prod.spec.ts asks it (the synthesized model's sampling, seeded), with room
  // for the grammar's whitespace.
  const body = {
    model: MODEL,
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
    tools: [weather, count],
    tool_choice: { type: 'function', function: { name: 'get_weather' } },
    parallel_tool_calls: false,
    temperature: 1,
    seed: 11,
    max_tokens: 160,
  };
  const choice = json<Completion>(await v1(page, '/chat/completions', body), what).choices[0]!;
  assert.equal(choice.finish_reason, 'tool_calls', `${what}: ${JSON.stringify(choice.message)}`);
  assert.equal(choice.message.content, null, what);
  assert.equal(choice.message.tool_calls?.length, 1, what);
  const call = choice.message.tool_calls![0]!;
  assert.equal(call.type, 'function', what);
  assert.equal(call.function.name, 'get_weather', what);
  const args = JSON.parse(call.function.arguments) as { city: string; unit: string };
  assert.deepEqual(Object.keys(args).sort(), ['city', 'unit'], `${what}: ${call.function.arguments}`);
  assert.ok(['Paris', 'Tokyo', 'Oslo'].includes(args.city) && ['c', 'f'].includes(args.unit), `${what}: ${call.function.arguments}`);
}

/** openai-app's own form: the openai SDK's answer, and llama.cpp's files kept for offline use by inpage's worker. */
async function openaiSdkAnswers(page: Page): Promise<void> {
  assert.equal(await page.locator('#models').textContent(), `${MODEL} (not_downloaded)`);
  await page.fill('#question', 'Hello');
  await page.click('#ask button');
  await page.waitForFunction(() => /^(Done\.|Failed)/.test(document.querySelector('#status')?.textContent ?? ''), null, { timeout: 120_000 });
  assert.equal(await page.locator('#status').textContent(), 'Done.');
  assert.match((await page.locator('#answer').textContent()) ?? '', /^[\x20-\x7e]+$/);
}

/** Every URL the caches hold, by cache. */
async function cached(page: Page): Promise<Record<string, string[]>> {
  return page.evaluate(async () => {
    const out: Record<string, string[]> = {};
    for (const name of await caches.keys()) out[name] = (await (await caches.open(name)).keys()).map((r) => new URL(r.url).pathname).sort();
    return out;
  });
}

/**
 * A CPU-only visit, after its first answers: the precache holds no engine's own file, llama.cpp's (its chunk and
 * wasm) were kept on first use in their own cache, and nothing of web-llm was fetched or kept.
 */
function onlyWhatTheDeviceRuns(caches: Record<string, string[]>, requested: string[], base: string, what: string): void {
  const all = Object.values(caches).flat();
  assert.deepEqual(
    all.filter((path) => /engine-webllm/.test(path)),
    [],
    `${what}: web-llm kept`,
  );
  assert.deepEqual(
    requested.filter((path) => /engine-webllm/.test(path)),
    [],
    `${what}: web-llm fetched`,
  );
  const precache = Object.entries(caches)
    .filter(([name]) => name.startsWith('workbox-precache'))
    .flatMap(([, paths]) => paths);
  assert.deepEqual(
    precache.filter((path) => /engine-(webllm|llamacpp)|\.wasm$/.test(path)),
    [],
    `${what}: engine files precached`,
  );
  // llama.cpp's own cache: its script chunk and its wasm, at the app's base, and nothing else.
  const llama = caches['inpage-engine-llamacpp'] ?? [];
  const ours = new RegExp(`^${base}inpage-(engine-llamacpp-[\\w-]+\\.js|wllama-[\\w-]+\\.wasm)$`);
  assert.deepEqual(
    llama.filter((path) => !ours.test(path)),
    [],
    what,
  );
  assert.ok(llama.some((p) => p.endsWith('.js')) && llama.some((p) => p.endsWith('.wasm')), `${what}: ${JSON.stringify(caches)}`);
}

/** Opens the app and waits until it says Ready. (its inpage installed, /v1/models read). */
async function openApp(page: Page, origin: string, heard: string[], base = '/'): Promise<void> {
  await page.goto(`${origin}${base}`);
  await page
    .waitForFunction(() => document.querySelector('#status')?.textContent === 'Ready.', null, { timeout: 60_000 })
    .catch(async (err: unknown) => {
      throw new Error(`the app did not start: ${await page.locator('#status').textContent()}\n${heard.join('\n')}\n${String(err)}`);
    });
}

describe(`the packed package in fresh apps (${VARIANT.name})`, { timeout: SUITE_MS }, () => {
  const work = mkdtempSync(join(tmpdir(), 'inpage-package-'));
  const dirs = Object.fromEntries(EXAMPLES.map((e) => [e.name, join(work, e.name)]));
  let files: string[] = [];
  let browser: Browser | undefined;

  before(
    async () => {
      // What `prepack` runs, with its log apart from npm's JSON.
      run('node', ['scripts/build-pkg.mjs'], ROOT);
      // `npm pack --dry-run --json` lists what `npm pack` puts in the tarball; the same listing comes with the pack.
      const packed = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], ROOT)) as {
        filename: string;
        files: { path: string }[];
      }[];
      // The apps' package.json name the tarball at one path (their lockfiles too: variant.ts).
      copyFileSync(join(work, packed[0]!.filename), join(work, 'inpage.tgz'));
      files = packed[0]!.files.map((f) => f.path);
      // The deployment's model: a GGUF synthesized here, served by each app's own server at /gguf.
      const model = synthesizeGguf({ seed: 7 });
      // The apps' installs side by side (mostly waiting on npm's cache), then each build.
      await Promise.all(
        EXAMPLES.map(async (example) => {
          const app = dirs[example.name]!;
          const from = example.from ?? example.name;
          cpSync(join(ROOT, 'examples', from), app, {
            recursive: true,
            filter: (src) => !src.includes('node_modules') && !/[/\\]dist$/.test(src),
          });
          if (example.base) writeFileSync(join(app, 'vite.config.js'), SUB_APP_CONFIG);
          const manifest = withInpageFrom(JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as Record<string, unknown>, '../inpage.tgz', VARIANT);
          writeFileSync(join(app, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
          const lock = lockPath(VARIANT, from);
          if (VARIANT.locked) {
            // What the developers tested: the app's dependencies exactly as locked (`npm ci`), inpage from the tarball.
            assert.ok(existsSync(lock), `no lockfile ${lock} for ${from} (${VARIANT.name}): make it with npm run test:package -- --update-locks`);
            copyFileSync(lock, join(app, 'package-lock.json'));
            await runAsync(`npm ci (${example.name})`, 'npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], app);
          } else {
            // What a user installs today: the newest release in each range.
            await runAsync(`npm install (${example.name})`, 'npm', ['install', '--no-audit', '--no-fund', '--prefer-online'], app);
          }
        }),
      );
      if (VARIANT.updateLocks)
        for (const example of EXAMPLES) if (!example.from) VARIANT.saveLock(example.name, join(dirs[example.name]!, 'package-lock.json'));
      for (const example of EXAMPLES) {
        const app = dirs[example.name]!;
        example.build(app);
        const gguf = join(app, 'dist/gguf', ggufPath('qwen3-1.7b'));
        mkdirSync(dirname(gguf), { recursive: true });
        writeFileSync(gguf, model.bytes);
        // At the app's base: the model's files too (found only through this file: the default source is the Hub).
        writeFileSync(join(app, 'dist/inpage.config.json'), JSON.stringify({ ggufBaseUrl: `${example.base ?? '/'}gguf` }));
      }
      // Each server: its ready line, then its first answer; one that exits fails here at once, saying why.
      await Promise.all(
        EXAMPLES.map((example) => ready(example.serve(dirs[example.name]!, example.port), `http://127.0.0.1:${example.port}${example.base ?? '/'}`)),
      );
      browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS.filter((a) => !/webgpu|swiftshader/i.test(a)) });
    },
    { timeout: 900_000 },
  );

  after(async () => {
    await browser?.close().catch(() => undefined);
    await processes.stopAll();
    rmSync(work, { recursive: true, force: true });
  });

  test('the tarball (npm pack’s listing) holds the built library, the plugin and their types, and nothing of the tests', () => {
    for (const f of [
      'package.json',
      'dist-pkg/config.schema.json',
      'dist-pkg/sw.js',
      'dist-pkg/lib/inpage-sw-guest.js',
      'dist-pkg/lib/inpage.js',
      'dist-pkg/lib/inpage-sw.js',
      'dist-pkg/vite.js',
      'dist-pkg/types/src/lib/inpage.d.ts',
      'dist-pkg/types/src/lib/vite.d.ts',
    ]) {
      assert.ok(files.includes(f), f);
    }
    assert.ok(
      files.some((f) => /^dist-pkg\/lib\/inpage-wllama-[\w-]+\.wasm$/.test(f)),
      'llama.cpp wasm',
    );
    assert.deepEqual(
      files.filter((f) => /^(test|src|worker|scripts|examples)\//.test(f) || /deterministic|fixture|\.map$/i.test(f)),
      [],
    );
    // No file carries the deterministic test engine (its answers start "Echo: "), whatever its name.
    const scripts = files.filter((f) => f.startsWith('dist-pkg/') && f.endsWith('.js'));
    assert.ok(scripts.length > 10);
    assert.deepEqual(
      scripts.filter((f) => readFileSync(join(ROOT, f), 'utf8').includes('Echo: ')),
      [],
    );
    const installed = JSON.parse(readFileSync(join(dirs['openai-app']!, 'node_modules/inpage/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      license: string;
    };
    assert.deepEqual(Object.keys(installed.dependencies), ['workbox-build']);
    // The declarations name no repository-only import (`#shared/…` points into src/, which is not shipped).
    const declarations = files.filter((f) => f.endsWith('.d.ts'));
    assert.ok(declarations.some((f) => f.startsWith('dist-pkg/types/src/shared/')));
    assert.deepEqual(
      declarations.filter((f) => readFileSync(join(ROOT, f), 'utf8').includes("'#shared/")),
      [],
    );
    assert.equal(installed.license, 'MIT');
  });

  test('the tarball carries inpage’s licence and the notices of every package its files bundle; the plugin puts them in an app’s build', () => {
    const inpage = join(dirs['openai-app']!, 'node_modules/inpage');
    assert.equal(readFileSync(join(inpage, 'LICENSE'), 'utf8'), readFileSync(join(ROOT, 'LICENSE'), 'utf8'));
    assert.match(readFileSync(join(inpage, 'LICENSE'), 'utf8'), /^MIT License\n/);
    // What the library, the plugin and the guest worker bundle (scripts/notices.ts reads the bundler's module list).
    // (The MCP client, @modelcontextprotocol/sdk, brings its dependencies into the service worker but ajv, which the
    // builds leave out (scripts/mcp-client-alias.ts), and the bundler its runtime helpers.)
    const bundled = [
      '@mlc-ai/web-llm',
      '@modelcontextprotocol/sdk',
      '@wllama/wllama',
      '@wllama/wllama-compat',
      'comlink',
      'content-type',
      'eventsource',
      'eventsource-parser',
      'hono',
      'idb',
      'pkce-challenge',
      'rolldown',
      'workbox-core',
      'workbox-precaching',
      'workbox-routing',
      'workbox-strategies',
      'zod',
    ];
    for (const file of ['dist-pkg/THIRD-PARTY-NOTICES.txt', 'dist-pkg/lib/inpage-third-party-notices.txt']) {
      assert.ok(files.includes(file), file);
      const notices = readFileSync(join(inpage, file), 'utf8');
      assert.match(notices, /^inpage 0\.1\.0 \(MIT\) and the third-party software it bundles\.\n/, file);
      const listed = [...notices.matchAll(/^ {2}(\S+) (\S+) — (.+)$/gm)].map((m) => m[1]);
      assert.deepEqual(listed, bundled, file);
      for (const name of bundled) {
        const { version } = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string };
        assert.ok(notices.includes(`\n${name} ${version} — `), `${file}: ${name} ${version}`);
      }
      assert.match(notices, /Apache License\s+Version 2\.0/, file);
      assert.match(notices, /Copyright \(c\) 2023-2024 The ggml authors/, file);
    }
    // inpage/vite copies lib/ (its notices included) into the app's build.
    assert.equal(
      readFileSync(join(dirs['openai-app']!, 'dist/inpage-third-party-notices.txt'), 'utf8'),
      readFileSync(join(inpage, 'dist-pkg/lib/inpage-third-party-notices.txt'), 'utf8'),
    );
  });

  test('the plugin’s build carries inpage at the app’s root, its service worker listing the app for offline use', () => {
    const app = dirs['openai-app']!;
    const dist = readdirSync(join(app, 'dist'));
    for (const f of ['index.html', 'inpage.js', 'inpage-sw.js']) assert.ok(dist.includes(f), f);
    const sw = readFileSync(join(app, 'dist/inpage-sw.js'), 'utf8');
    assert.match(sw, /"url":"index\.html"/);
    assert.match(sw, /"url":"inpage\.js"/);
    // The app's bundle imports inpage.js from the app's root at run time; it does not carry a copy of inpage.
    const assets = readdirSync(join(app, 'dist/assets'));
    assert.deepEqual(
      assets.filter((f) => f.startsWith('inpage')),
      [],
    );
    const bundles = assets.filter((f) => f.endsWith('.js')).map((f) => readFileSync(join(app, 'dist/assets', f), 'utf8'));
    assert.ok(bundles.some((text) => /from\s*["']\/inpage\.js["']/.test(text)));
    assert.ok(bundles.every((text) => !text.includes('function installInpage') && !text.includes('inpage-sw.js')));
  });

  test('the apps with their own worker precache their pages and inpage’s scripts in it, with inpage inside', () => {
    for (const name of ['pwa-app', 'plain-app'].filter((n) => n in dirs)) {
      const sw = readFileSync(join(dirs[name]!, 'dist/sw.js'), 'utf8');
      assert.match(sw, /"url":"index\.html"/, name);
      assert.match(sw, /"url":"inpage\.js"/, name);
      assert.match(sw, /"url":"inpage-engine-worker-[\w-]+\.js"/, name);
      // inpage/sw is bundled in (its ping answer), and Workbox's placeholder was replaced once.
      assert.match(sw, /inpage:pong/, name);
      assert.doesNotMatch(sw, /self\.__WB_MANIFEST/, name);
      // inpage's own stand-alone worker is not in a build whose app has its own.
      assert.ok(!existsSync(join(dirs[name]!, 'dist/inpage-sw.js')), `${name}: no inpage-sw.js`);
      assert.doesNotMatch(sw, /"url":"inpage-sw\.js"/, name);
    }
  });

  for (const example of EXAMPLES) {
    test(`${example.name}: JSON, a stream and a tool call from llama.cpp (openai-app: through the SDK too), then a reload offline still answers`, async () => {
      const origin = `http://127.0.0.1:${example.port}`;
      const base = example.base ?? '/';
      const context: BrowserContext = await browser!.newContext();
      const page = await context.newPage();
      const heard: string[] = [];
      const requested: string[] = [];
      page.on('console', (m) => heard.push(`${m.type()}: ${m.text()}`));
      page.on('pageerror', (e) => heard.push(`pageerror: ${e.message}`));
      // Requests to servers (not the blob: URLs wllama starts its workers from).
      page.on('request', (r) => void (/^https?:/.test(r.url()) && requested.push(new URL(r.url()).pathname)));
      await openApp(page, origin, heard, base);
      // One worker, the app's (or inpage's own in openai-app), controls the page, cross-origin isolated.
      const workers = await page.evaluate(async () => ({
        controller: navigator.serviceWorker.controller?.scriptURL,
        registered: (await navigator.serviceWorker.getRegistrations()).map((r) => [r.active?.scriptURL, r.scope]),
        isolated: crossOriginIsolated,
        baseURL: (window as unknown as { inpage: { baseURL: string } }).inpage.baseURL,
      }));
      assert.deepEqual(workers, {
        controller: `${origin}${example.worker}`,
        registered: [[`${origin}${example.worker}`, `${origin}${base}`]],
        isolated: true,
        baseURL: `${origin}${base}v1`,
      });
      const models = json<{ data: { id: string }[] }>(await v1(page, '/models'), 'models');
      assert.deepEqual(
        models.data.map((m) => m.id),
        [MODEL],
      );
      await expectJsonAnswer(page, `${example.name} JSON`);
      await expectStream(page, `${example.name} stream`);
      await expectToolCall(page, `${example.name} tool call`);
      // The app's own form (no max_tokens: as long as the model goes on), once: the sub-path copy's calls above use the same baseURL.
      if (example.name === 'openai-app') await openaiSdkAnswers(page);
      onlyWhatTheDeviceRuns(await cached(page), requested, base, example.name);
      // Nothing of inpage was asked for outside the app's base (its settings file, its scripts, the API).
      assert.deepEqual(
        requested.filter((path) => !path.startsWith(base)),
        [],
        example.name,
      );

      // Offline: the page comes from its service worker's precache, and /v1 still answers from the model kept.
      await context.setOffline(true);
      await page.reload();
      await openApp(page, origin, heard, base);
      assert.equal(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL), `${origin}${example.worker}`);
      await expectJsonAnswer(page, `${example.name} JSON offline`);
      await context.close();
    });
  }

  test("sub-app: the API lives at <base>v1; a request that reaches the server there gets the contract's 503, and / is not inpage's", async () => {
    const origin = `http://127.0.0.1:${4656 + OFFSET}`;
    const res = await fetch(`${origin}${SUB_BASE}v1/models`);
    assert.equal(res.status, 503);
    const body = (await res.json()) as { error: { code: string; type: string; message: string } };
    assert.equal(body.error.code, 'service_unavailable');
    assert.match(body.error.message, /inpage's service worker is not running/);
    assert.notEqual((await fetch(`${origin}/v1/models`)).status, 503);
  });

  test("sub-app built without its engine worker's file: installInpage rejects naming the file, and /app/v1 answers a 503 naming it", async () => {
    const app = dirs['sub-app']!;
    // The deploy that dropped a file: the engine worker's script, and the settings file (the defaults then apply, said
    // once). A project folder of its own (the app's files, its node_modules linked): Vite 8.4 and later refuse a second
    // `vite preview` of one project while the first runs.
    const broken = join(dirname(app), 'sub-app-broken');
    cpSync(app, broken, { recursive: true, filter: (src) => !/[/\\](node_modules|dist|public)$/.test(src) });
    symlinkSync(join(app, 'node_modules'), join(broken, 'node_modules'), 'dir');
    cpSync(join(app, 'dist'), join(broken, 'dist'), { recursive: true });
    const dropped = readdirSync(join(broken, 'dist')).filter((f) => /^inpage-engine-worker-[\w-]+\.js$/.test(f));
    assert.equal(dropped.length, 1);
    rmSync(join(broken, 'dist', dropped[0]!));
    rmSync(join(broken, 'dist/inpage.config.json'));
    const port = 4657 + OFFSET;
    const origin = `http://127.0.0.1:${port}`;
    await ready(vitePreview(broken, port), `${origin}${SUB_BASE}`);
    const context = await browser!.newContext();
    const page = await context.newPage();
    const heard: string[] = [];
    const failed = new Promise<string>((resolve) => page.on('pageerror', (e) => resolve(e.message)));
    page.on('console', (m) => heard.push(`${m.type()}: ${m.text()}`));
    await page.goto(`${origin}${SUB_BASE}`);
    // main.js's `await installInpage(…)` rejects (an uncaught error of the page's module).
    const script = `${origin}${SUB_BASE}${dropped[0]}`;
    const message = await failed;
    // (A server answers 404, or its fallback page, which is not JavaScript.)
    assert.ok(
      /^\(HTTP 404|served as text\/html/.test(message.slice(`The engine worker failed to start: its script ${script} could not be loaded `.length)),
      message,
    );
    assert.ok(message.startsWith(`The engine worker failed to start: its script ${script} could not be loaded (`), message);
    assert.match(message, /check that inpage's files \(inpage-\*\.js\) are all deployed beside inpage\.js/);
    assert.equal(await page.locator('#status').textContent(), 'Starting inpage…');
    // The missing settings file is said once: the defaults apply.
    const said = heard.filter((line) => line.includes('no settings file at'));
    // (vite preview answers a path it does not have with the app's index.html.)
    assert.equal(said.length, 1, said.join('\n'));
    assert.match(
      said[0]!,
      new RegExp(
        `^info: inpage: no settings file at ${origin}${SUB_BASE}inpage\\.config\\.json \\((HTTP 404|served as text/html[^)]*, not JSON)\\): the default settings apply \\(docs/configuration\\.md\\)\\.$`,
      ),
    );
    // The API meanwhile: a client of the app (one that does not host the engine) gets the 503, naming the same cause.
    const answer = await page.evaluate(async () => {
      const setup = `${location.pathname}inpage.js`;
      const { installInpage } = (await import(setup)) as { installInpage(o: object): Promise<{ baseURL: string; key(name: string): Promise<string> }> };
      const inpage = await installInpage({ models: ['svc-model-5.2-short-fast'], hostEngine: false });
      const res = await fetch(`${inpage.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await inpage.key('broken')}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'svc-model-5.2-short-fast', messages: [{ role: 'user', content: 'Hello' }] }),
      });
      return { status: res.status, body: (await res.json()) as { error: { code: string; message: string } } };
    });
    assert.equal(answer.status, 503);
    assert.equal(answer.body.error.code, 'engine_unavailable');
    assert.ok(answer.body.error.message.includes(message), answer.body.error.message);
    await context.close();
  });

  for (const [name, port] of [
    ['openai-app', 4652 + OFFSET],
    ['sub-app', 4658 + OFFSET],
  ] as const) {
    test(`${name} in \`vite dev\`: the plugin serves inpage there too, and llama.cpp answers`, async () => {
      const example = EXAMPLES.find((e) => e.name === name)!;
      const base = example.base ?? '/';
      // The deployment's model and settings, as vite dev serves them: from the app's public folder.
      const app = dirs[name]!;
      cpSync(join(app, 'dist/gguf'), join(app, 'public/gguf'), { recursive: true });
      cpSync(join(app, 'dist/inpage.config.json'), join(app, 'public/inpage.config.json'));
      const origin = `http://127.0.0.1:${port}`;
      await ready(processes.start(`vite dev :${port} (${name})`, 'npx', ['vite', '--port', String(port), '--strictPort'], { cwd: app }), `${origin}${base}`);
      const context = await browser!.newContext();
      const page = await context.newPage();
      const heard: string[] = [];
      page.on('console', (m) => heard.push(`${m.type()}: ${m.text()}`));
      await openApp(page, origin, heard, base);
      assert.equal(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL), `${origin}${base}inpage-sw.js`);
      assert.equal(await page.evaluate(() => crossOriginIsolated), true);
      await expectJsonAnswer(page, `${name} vite dev JSON`);
      if (example.base) {
        await expectStream(page, `${name} vite dev stream`);
        await expectToolCall(page, `${name} vite dev tool call`);
      }
      await context.close();
    });
  }

  test('pwa-app: inpage never registers a second worker over the app’s own; it refuses with an error naming both', async () => {
    const origin = `http://127.0.0.1:${4649 + OFFSET}`;
    const context = await browser!.newContext();
    const page = await context.newPage();
    await openApp(page, origin, []);
    const refused = await page.evaluate(async () => {
      const setup = '/inpage.js';
      const { installInpage } = (await import(setup)) as { installInpage(o: object): Promise<unknown> };
      return installInpage({ models: ['svc-model-5.2-short-fast'], hostEngine: false }).then(
        () => 'installed',
        (err: Error) => err.message,
      );
    });
    assert.match(
      refused,
      new RegExp(`already has a service worker at scope ${origin}/ \\(${origin}/sw\\.js\\); registering inpage's \\(/inpage-sw\\.js\\) there would replace it`),
    );
    const registered = await page.evaluate(async () =>
      (await navigator.serviceWorker.getRegistrations()).map((r) => [r.active?.scriptURL, r.installing, r.waiting]),
    );
    assert.deepEqual(registered, [[`${origin}/sw.js`, null, null]]);
    await context.close();
  });
});
