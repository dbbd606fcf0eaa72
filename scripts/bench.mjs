#!/usr/bin/env node
// `npm run bench`: builds the test build, serves it on 127.0.0.1, drives Debian's Chromium headless through
// the benchmark page (test/pages/bench.html), reads heap sizes over the DevTools protocol, and writes
// BENCHMARKS.md. Not part of `npm test`.
//
//   node --experimental-websocket scripts/bench.mjs [--no-build] [--quick] [--out FILE]
//
// Ports and folders of its own: INPAGE_BENCH_PORT (4676) for the server, +1 for DevTools, dist-test-bench/.
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { chromium } from '@playwright/test';

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

const REQUESTS = QUICK ? 40 : 200;
const RATES = [
  { label: '50 tokens/s', delay: 20, count: 6 },
  { label: '200 tokens/s', delay: 5, count: 25 },
  { label: 'unlimited', delay: 0, count: 100 },
];
const CEILING_TOKENS = QUICK ? 5000 : 20000;
const CEILING_REPEATS = 3;
const SEQUENTIAL = QUICK ? 200 : 1000;
const CLIENTS = 100;

const log = (...a) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...a);

// ---- Build and serve ----

if (!args.has('--no-build')) {
  log('building the test build into dist-test-bench/');
  execFileSync('npx', ['vite', 'build', '--mode', 'test', '--logLevel', 'warn'], { env, stdio: 'inherit' });
}
log(`serving on ${ORIGIN}`);
const server = spawn('npx', ['vite', 'preview', '--mode', 'test', '--port', String(PORT), '--strictPort'], { env, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
const stopServer = () => {
  try {
    process.kill(-server.pid, 'SIGTERM');
  } catch {
    // already gone
  }
};
process.on('exit', stopServer);
for (let i = 0; ; i++) {
  try {
    if ((await fetch(`${ORIGIN}/test/pages/bench.html`)).ok) break;
  } catch {
    // not up yet
  }
  if (i > 300) throw new Error('the preview server did not start');
  await new Promise((r) => setTimeout(r, 100));
}

// ---- A raw DevTools-protocol client (flat sessions), for heap sizes of the service worker and workers ----

class Cdp {
  static async connect(port) {
    const version = await (await fetch(`http://127.0.0.1:${port}/json/version`)).json();
    const cdp = new Cdp(new WebSocket(version.webSocketDebuggerUrl));
    await new Promise((resolve, reject) => {
      cdp.ws.addEventListener('open', resolve, { once: true });
      cdp.ws.addEventListener('error', reject, { once: true });
    });
    return cdp;
  }
  constructor(ws) {
    this.ws = ws;
    this.id = 0;
    this.calls = new Map();
    this.listeners = [];
    ws.addEventListener('message', (e) => {
      const msg = JSON.parse(String(e.data));
      if (msg.id !== undefined) {
        const call = this.calls.get(msg.id);
        this.calls.delete(msg.id);
        if (msg.error) call?.reject(new Error(`${call.method}: ${msg.error.message}`));
        else call?.resolve(msg.result);
      } else {
        for (const l of this.listeners) l(msg);
      }
    });
  }
  send(method, params = {}, sessionId) {
    const id = ++this.id;
    this.ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    return new Promise((resolve, reject) => this.calls.set(id, { resolve, reject, method }));
  }
  close() {
    this.ws.close();
  }
}

/** Heap in use (bytes, after a forced GC) of the service worker and of the page's hosted engine worker. */
async function heaps(cdp) {
  const { targetInfos } = await cdp.send('Target.getTargets');
  const sw = targetInfos.find((t) => t.type === 'service_worker' && t.url.startsWith(ORIGIN));
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
const ms = (x) => `${x.toFixed(2)} ms`;
const rate = (s) => (s.tokens > 1 ? (s.tokens / (s.total - s.ttfb)) * 1000 : NaN);
const mib = (b) => `${(b / 1024 / 1024).toFixed(2)} MiB`;

// ---- Run ----

const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, `--remote-debugging-port=${DEVTOOLS_PORT}`] });
const context = await browser.newContext();
const page = await context.newPage();
const consoleErrors = [];
page.on('console', (m) => {
  if (m.type() === 'error') consoleErrors.push(m.text());
});
page.on('pageerror', (e) => consoleErrors.push(String(e)));

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

const started = Date.now();
await open('');
const key = await page.evaluate(() => window.bench.makeKey('bench'));

const overhead = [];
for (const r of RATES) {
  log(`overhead at ${r.label}: ${REQUESTS} streamed requests of ${r.count} tokens each way`);
  await open(`?tokenDelayMs=${r.delay}`);
  const { sw, direct } = await page.evaluate(({ key, n, count }) => window.bench.overhead(key, n, count), { key, n: REQUESTS, count: r.count });
  overhead.push({ ...r, sw, direct });
}

log(`ceiling: ${CEILING_REPEATS} streams of ${CEILING_TOKENS} tokens`);
await open('');
const ceilings = [];
for (let i = 0; i < CEILING_REPEATS; i++) {
  ceilings.push(await page.evaluate(({ key, count }) => window.bench.ceiling(key, count), { key, count: CEILING_TOKENS }));
}

log(`memory and ${SEQUENTIAL} sequential requests`);
await open('');
const cdp = await Cdp.connect(DEVTOOLS_PORT);
const warm = await page.evaluate(({ key }) => window.bench.sequential(key, 10, 10, 30000), { key });
const heap10 = await heaps(cdp);
const seq = await page.evaluate(({ key, n }) => window.bench.sequential(key, n, 10, 30000), { key, n: SEQUENTIAL });
const heapAfter = await heaps(cdp);

log(`load: ${CLIENTS} concurrent clients, default queue (16) and a queue of ${CLIENTS}`);
await open('?tokenDelayMs=5');
const loadDefault = await page.evaluate(({ key, n }) => window.bench.load(key, n, 20, 60000), { key, n: CLIENTS });
await open('?tokenDelayMs=5', { queueDepth: CLIENTS });
const loadDeep = await page.evaluate(({ key, n }) => window.bench.load(key, n, 20, 60000), { key, n: CLIENTS });
// And the service still answers afterwards.
const after = await page.evaluate((key) => window.bench.swRun(key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'count 3' }] }), key);

const chromiumVersion = browser.version();
cdp.close();
await browser.close();
stopServer();
const elapsed = (Date.now() - started) / 1000;

// ---- Report ----

const cpu = os.cpus();
const lines = [];
const p = (s = '') => lines.push(s);
const targets = [];

p('# Benchmarks');
p();
p('`npm run bench` (scripts/bench.mjs) measured these on the test build (the deterministic test engine from');
p('test/engine/ instead of web-llm, so the figures are the service layer\'s own), in headless Chromium, from the');
p('benchmark page test/pages/bench.html. Re-run it to refresh this file.');
p();
p('## Machine');
p();
p(`- CPU: ${cpu[0]?.model ?? 'unknown'}, ${cpu.length} cores`);
p(`- Memory: ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`);
p(`- OS: ${os.type()} ${os.release()} (${os.arch()})`);
p(`- Browser: Chromium ${chromiumVersion} (${CHROMIUM_PATH}, headless), Node ${process.version}`);
p(`- Date: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; run took ${elapsed.toFixed(0)} s${QUICK ? ' (--quick: fewer requests)' : ''}`);
p();
p('## Overhead: fetch → service worker → engine worker, against the engine worker called directly');
p();
p(`${REQUESTS} streamed requests per row and path, alternating the two paths. *Direct* is a second engine worker`);
p('hosted by the same page and spoken to over a MessageChannel with the engine protocol (src/engine-protocol.ts);');
p('*service worker* is `fetch("/v1/chat/completions", {stream: true})` from the page, read with a stream reader.');
p('Time to first byte: until the first body bytes (the role chunk) arrive / until the engine\'s `start` message.');
p('Time to first token: until the first content token. Tokens/s: content tokens ÷ time from first byte to the');
p('last event, per request; "p99" of a rate is its slowest 1 %.');
p();
p('| test engine pace | path | TTFB p50 | TTFB p99 | first token p50 | first token p99 | tokens/s p50 | tokens/s p99 |');
p('|---|---|---|---|---|---|---|---|');
for (const o of overhead) {
  for (const [name, samples] of [['direct', o.direct], ['service worker', o.sw]]) {
    const rates = samples.map(rate).filter(Number.isFinite);
    p(`| ${o.label} (${o.count} tokens) | ${name} | ${ms(pct(samples.map((s) => s.ttfb), 50))} | ${ms(pct(samples.map((s) => s.ttfb), 99))} | ${ms(pct(samples.map((s) => s.ttft), 50))} | ${ms(pct(samples.map((s) => s.ttft), 99))} | ${pct(rates, 50).toFixed(1)} | ${pct(rates, 1).toFixed(1)} |`);
  }
}
p();
p('Added by the service worker (service worker p50 − direct p50):');
p();
p('| test engine pace | added TTFB p50 | added first token p50 | streaming rate, % of direct (p50) |');
p('|---|---|---|---|');
for (const o of overhead) {
  const addTtfb = pct(o.sw.map((s) => s.ttfb), 50) - pct(o.direct.map((s) => s.ttfb), 50);
  const addTtft = pct(o.sw.map((s) => s.ttft), 50) - pct(o.direct.map((s) => s.ttft), 50);
  const share = (pct(o.sw.map(rate), 50) / pct(o.direct.map(rate), 50)) * 100;
  o.addTtfb = addTtfb;
  o.share = share;
  // Unpaced, 100 tokens arrive in one or two reads: no rate to compare (the ceiling section measures it).
  const shown = o.delay > 0 ? `${share.toFixed(1)} %` : 'not a rate (see the ceiling)';
  p(`| ${o.label} | ${ms(addTtfb)} | ${ms(addTtft)} | ${shown} |`);
}
p();

const swCeil = ceilings.map((c) => (c.sw.chunks / c.sw.ms) * 1000);
const directCeil = ceilings.map((c) => (c.direct.chunks / c.direct.ms) * 1000);
p('## Throughput ceiling');
p();
p(`One stream of ${CEILING_TOKENS} tokens from the unpaced test engine, counted as SSE events arriving at the page`);
p(`(${CEILING_REPEATS} runs; median, min–max). The direct figure is the same engine over its MessageChannel: the engine\'s own ceiling.`);
p();
p('| path | chunks/s (median) | min | max |');
p('|---|---|---|---|');
p(`| service worker | ${pct(swCeil, 50).toFixed(0)} | ${Math.min(...swCeil).toFixed(0)} | ${Math.max(...swCeil).toFixed(0)} |`);
p(`| direct | ${pct(directCeil, 50).toFixed(0)} | ${Math.min(...directCeil).toFixed(0)} | ${Math.max(...directCeil).toFixed(0)} |`);
p();

const row = (name, r) => `| ${name} | ${r.counts.completed} | ${r.counts.aborted} | ${r.counts['429']} | ${r.counts.error} | ${r.counts.hung} |`;
p('## Load');
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
for (const [name, r] of [['default queue', loadDefault], ['deep queue', loadDeep], ['sequential', seq]]) {
  if (r.errors.length) p(`\nErrors (${name}): ${r.errors.map((e) => '`' + e.replace(/`/g, "'").slice(0, 200) + '`').join(', ')}`);
}
p();
p('## Memory');
p();
p('JavaScript heap in use after a forced garbage collection (DevTools protocol `HeapProfiler.collectGarbage`, then');
p('`Runtime.getHeapUsage` on the service worker\'s and the hosted engine worker\'s targets).');
p();
p(`| target | after 10 requests | after ${10 + SEQUENTIAL} requests | change |`);
p('|---|---|---|---|');
p(`| service worker | ${mib(heap10.sw)} | ${mib(heapAfter.sw)} | ${((heapAfter.sw - heap10.sw) / 1024).toFixed(0)} KiB |`);
p(`| engine worker | ${mib(heap10.engine)} | ${mib(heapAfter.engine)} | ${((heapAfter.engine - heap10.engine) / 1024).toFixed(0)} KiB |`);
p();

const o200 = overhead.find((o) => o.delay === 5);
const maxAdded = Math.max(...overhead.map((o) => o.addTtfb));
const hung = loadDefault.counts.hung + loadDeep.counts.hung + seq.counts.hung;
const lost = loadDefault.counts.error + loadDeep.counts.error + seq.counts.error + (warm.counts.error + warm.counts.hung);
const growth = Math.max(heapAfter.sw - heap10.sw, heapAfter.engine - heap10.engine);
targets.push(['added time to first byte ≤ 5 ms p50', `${ms(maxAdded)} (worst of the three paces)`, maxAdded <= 5]);
targets.push(['streaming ≥ 98 % of direct throughput at 200 tokens/s', `${o200.share.toFixed(1)} %`, o200.share >= 98]);
targets.push(['≥ 5,000 chunks/s ceiling through the service worker', `${pct(swCeil, 50).toFixed(0)} chunks/s`, pct(swCeil, 50) >= 5000]);
targets.push(['0 hung or lost requests', `${hung} hung, ${lost} errors`, hung === 0 && lost === 0]);
targets.push(['no heap growth from 10 to 1,000+ requests', `${(growth / 1024).toFixed(0)} KiB at most`, growth < 1024 * 1024]);
p('## Targets');
p();
p('| target | measured | met |');
p('|---|---|---|');
for (const [t, m, ok] of targets) p(`| ${t} | ${m} | ${ok ? 'yes' : '**no**'} |`);
p();
// 4xx answers (429 under load, the config file's 404) show as "Failed to load resource"; anything else is news.
const unexpected = consoleErrors.filter((e) => !e.startsWith('Failed to load resource'));
p(`Console errors during the run other than the browser's "Failed to load resource" for 4xx answers: ${unexpected.length}${unexpected.length ? ` (first: \`${unexpected[0].slice(0, 200)}\`)` : ''}.`);
p();

// The hand-written part of BENCHMARKS.md (from NOTES_MARKER on) survives a re-run.
const NOTES_MARKER = '<!-- notes: kept by npm run bench -->';
let notes = '';
try {
  const previous = readFileSync(outFile, 'utf8');
  if (previous.includes(NOTES_MARKER)) notes = previous.slice(previous.indexOf(NOTES_MARKER));
} catch {
  // first run
}
writeFileSync(outFile, lines.join('\n') + (notes ? `\n${notes}` : ''));
log(`wrote ${outFile} in ${elapsed.toFixed(0)} s`);
for (const [t, m, ok] of targets) log(`${ok ? 'met   ' : 'MISSED'} ${t}: ${m}`);
process.exit(0);
