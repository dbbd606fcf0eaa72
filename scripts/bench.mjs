#!/usr/bin/env node
// `npm run bench`: builds the test and production builds, serves them on 127.0.0.1, drives Debian's Chromium
// headless through the benchmark page (test/pages/bench.html) and the floor page (test/pages/floor.html, a bare
// service worker), reads heap sizes over the DevTools protocol, runs the multi-turn prefill count
// (test/bench/multi-turn.run.ts) and writes BENCHMARKS.md: one region per section (scripts/bench-regions.mjs), each
// with its own date, command and the machine's load (`uptime`) before and after; a run rewrites the regions it
// measured and keeps the rest of the file. Every service figure is taken in RUNS (3) runs and reported as median and
// range. Not part of `npm test`.
//
//   node --experimental-websocket scripts/bench.mjs [--no-build] [--quick] [--out FILE] [--only llama|hybrid|weight|kernels]
//     [--llama-size 30m|300m|1b] [--llama-type q4_k|q8_0|q4_0|f16] [--llama-pairs N] [--llama-threads 1|2] [--llama-generic N]
//
// The llama.cpp rows (production engine on the CPU, a synthesized ~30M-parameter model) are scripts/bench-llama.mjs,
// the hybrid rows (an upstream server on port base + 7, a forwarding page on base + 8) scripts/bench-hybrid.mjs; `--only llama` or `--only hybrid`
// runs them alone and writes their region of FILE. The package's weight (its tarball, and what an app's page loads
// before it can call /v1) is scripts/bench-weight.mjs, `--only weight`, on port base + 5. The per-kernel speed of
// llama.cpp's wasm kernels against wllama's generic bodies is scripts/bench-kernels.mjs, `--only kernels`.
//
// Ports and folders of its own: INPAGE_BENCH_PORT (4676) for the test build, +1 for DevTools, +2 for the
// production build; dist-test-bench/ and dist-bench/.
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chromium } from '@playwright/test';
import { benchLlama, benchLlamaOnly, llamaRegion } from './bench-llama.mjs';
import { benchHybrid, benchHybridOnly, hybridRegion } from './bench-hybrid.mjs';
import { benchWeight, benchWeightOnly, weightRegion } from './bench-weight.mjs';
import { Cdp } from './cdp.mjs';
import { metWord, regionText, stampLine, writeRegions } from './bench-regions.mjs';

const args = new Set(process.argv.slice(2));
const outFile = process.argv.includes('--out') ? process.argv[process.argv.indexOf('--out') + 1] : 'BENCHMARKS.md';
const QUICK = args.has('--quick');
const PORT = Number(process.env.INPAGE_BENCH_PORT ?? 4676);
const DEVTOOLS_PORT = PORT + 1;
const ORIGIN = `http://127.0.0.1:${PORT}`;
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// The same flags as playwright.config.ts.
const CHROMIUM_ARGS = JSON.parse(readFileSync(new URL('../test/chromium-flags.json', import.meta.url), 'utf8'));
const env = { ...process.env, INPAGE_BUILD_SUFFIX: '-bench' };

const RUNS = 3;
const REQUESTS = QUICK ? 30 : 100;
/** The TTFB rows take their requests in blocks this size, the paths in turn. */
const BLOCK = 10;
const COLD = QUICK ? 4 : 10;
const STARTS = QUICK ? 1 : 3;
const PROD_PORT = PORT + 2;
const PROD_ORIGIN = `http://127.0.0.1:${PROD_PORT}`;
const RATES = [
  { label: '50 tokens/s', delay: 20, count: 6 },
  { label: '200 tokens/s', delay: 5, count: 25 },
  { label: 'unlimited', delay: 0, count: 100 },
];
const CEILING_TOKENS = QUICK ? 5000 : 20000;
const CEILING_STREAMS = QUICK ? 3 : 21;
const SEQUENTIAL = QUICK ? 200 : 1000;
const CLIENTS = 100;
/** The pause before each TTFB row's samples, after its warm-ups. */
const SETTLE_MS = 2000;

const log = (...a) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...a);

// `--only <rows>`: one section measured alone and written into its region of FILE.
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : null;
const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim();
/** What the llama.cpp and hybrid rows take when measured alone. */
const alone = {
  outFile,
  quick: QUICK,
  noBuild: args.has('--no-build'),
  env,
  port: PORT,
  log,
  chromiumPath: CHROMIUM_PATH,
  chromiumArgs: CHROMIUM_ARGS,
  runs: QUICK ? 1 : RUNS,
  uptime,
};

if (only === 'llama') {
  await benchLlamaOnly(alone);
  process.exit(0);
}

if (only === 'kernels') {
  const { benchKernels, kernelsRegion } = await import('./bench-kernels.mjs');
  const before = uptime();
  const started = Date.now();
  const data = await benchKernels({ log });
  writeRegions(outFile, { kernels: kernelsRegion(data, { started, before, after: uptime() }) });
  log(`wrote the kernel rows into ${outFile}`);
  process.exit(0);
}

if (only === 'hybrid') {
  await benchHybridOnly(alone);
  process.exit(0);
}

if (only === 'weight') {
  await benchWeightOnly({ outFile, noBuild: args.has('--no-build'), port: PORT + 5, log, chromiumPath: CHROMIUM_PATH, chromiumArgs: CHROMIUM_ARGS, uptime });
  process.exit(0);
}

// ---- Build and serve ----

const uptimeBefore = uptime();
const runStarted = Date.now();
log(uptimeBefore);

if (!args.has('--no-build')) {
  log('building the test build into dist-test-bench/ and the production build into dist-bench/');
  execFileSync('npx', ['vite', 'build', '--mode', 'test', '--logLevel', 'warn'], { env, stdio: 'inherit' });
  execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { env, stdio: 'inherit' });
}
const servers = [];
const stopServers = () => {
  for (const server of servers) {
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
};
process.on('exit', stopServers);
async function serve(mode, port, probe) {
  log(`serving the ${mode} build on 127.0.0.1:${port}`);
  const modeArgs = mode === 'test' ? ['--mode', 'test'] : [];
  servers.push(
    spawn('npx', ['vite', 'preview', ...modeArgs, '--port', String(port), '--strictPort'], { env, stdio: ['ignore', 'pipe', 'inherit'], detached: true }),
  );
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}${probe}`)).ok) return;
    } catch {
      // not up yet
    }
    if (i > 600) throw new Error(`the ${mode} preview server did not start`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
await serve('test', PORT, '/test/pages/bench.html');
await serve('production', PROD_PORT, '/');

// ---- A raw DevTools-protocol client (flat sessions), for heap sizes of the service worker and workers ----

/** Heap in use (bytes, after a forced GC) of the service worker and of the page's hosted engine worker. */
async function heaps(cdp) {
  const { targetInfos } = await cdp.send('Target.getTargets');
  const sw = targetInfos.find((t) => t.type === 'service_worker' && t.url.startsWith(`${ORIGIN}/sw.js`));
  const page = targetInfos.find((t) => t.type === 'page' && t.url.startsWith(`${ORIGIN}/test/pages/bench.html`));
  if (!sw || !page) throw new Error(`targets not found: ${JSON.stringify(targetInfos.map((t) => [t.type, t.url]))}`);
  const attach = async (targetId) => (await cdp.send('Target.attachToTarget', { targetId, flatten: true })).sessionId;
  // Dedicated workers are children of their page: auto-attach to the page's workers to reach them.
  const pageSession = await attach(page.targetId);
  const workers = [];
  const onAttached = (msg) => {
    if (msg.method === 'Target.attachedToTarget' && msg.sessionId === pageSession) workers.push(msg.params);
  };
  cdp.listeners.push(onAttached);
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true }, pageSession);
  await new Promise((r) => setTimeout(r, 300));
  cdp.listeners.splice(cdp.listeners.indexOf(onAttached), 1);
  const engine = workers.find((w) => w.targetInfo.title === 'inpage-engine' || w.targetInfo.url.includes('engine-worker'));
  if (!engine) throw new Error(`engine worker not found: ${JSON.stringify(workers.map((w) => w.targetInfo))}`);
  const measure = async (sessionId) => {
    await cdp.send('HeapProfiler.collectGarbage', {}, sessionId);
    await cdp.send('HeapProfiler.collectGarbage', {}, sessionId);
    const { usedSize } = await cdp.send('Runtime.getHeapUsage', {}, sessionId);
    return usedSize;
  };
  const swSession = await attach(sw.targetId);
  const out = { sw: await measure(swSession), engine: await measure(engine.sessionId) };
  await cdp.send('Target.detachFromTarget', { sessionId: swSession });
  await cdp.send('Target.setAutoAttach', { autoAttach: false, waitForDebuggerOnStart: false, flatten: true }, pageSession);
  await cdp.send('Target.detachFromTarget', { sessionId: pageSession });
  return out;
}

// ---- Figures ----

const sorted = (xs) => [...xs].sort((a, b) => a - b);
/** Nearest-rank percentile. */
const pct = (xs, p) => {
  const s = sorted(xs);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};
const rate = (s) => (s.tokens > 1 ? (s.tokens / (s.total - s.ttfb)) * 1000 : NaN);
const median = (xs) => pct(xs, 50);
/** One figure over the runs: median (min–max). */
const spread = (xs, fmt) => `${fmt(median(xs))} (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})`;
const fx = (d) => (x) => x.toFixed(d);
const msf = (x) => `${x.toFixed(2)} ms`;
const mib = (b) => `${(b / 1024 / 1024).toFixed(2)} MiB`;

// ---- Run ----

// One renderer process for the site: which process a service worker starts in otherwise varies from launch to
// launch, and a worker in its page's process streams to it ~35% faster than one in another (the port-fed floor
// ran at 159-192k chunks/s in its page's process and 112-126k outside it, seen with the threads of each
// process in /proc), so the floor and inpage could be compared across different layouts.
const browser = await chromium.launch({
  executablePath: CHROMIUM_PATH,
  args: [...CHROMIUM_ARGS, `--remote-debugging-port=${DEVTOOLS_PORT}`, '--process-per-site'],
});
const context = await browser.newContext();
const page = await context.newPage();
const floorPage = await context.newPage();
const consoleErrors = [];
for (const p of [page, floorPage]) {
  p.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  p.on('pageerror', (e) => consoleErrors.push(String(e)));
}

// The deployment's settings (a page's URL cannot set queueDepth): served as /inpage.config.json.
let deployed = {};
await context.route('**/inpage.config.json', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(deployed) }));

async function open(query, config = {}) {
  deployed = config;
  await page.goto(`${ORIGIN}/test/pages/bench.html${query}`);
  await page.evaluate(async () => {
    await window.inpageReady;
    await window.bench.startDirect();
  });
}

const cdpPage = await context.newCDPSession(page);
await cdpPage.send('ServiceWorker.enable');
/** Stops every service worker of the browser (DevTools ServiceWorker.stopAllWorkers), as Chromium does when idle. */
async function stopWorkers() {
  await cdpPage.send('ServiceWorker.stopAllWorkers');
  await new Promise((r) => setTimeout(r, 300));
}

await open('');
const key = await page.evaluate(() => window.bench.makeKey('bench'));
await floorPage.goto(`${ORIGIN}/test/pages/floor.html`);
await floorPage.evaluate(() => window.floor.ready);

const floorRun = (kind, n) => floorPage.evaluate(({ kind, n }) => window.floor.run(kind, n), { kind, n });
async function floorSamples(kind, n, count, warm = 5) {
  for (let i = 0; i < warm; i++) await floorRun(kind, count);
  const out = [];
  for (let i = 0; i < n; i++) out.push(await floorRun(kind, count));
  return out;
}

/** Page start in a fresh context (cold) and on a reload of it (warm): first paint, usable, engine connected. */
async function pageStart(origin) {
  const ctx = await browser.newContext();
  await ctx.route('**/inpage.config.json', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: '{}' }));
  await ctx.addInitScript(() => {
    const marks = (window.__start = {});
    const mark = (k) => (marks[k] ??= performance.now());
    new MutationObserver(() => {
      const main = document.getElementById('main');
      if (main && !main.textContent.includes('Starting')) mark('usable');
    }).observe(document, { subtree: true, childList: true, characterData: true });
    const poll = () => (window.inpage?.engine ? mark('engine') : setTimeout(poll, 2));
    poll();
  });
  const p = await ctx.newPage();
  const measure = async () => {
    await p.waitForFunction(() => window.__start.usable !== undefined && window.__start.engine !== undefined, null, { timeout: 120000, polling: 10 });
    return p.evaluate(() => ({
      paint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
      usable: window.__start.usable,
      engine: window.__start.engine,
    }));
  };
  await p.goto(`${origin}/`);
  const cold = await measure();
  await p.reload();
  const warm = await measure();
  await ctx.close();
  return { cold, warm };
}

const runs = [];
let heap10, heapAfter, seq, warm, loadDefault, loadDeep, after;
for (let runIndex = 0; runIndex < RUNS; runIndex++) {
  const r = { overhead: [], uptime: uptime() };
  log(`run ${runIndex + 1}/${RUNS}: ${r.uptime}`);
  // The paces in a different order each run: what the step before a run's first row leaves behind (the build,
  // the last run's page starts of the production build and its load test) falls on each pace once. The 50
  // tokens/s row, always first, was always the highest.
  for (const pace of RATES.map((_, i) => RATES[(i + runIndex) % RATES.length])) {
    log(`  overhead at ${pace.label}: ${REQUESTS} streamed requests of ${pace.count} tokens each way, and the floors`);
    await open(`?tokenDelayMs=${pace.delay}`);
    // Warm-ups first, all paths, then a pause for what the page's start set going (compiles, GC) to settle.
    await page.evaluate(({ key, count }) => window.bench.overhead(key, 0, count, 10), { key, count: pace.count });
    await floorSamples('fixed', 0, pace.count, 5);
    await floorSamples('port', 0, pace.count, 5);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    // In blocks of BLOCK, each path in turn (the page's paths first in one block, the floors first in the
    // next), so a change in the machine's load falls on all paths alike.
    const sw = [];
    const direct = [];
    const fixed = [];
    const port = [];
    for (let done = 0, k = 0; done < REQUESTS; done += BLOCK, k++) {
      const n = Math.min(BLOCK, REQUESTS - done);
      const pagePaths = async () => {
        const block = await page.evaluate(({ key, n, count }) => window.bench.overhead(key, n, count, 0), { key, n, count: pace.count });
        sw.push(...block.sw);
        direct.push(...block.direct);
      };
      const floors = async () => {
        fixed.push(...(await floorSamples('fixed', n, pace.count, 0)));
        port.push(...(await floorSamples('port', n, pace.count, 0)));
      };
      for (const step of k % 2 === 0 ? [pagePaths, floors] : [floors, pagePaths]) await step();
    }
    r.overhead[RATES.indexOf(pace)] = { ...pace, sw, direct, fixed, port };
  }
  log(`  ceiling: ${CEILING_STREAMS} streams of ${CEILING_TOKENS} tokens through each path, in turn`);
  await open('');
  // One stream per path swung 3-7x between runs on this 2-core machine: take several, each path in turn,
  // and keep each path's median and the median of the per-turn ratios (7 per run still gave per-run ratios of
  // 0.72-1.13; a stream takes ~0.2 s).
  const ceil = { sw: [], direct: [], port: [], ratio: [], swBytes: [], portBytes: [] };
  for (let i = 0; i < CEILING_STREAMS; i++) {
    const c = await page.evaluate(({ key, count }) => window.bench.ceiling(key, count), { key, count: CEILING_TOKENS });
    const portCeil = await floorRun('port', CEILING_TOKENS);
    const sw = (c.sw.chunks / c.sw.ms) * 1000;
    const port = (portCeil.tokens / (portCeil.total - portCeil.ttfb)) * 1000;
    ceil.sw.push(sw);
    ceil.direct.push((c.direct.chunks / c.direct.ms) * 1000);
    ceil.port.push(port);
    ceil.ratio.push(sw / port);
    // Bytes per event (content chunks plus role, finish and [DONE]): both paths should carry the same.
    ceil.swBytes.push(c.sw.bytes / (c.sw.chunks + 3));
    ceil.portBytes.push(portCeil.bytes / (portCeil.tokens + 3));
  }
  r.ceiling = {
    sw: median(ceil.sw),
    direct: median(ceil.direct),
    port: median(ceil.port),
    ratio: median(ceil.ratio),
    swBytes: median(ceil.swBytes),
    portBytes: median(ceil.portBytes),
  };

  log(`  cold service worker: ${COLD} times stopped, then one request`);
  r.cold = [];
  r.coldBare = [];
  for (let i = 0; i < COLD; i++) {
    await stopWorkers();
    r.cold.push(await page.evaluate((key) => window.bench.swRun(key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'count 3' }] }), key));
    await stopWorkers();
    r.coldBare.push(await floorRun('fixed', 3));
  }
  await floorPage.evaluate(() => window.floor.connect());
  log(`  key-cache miss: ${COLD} new keys`);
  await open('');
  r.keyMiss = [];
  r.keyHit = [];
  for (let i = 0; i < COLD; i++) {
    r.keyMiss.push(await page.evaluate(() => window.bench.keyMiss(3)));
    r.keyHit.push(
      await page.evaluate((key) => window.bench.swRun(key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'count 3' }] }), key),
    );
  }

  log(`  page start: ${STARTS} cold and warm starts of each build`);
  r.start = { test: [], production: [] };
  for (let i = 0; i < STARTS; i++) {
    r.start.test.push(await pageStart(ORIGIN));
    r.start.production.push(await pageStart(PROD_ORIGIN));
  }

  if (runIndex === 0) {
    log(`  memory and ${SEQUENTIAL} sequential requests`);
    await open('');
    const cdp = await Cdp.connect(DEVTOOLS_PORT);
    warm = await page.evaluate(({ key }) => window.bench.sequential(key, 10, 10, 30000), { key });
    heap10 = await heaps(cdp);
    seq = await page.evaluate(({ key, n }) => window.bench.sequential(key, n, 10, 30000), { key, n: SEQUENTIAL });
    heapAfter = await heaps(cdp);
    cdp.close();
    log(`  load: ${CLIENTS} concurrent clients, default queue (16) and a queue of ${CLIENTS}`);
    await open('?tokenDelayMs=5');
    loadDefault = await page.evaluate(({ key, n }) => window.bench.load(key, n, 20, 60000), { key, n: CLIENTS });
    await open('?tokenDelayMs=5', { queueDepth: CLIENTS });
    loadDeep = await page.evaluate(({ key, n }) => window.bench.load(key, n, 20, 60000), { key, n: CLIENTS });
    after = await page.evaluate((key) => window.bench.swRun(key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'count 3' }] }), key);
  }
  runs.push(r);
}

// Nothing of the service rows stays open (their pages, workers and the engine's heartbeat wake up now and then,
// and each wake-up on this 2-core machine is taken from llama.cpp's threads).
await context.close();
/** Runs one section, and gives its figures with its stamp (when, and the load before and after it). */
async function timed(measure) {
  const before = uptime();
  const started = Date.now();
  const data = await measure();
  return { data, stamp: { started, before, after: uptime(), quick: QUICK } };
}
log('llama.cpp on the CPU: /v1 against wllama directly, 1 and 2 threads, load from the network and the cache');
const llama = await timed(() => benchLlama({ browser, runs: RUNS, quick: QUICK, noBuild: args.has('--no-build'), env, port: PORT, log }));
log("llama.cpp's wasm kernels, each against wllama's generic body (scripts/bench-kernels.mjs)");
const { benchKernels, kernelsRegion } = await import('./bench-kernels.mjs');
const kernels = await timed(() => benchKernels({ log }));
log('hybrid: through inpage to an upstream against a direct fetch to it');
const hybrid = await timed(() => benchHybrid({ browser, runs: RUNS, quick: QUICK, env, port: PORT, log }));
log('the package: npm pack, and what an app page loads before it can call /v1');
const weight = await timed(() =>
  benchWeight({ noBuild: args.has('--no-build'), port: PORT + 5, log, chromiumPath: CHROMIUM_PATH, chromiumArgs: CHROMIUM_ARGS }),
);

const chromiumVersion = browser.version();
await browser.close();
stopServers();

log('multi-turn: a 20-turn conversation through the production adapter over the typed fake; the request path');
const multiFile = `/tmp/inpage-bench-multi-turn-${process.pid}.json`;
const pathFile = `/tmp/inpage-bench-request-path-${process.pid}.json`;
execFileSync('npx', ['vitest', 'run', '--config', 'test/bench/vitest.config.ts'], {
  env: { ...env, INPAGE_BENCH_OUT: multiFile, INPAGE_BENCH_PATH_OUT: pathFile },
  stdio: 'inherit',
});
const multi = JSON.parse(readFileSync(multiFile, 'utf8'));
const requestPath = JSON.parse(readFileSync(pathFile, 'utf8'));
const uptimeAfter = uptime();

// ---- Report ----

const lines = [];
const p = (s = '') => lines.push(s);
const ttfb50 = (samples) =>
  pct(
    samples.map((s) => s.ttfb),
    50,
  );
const perRun = (f) => runs.map(f);
const targets = [];

p('The test build (the deterministic test engine from test/engine/ instead of web-llm, so the figures are the service');
p("layer's own; it yields to the event loop through a MessageChannel every 32 tokens), in headless Chromium; page");
p(`start also on the production build. Every figure is the median of ${RUNS} runs with the range (min–max) of the ${RUNS} runs'`);
p('values beside it. The machine is shared: read the load figures below before the timings.');
p();
p('### Browser and load');
p();
p(`- Browser: Chromium ${chromiumVersion} (${CHROMIUM_PATH}, headless)`);
p(`- Load before: \`${uptimeBefore}\``);
for (const [i, r] of runs.entries()) p(`- Load at run ${i + 1}: \`${r.uptime}\``);
p(`- Load after: \`${uptimeAfter}\``);
p();
p('### Time to first byte against the floors');
p();
p(`${REQUESTS} streamed requests per path, row and run, after warm-ups and a ${SETTLE_MS / 1000} s pause, taken in blocks of ${BLOCK} with the`);
p('paths in turn, the floors first in every other block (so a change in load falls on every path alike); the rows');
p('in a different order each run. *inpage* is `fetch("/v1/chat/completions", {stream: true})`');
p('through the service worker and the engine worker; *direct* is a second engine worker spoken to over a');
p('MessageChannel (no service worker). The floors are a bare service worker controlling test/pages/floor.html:');
p('*bare* answers a fixed SSE body; *port-fed* streams tokens a worker sends it over a MessagePort, 32 a message.');
p("TTFB: until the first body bytes (the role chunk) / the engine's `start` message. p50 per run, then the");
p('median (range) over the runs.');
p();
p('| test engine pace | inpage | direct | bare service worker | port-fed service worker | inpage − bare | inpage ÷ bare |');
p('|---|---|---|---|---|---|---|');
for (const [i, pace] of RATES.entries()) {
  const sw = perRun((r) => ttfb50(r.overhead[i].sw));
  const dir = perRun((r) => ttfb50(r.overhead[i].direct));
  const fixed = perRun((r) => ttfb50(r.overhead[i].fixed));
  const port = perRun((r) => ttfb50(r.overhead[i].port));
  const added = perRun((r) => ttfb50(r.overhead[i].sw) - ttfb50(r.overhead[i].fixed));
  const ratio = perRun((r) => ttfb50(r.overhead[i].sw) / ttfb50(r.overhead[i].fixed));
  pace.added = median(added);
  p(
    `| ${pace.label} (${pace.count} tokens) | ${spread(sw, msf)} | ${spread(dir, msf)} | ${spread(fixed, msf)} | ${spread(port, msf)} | ${spread(added, msf)} | ${spread(ratio, fx(2))}× |`,
  );
}
p();
p('Streaming rate at a paced engine (content tokens ÷ time from first byte to the end, p50 per run), inpage as a');
p('share of direct:');
p();
p('| test engine pace | inpage tokens/s | direct tokens/s | inpage ÷ direct |');
p('|---|---|---|---|');
for (const [i, pace] of RATES.entries()) {
  if (pace.delay === 0) continue;
  const sw = perRun((r) => median(r.overhead[i].sw.map(rate).filter(Number.isFinite)));
  const dir = perRun((r) => median(r.overhead[i].direct.map(rate).filter(Number.isFinite)));
  const share = perRun((r) => median(r.overhead[i].sw.map(rate).filter(Number.isFinite)) / median(r.overhead[i].direct.map(rate).filter(Number.isFinite)));
  pace.share = median(share);
  p(
    `| ${pace.label} | ${spread(sw, fx(1))} | ${spread(dir, fx(1))} | ${spread(
      share.map((x) => x * 100),
      fx(1),
    )} % |`,
  );
}
p();

const swCeil = perRun((r) => r.ceiling.sw);
const ceilRatio = perRun((r) => r.ceiling.ratio);
p('### Throughput ceiling');
p();
p(`${CEILING_STREAMS} streams of ${CEILING_TOKENS} tokens per path and run from the unpaced test engine, the paths in turn,`);
p('counted as SSE events arriving at the page. *direct* is the engine alone over its MessageChannel; the floor is');
p("the port-fed bare service worker. Each run's figure is the median of its streams; the ratio is the median of");
p('the ratios of streams taken one after the other.');
p();
p('| path | chunks/s | bytes per event |');
p('|---|---|---|');
p(
  `| inpage (service worker) | ${spread(swCeil, fx(0))} | ${spread(
    perRun((r) => r.ceiling.swBytes),
    fx(1),
  )} |`,
);
p(
  `| direct (engine worker alone) | ${spread(
    perRun((r) => r.ceiling.direct),
    fx(0),
  )} | (structured messages) |`,
);
p(
  `| floor: port-fed bare service worker | ${spread(
    perRun((r) => r.ceiling.port),
    fx(0),
  )} | ${spread(
    perRun((r) => r.ceiling.portBytes),
    fx(1),
  )} |`,
);
p(`| inpage ÷ floor | ${spread(ceilRatio, fx(2))}× | |`);
p();

const coldTtfb = perRun((r) => ttfb50(r.cold));
const coldBare = perRun((r) => ttfb50(r.coldBare));
const coldRatio = perRun((r) => ttfb50(r.cold) / ttfb50(r.coldBare));
p('### Cold service worker and key-cache miss');
p();
p(`${COLD} times per run: DevTools \`ServiceWorker.stopAllWorkers\` (as Chromium stops an idle worker after ~30 s), then`);
p('one streamed chat request (inpage, with a known key) or one request for the fixed body (bare floor). Key-cache');
p('miss: the first request with a key just made (the service worker verifies it: digest and IndexedDB); hit: the');
p('same request with the bench key, alternating. TTFB p50 per run.');
p();
p('| case | TTFB | ratio |');
p('|---|---|---|');
p(`| inpage, cold service worker | ${spread(coldTtfb, msf)} | ${spread(coldRatio, fx(2))}× the bare cold worker |`);
p(`| bare service worker, cold | ${spread(coldBare, msf)} | |`);
p(
  `| inpage, key-cache miss (warm worker) | ${spread(
    perRun((r) => ttfb50(r.keyMiss)),
    msf,
  )} | ${spread(
    perRun((r) => ttfb50(r.keyMiss) / ttfb50(r.keyHit)),
    fx(2),
  )}× a hit |`,
);
p(
  `| inpage, key-cache hit (warm worker) | ${spread(
    perRun((r) => ttfb50(r.keyHit)),
    msf,
  )} | |`,
);
p();

const startRows = [];
p('### Page start');
p();
p(`${STARTS} starts per build and run, each in a fresh browser context (cold: nothing cached, no service worker)`);
p('then one reload of it (warm: the service worker controls the page, the app is precached). First paint:');
p('`first-contentful-paint`; usable: the workspace UI shows its first real screen (no longer "Starting…");');
p('engine connected: `window.inpage.engine` is set (the engine worker is up and its port handed over). The');
p("production build's engine is web-llm on SwiftShader's WebGPU. Milliseconds from navigation start.");
p();
p('| build | start | first paint | usable | engine connected |');
p('|---|---|---|---|---|');
for (const build of ['test', 'production']) {
  for (const kind of ['cold', 'warm']) {
    const f = (k) => perRun((r) => median(r.start[build].map((s) => s[kind][k])));
    startRows.push({ build, kind, usable: median(f('usable')) });
    p(`| ${build} | ${kind} | ${spread(f('paint'), fx(0))} | ${spread(f('usable'), fx(0))} | ${spread(f('engine'), fx(0))} |`);
  }
}
const warmRatio = perRun((r) => median(r.start.production.map((s) => s.warm.usable)) / median(r.start.test.map((s) => s.warm.usable)));
p();
p(`Production warm reload usable ÷ test build's: ${spread(warmRatio, fx(2))}×.`);
p();

p('### Multi-turn prefill');
p();
p('A 20-turn conversation (system message, ~100-token questions and answers; the thinking variant also thinks');
p('~35 tokens a turn) through the production web-llm adapter over the typed fake (test/unit/fakes/webllm-fake.ts), which');
p('keeps or resets its KV cache as web-llm 0.2.86 does. Prefilled: tokens web-llm prefilled over all turns; new:');
p('the tokens each turn adds (its user message and the reply header; the whole first prompt); without reuse:');
p("the sum of every turn's full prompt, what web-llm prefills when it resets on every turn. Deterministic: one run.");
p();
p('| variant | turns reusing the cache | prefilled | new | prefilled ÷ new | without reuse | last prompt |');
p('|---|---|---|---|---|---|---|');
for (const m of multi) {
  const without = m.turns.reduce((n, t) => n + t.prompt, 0);
  p(
    `| ${m.model} | ${m.reused} of ${m.turns.length - 1} | ${m.prefilled} | ${m.fresh} | ${(m.prefilled / m.fresh).toFixed(2)} | ${without} | ${m.finalPrompt} |`,
  );
}
p();
p('Tokens prefilled per turn: ' + multi.map((m) => `${m.model}: ${m.turns.map((t) => t.prefilled).join(', ')}`).join('; ') + '.');
p();
p('### The path of one chat request with tools in the engine worker');
p();
p('test/bench/request-path.run.ts: one request (a tool offered, the model calls it) through the scheduler and each');
p("production engine over its fake, after a warm-up request, with V8's precise coverage: the product files (src/,");
p('worker/) with a function called, and how many functions. The request arrives checked, with its variant, as the');
p('service worker hands it over; the scheduler makes its plan (worker/engine/common/plan.ts). Deterministic: one run.');
p();
p('| engine | files | functions called | files, by calls |');
p('|---|---|---|---|');
for (const [engine, m] of Object.entries(requestPath)) {
  const byCalls = Object.entries(m.byFile)
    .sort((a, b) => b[1].calls - a[1].calls)
    .map(([file, f]) => `${file.replace(/^worker\/engine\//, '')} ${f.calls}`)
    .join(', ');
  p(`| ${engine} | ${m.files} | ${m.functions} | ${byCalls} |`);
}
p();

const row = (name, r) => `| ${name} | ${r.counts.completed} | ${r.counts.aborted} | ${r.counts['429']} | ${r.counts.error} | ${r.counts.hung} |`;
p('### Load (first run)');
p();
p('Clients are `fetch` calls from the page: even-numbered ones stream, odd ones take JSON, every fifth reads three');
p('events and aborts. "Hung" means not settled within 60 s (30 s sequentially). Each asks for 20 tokens at');
p('200 tokens/s (concurrent) or 10 unpaced tokens (sequential). A completed request was checked: the JSON content');
p('is exactly "1 2 … N", a stream ends with `data: [DONE]` and carries no error.');
p();
p('| scenario | completed | aborted (by the client) | 429 queue_full | errors | hung |');
p('|---|---|---|---|---|---|');
p(row(`${CLIENTS} concurrent, default queue (16 waiting)`, loadDefault));
p(row(`${CLIENTS} concurrent, queueDepth=${CLIENTS}`, loadDeep));
p(row(`${SEQUENTIAL} sequential (after 10 warm-up)`, seq));
p();
p(`The ${SEQUENTIAL} sequential requests took ${(seq.ms / 1000).toFixed(1)} s (${(seq.ms / SEQUENTIAL).toFixed(2)} ms each). After the load a`);
p(`further stream answered ${after.tokens} tokens normally.`);
for (const [name, r] of [
  ['default queue', loadDefault],
  ['deep queue', loadDeep],
  ['sequential', seq],
]) {
  if (r.errors.length) p(`\nErrors (${name}): ${r.errors.map((e) => '`' + e.replace(/`/g, "'").slice(0, 200) + '`').join(', ')}`);
}
p();
p('### Memory (first run)');
p();
p('JavaScript heap in use after a forced garbage collection (DevTools protocol `HeapProfiler.collectGarbage`, then');
p("`Runtime.getHeapUsage` on the service worker's and the hosted engine worker's targets).");
p();
p(`| target | after 10 requests | after ${10 + SEQUENTIAL} requests | change |`);
p('|---|---|---|---|');
p(`| service worker | ${mib(heap10.sw)} | ${mib(heapAfter.sw)} | ${((heapAfter.sw - heap10.sw) / 1024).toFixed(0)} KiB |`);
p(`| engine worker | ${mib(heap10.engine)} | ${mib(heapAfter.engine)} | ${((heapAfter.engine - heap10.engine) / 1024).toFixed(0)} KiB |`);
p();

const maxAdded = Math.max(...RATES.map((o) => o.added));
const o200 = RATES.find((o) => o.delay === 5);
const hung = loadDefault.counts.hung + loadDeep.counts.hung + seq.counts.hung;
const lost = loadDefault.counts.error + loadDeep.counts.error + seq.counts.error + (warm.counts.error + warm.counts.hung);
const growth = Math.max(heapAfter.sw - heap10.sw, heapAfter.engine - heap10.engine);
const worstMulti = Math.max(...multi.map((m) => m.prefilled / m.fresh));
targets.push(['added TTFB over the bare service worker ≤ 1 ms p50', `${msf(maxAdded)} (worst pace, median of runs)`, maxAdded <= 1]);
targets.push(['≥ 0.8× the port-fed floor in chunks/s', `${median(ceilRatio).toFixed(2)}×`, median(ceilRatio) >= 0.8]);
targets.push(['cold-worker chat TTFB ≤ 2× a bare cold service worker', `${median(coldRatio).toFixed(2)}×`, median(coldRatio) <= 2]);
targets.push(['production warm reload usable within 1.5× the test build', `${median(warmRatio).toFixed(2)}×`, median(warmRatio) <= 1.5]);
targets.push(['a 20-turn chat prefills ≤ 1.2× its new tokens', `${worstMulti.toFixed(2)}×`, worstMulti <= 1.2]);
targets.push(['streaming ≥ 98 % of direct at 200 tokens/s', `${(o200.share * 100).toFixed(1)} %`, o200.share >= 0.98]);
targets.push(['0 hung or lost requests', `${hung} hung, ${lost} errors`, hung === 0 && lost === 0]);
targets.push(['no heap growth from 10 to 1,000+ requests', `${(growth / 1024).toFixed(0)} KiB at most`, growth < 1024 * 1024]);
// 4xx answers (429 under load, the config file's 404) show as "Failed to load resource"; anything else is news.
const unexpected = consoleErrors.filter((e) => !e.startsWith('Failed to load resource'));
p(
  `Console errors during the run other than the browser's "Failed to load resource" for 4xx answers: ${unexpected.length}${unexpected.length ? ` (first: \`${unexpected[0].slice(0, 200)}\`)` : ''}.`,
);
p();

const service = regionText('The service layer', stampLine({ started: runStarted, before: uptimeBefore, after: uptimeAfter, quick: QUICK }), lines, targets);
const llamaOut = llamaRegion(llama.data, llama.stamp);
const hybridOut = hybridRegion(hybrid.data, hybrid.stamp);
writeRegions(outFile, {
  service,
  llama: llamaOut.text,
  kernels: kernelsRegion(kernels.data, kernels.stamp),
  hybrid: hybridOut.text,
  weight: weightRegion(weight.data, weight.stamp),
});
log(`wrote ${outFile} in ${((Date.now() - runStarted) / 1000).toFixed(0)} s`);
for (const [t, m, ok] of [...targets, ...llamaOut.targets, ...hybridOut.targets]) log(`${metWord(ok)} ${t}: ${m}`);
process.exit(0);
