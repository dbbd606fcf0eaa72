// The hybrid rows of `npm run bench` (docs/hybrid.md; scripts/bench.mjs calls these, `--only hybrid` runs them alone),
// against the OpenAI-compatible test server (test/upstream/server.ts, its deterministic OpenAI flavour) on loopback,
// from the test build's benchmark page:
//   - added time to the first token through inpage to the upstream, against a direct fetch to the same upstream
//     from the same page (target ≤ 2 ms): pairs of requests, the two paths back to back, which goes first
//     alternating; the difference within each pair, its median per run;
//   - streaming rate through inpage ÷ direct at 200 tokens/s (target ≥ 0.98), and the unpaced ceiling;
//   - the floor of any service-worker design: the same pairs against a page (on base + 8) whose service worker only
//     forwards each request to the upstream (reads the body, `fetch`es, returns the response); inpage's added time
//     minus this floor is what inpage's own path costs;
//   - first visit: time to the first token for a variant not yet downloaded, prefer-local against local (a fresh
//     browser context each; the test engine's weights are pretend, 4 MiB, so the local figure is a floor).
// Every row is taken in `runs` runs: median (range) over the runs.
//
// Ports: base + 7 for the upstream server, base + 8 for the forwarding page; the test build is served on base (INPAGE_BENCH_PORT, 4676) as in bench.mjs.
import { spawn, execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { metWord, regionText, stampLine, writeRegions } from './bench-regions.mjs';

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const median = (xs) => {
  const s = sorted(xs);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(0.5 * s.length) - 1))];
};
const spread = (xs, fmt) => `${fmt(median(xs))} (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})`;
const msf = (x) => `${x.toFixed(2)} ms`;
const rate = (x) => `${x.toFixed(1)} tokens/s`;

/** Starts the test build's preview (unless the caller serves it) and the upstream server; resolves with a stop(). */
async function serve({ env, port, upstreamPort, preview }) {
  const children = [
    spawn('node', ['--import', './test/firefox/register-ts.mjs', 'test/upstream/server.ts', String(upstreamPort)], {
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
      detached: true,
    }),
  ];
  if (preview)
    children.push(
      spawn('npx', ['vite', 'preview', '--mode', 'test', '--port', String(port), '--strictPort'], {
        env,
        stdio: ['ignore', 'ignore', 'inherit'],
        detached: true,
      }),
    );
  const stop = () =>
    children.forEach((c) => {
      try {
        process.kill(-c.pid, 'SIGTERM');
      } catch {
        // gone
      }
    });
  process.on('exit', stop);
  for (const url of [`http://127.0.0.1:${port}/test/pages/bench.html`, `http://127.0.0.1:${upstreamPort}/ready/_log`]) {
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(url)).ok) break;
      } catch {
        // not up yet
      }
      if (i > 600) throw new Error(`${url} did not come up`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return stop;
}

/**
 * Defines `window.benchStream(path, headers, model, content, max)` in a page: one streamed chat request; ms to the
 * first content token, to the end, and the content tokens. Both kinds of pages measure with it.
 */
function defineStream() {
  window.benchStream = async (path, headers, model, content, max) => {
    const t0 = performance.now();
    const res = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model, messages: [{ role: 'user', content }], stream: true, max_tokens: max }),
    });
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let first = NaN;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (Number.isNaN(first) && /"content":"[^"]/.test(text)) first = performance.now() - t0;
    }
    return { first, total: performance.now() - t0, tokens: (text.match(/"content":"[^"]/g) ?? []).length };
  };
}

/**
 * A page and a service worker that only forwards `/fwd/...` to `upstream` + `...`: the least any service worker that
 * answers a request by fetching the upstream can cost. Resolves with the server's close().
 */
async function serveForwarder(port, upstream) {
  const sw = `self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (e) => {
  const url = new URL(e.request.url);
  // /fwd/: the upstream's response as it is; /fwd-js/: its body passed through JavaScript, chunk by chunk, as any
  // service worker that converts the answer must.
  const js = url.pathname.startsWith('/fwd-js/');
  if (!js && !url.pathname.startsWith('/fwd/')) return;
  e.respondWith((async () => {
    const body = e.request.method === 'POST' ? await e.request.text() : undefined;
    const res = await fetch(${JSON.stringify(upstream)} + url.pathname.slice(js ? 7 : 4), { method: e.request.method, headers: e.request.headers, body });
    if (!js) return res;
    const copy = new TransformStream({ transform: (chunk, controller) => controller.enqueue(chunk) });
    return new Response(res.body.pipeThrough(copy), { status: res.status, headers: res.headers });
  })());
});`;
  const server = createServer((req, res) => {
    if (req.url === '/sw.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(sw);
    else if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>forwarder</title>');
    else res.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return () => server.close();
}

/** `count` pairs of a direct fetch and one through the forwarding service worker, as the inpage pairs are taken. */
async function forwarderPairs(browser, port, count) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${port}/`);
  await page.evaluate(async () => {
    await navigator.serviceWorker.register('/sw.js');
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) await new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', r, { once: true }));
  });
  await page.evaluate(defineStream);
  const pairs = await page.evaluate(
    async ({ count, port }) => {
      const first = async (url) => (await window.benchStream(url, {}, 'up/svc-model-5.2-fast', 'hi', 8)).first;
      const paths = {
        forwarded: () => first('/fwd/chat/completions'),
        throughJs: () => first('/fwd-js/chat/completions'),
        direct: () => first(`http://127.0.0.1:${port - 1}/bench/openai/v1/chat/completions`),
      };
      for (let i = 0; i < 3; i++) {
        await paths.forwarded();
        await paths.throughJs();
        await paths.direct();
      }
      const out = [];
      const orders = [
        ['forwarded', 'throughJs', 'direct'],
        ['direct', 'forwarded', 'throughJs'],
        ['throughJs', 'direct', 'forwarded'],
      ];
      for (let i = 0; i < count; i++) {
        const pair = {};
        for (const path of orders[i % 3]) pair[path] = await paths[path]();
        out.push(pair);
      }
      return out;
    },
    { count, port },
  );
  await context.close();
  return pairs;
}

/**
 * The hybrid measurements, `runs` times. `servePreview`: start the test build's preview here (the full bench serves
 * it already).
 */
export async function benchHybrid({ browser, runs, quick, env, port, log, servePreview = false }) {
  const upstreamPort = port + 7;
  const stop = await serve({ env, port, upstreamPort, preview: servePreview });
  const stopForwarder = await serveForwarder(port + 8, `http://127.0.0.1:${upstreamPort}/bench/openai/v1`);
  const origin = `http://127.0.0.1:${port}`;
  // `up` answers unpaced; `upPaced` at 200 tokens/s (one token every 5 ms), as the local streaming row is.
  const up = `http://127.0.0.1:${upstreamPort}/bench/openai/v1`;
  const upPaced = `http://127.0.0.1:${upstreamPort}/pace5-bench/openai/v1`;
  /** A fresh context with `config` deployed, its bench page open and a key made. */
  async function fresh(config) {
    const context = await browser.newContext();
    await context.route('**/inpage.config.json', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(config) }));
    const page = await context.newPage();
    await page.goto(`${origin}/test/pages/bench.html`);
    await page.evaluate(async () => void (await window.inpageReady));
    const key = await page.evaluate(() => window.bench.makeKey('bench'));
    return { context, page, key };
  }
  const route = (mode, id, url = up) => ({
    upstreams: { gpu: { url, dialect: 'openai', concurrency: 8 } },
    models: { [id]: { mode, upstream: { model: `up/${id}` } } },
  });
  const pairs = quick ? 10 : 40;
  const out = [];
  for (let r = 0; r < runs; r++) {
    log(`  hybrid run ${r + 1}/${runs}: ${pairs} time-to-first-token pairs, streaming at 200 tokens/s and unpaced, first visits`);
    const run = { pairs: [], forwarder: [], paced: [], ceiling: [], firstVisit: { 'prefer-local': [], local: [] } };
    for (const [url, into, count, max] of [
      [up, 'ttft', pairs, 8],
      [upPaced, 'paced', 3, 210],
      [up, 'ceiling', 3, 2100],
    ]) {
      const { context, page, key } = await fresh(route('upstream', 'svc-model-5.2-fast', url));
      await page.evaluate(defineStream);
      const samples = await page.evaluate(
        async ({ key, url, count, max, into }) => {
          const stream = (path, headers, model, content) => window.benchStream(path, headers, model, content, max);
          const paths = {
            inpage: (content) => stream('/v1/chat/completions', { authorization: `Bearer ${key}` }, 'svc-model-5.2-fast', content),
            direct: (content) => stream(`${url}/chat/completions`, {}, 'up/svc-model-5.2-fast', content),
          };
          const content = into === 'ttft' ? 'hi' : into === 'paced' ? 'count 200' : 'count 2000';
          for (let i = 0; i < 3; i++) {
            await paths.inpage('warm');
            await paths.direct('warm');
          }
          const pairs = [];
          for (let i = 0; i < count; i++) {
            const order = i % 2 === 0 ? ['inpage', 'direct'] : ['direct', 'inpage'];
            const pair = {};
            for (const path of order) pair[path] = await paths[path](content);
            pairs.push(pair);
          }
          return pairs;
        },
        { key, url, count, max, into },
      );
      await context.close();
      if (into === 'ttft') run.pairs = samples.map((s) => ({ inpage: s.inpage.first, direct: s.direct.first }));
      else
        run[into] = samples.map((s) => ({
          inpage: ((s.inpage.tokens - 1) / (s.inpage.total - s.inpage.first)) * 1000,
          direct: ((s.direct.tokens - 1) / (s.direct.total - s.direct.first)) * 1000,
        }));
    }
    run.forwarder = await forwarderPairs(browser, port + 8, pairs);
    // First visit: a fresh context (nothing downloaded), one request; prefer-local answers from the upstream.
    for (const mode of ['prefer-local', 'local']) {
      const f = await fresh(mode === 'local' ? {} : route(mode, 'svc-model-5.2-short-fast'));
      const ms = await f.page.evaluate(async (key) => {
        const t0 = performance.now();
        const res = await fetch('/v1/chat/completions', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'svc-model-5.2-short-fast', messages: [{ role: 'user', content: 'hi' }], stream: true }),
        });
        const reader = res.body.getReader();
        let text = '';
        while (!/"content":"[^"]/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
        await reader.cancel();
        return performance.now() - t0;
      }, f.key);
      run.firstVisit[mode].push(ms);
      await f.context.close();
    }
    out.push(run);
  }
  stop();
  stopForwarder();
  return { runs: out, pairs };
}

/** Writes the hybrid section with `p`; returns its target rows ([target, measured, met]). */
export function hybridReport(p, data) {
  const perRun = (f) => data.runs.map(f);
  const inpage = perRun((r) => median(r.pairs.map((s) => s.inpage)));
  const direct = perRun((r) => median(r.pairs.map((s) => s.direct)));
  const added = perRun((r) => median(r.pairs.map((s) => s.inpage - s.direct)));
  const forwarded = perRun((r) => median(r.forwarder.map((s) => s.forwarded)));
  const forwardDirect = perRun((r) => median(r.forwarder.map((s) => s.direct)));
  const floor = perRun((r) => median(r.forwarder.map((s) => s.forwarded - s.direct)));
  const throughJs = perRun((r) => median(r.forwarder.map((s) => s.throughJs)));
  const floorJs = perRun((r) => median(r.forwarder.map((s) => s.throughJs - s.direct)));
  const ratioOf = (rows) => median(rows.map((s) => s.inpage / s.direct));
  const paced = perRun((r) => ratioOf(r.paced));
  const ceiling = perRun((r) => ratioOf(r.ceiling));
  p('The upstream is test/upstream/server.ts (the deterministic rules, streamed as OpenAI streams) on loopback; the id is');
  p('routed to it in mode `upstream`. *through inpage*: `fetch("/v1/chat/completions")` from the bench page (service');
  p('worker → engine worker → the upstream); *direct*: the same page fetching the upstream itself. Time to the first');
  p(`content token; ${data.pairs} pairs per run, the two paths back to back, which goes first alternating; the median per run of`);
  p('the difference within each pair. *The floor*: the same pairs from a page on another port whose service worker only');
  p('forwards the request to the upstream (reads the body, `fetch`es, returns the response): what any service-worker');
  p('design costs at the least; *the floor of a converter*: the same worker passing the body through a JavaScript');
  p(
    `TransformStream (inpage rewrites every answer, so it pays this at least). Rates: 3 pairs per run, the ratio within each pair. ${data.runs.length} runs: median (range) over the runs.`,
  );
  p();
  p('| row | through the service worker | direct fetch | through − direct, or ÷ |');
  p('|---|---|---|---|');
  p(`| time to the first token | ${spread(inpage, msf)} | ${spread(direct, msf)} | ${spread(added, msf)} added |`);
  p(
    `| time to the first token, the floor: a service worker that only forwards | ${spread(forwarded, msf)} | ${spread(forwardDirect, msf)} | ${spread(floor, msf)} added |`,
  );
  p(
    `| time to the first token, the floor of a converter: the same, the body passed through JavaScript | ${spread(throughJs, msf)} | ${spread(forwardDirect, msf)} | ${spread(floorJs, msf)} added |`,
  );
  p(
    `| streaming rate at 200 tokens/s ("count 200") | ${spread(
      perRun((r) => median(r.paced.map((s) => s.inpage))),
      rate,
    )} | ${spread(
      perRun((r) => median(r.paced.map((s) => s.direct))),
      rate,
    )} | ${spread(paced, (x) => `${x.toFixed(3)}×`)} |`,
  );
  p(
    `| streaming ceiling, unpaced ("count 2000") | ${spread(
      perRun((r) => median(r.ceiling.map((s) => s.inpage))),
      rate,
    )} | ${spread(
      perRun((r) => median(r.ceiling.map((s) => s.direct))),
      rate,
    )} | ${spread(ceiling, (x) => `${x.toFixed(3)}×`)} |`,
  );
  p();
  p('First visit, time to the first token for a variant not yet downloaded (a fresh browser context each): prefer-local');
  p(
    `${spread(
      perRun((r) => r.firstVisit['prefer-local'][0]),
      msf,
    )}, local ${spread(
      perRun((r) => r.firstVisit.local[0]),
      msf,
    )}. The test engine's weights are pretend`,
  );
  p('(4 MiB, loaded at once), so the local figure is a floor: real weights take minutes to download, while prefer-local');
  p('answers from the upstream in the time above.');
  p();
  return [
    // Once a target (≤ 2 ms), retired: a service worker that passes the body through JavaScript already costs most of it.
    [
      'hybrid: added time to the first token through inpage to an upstream',
      `${msf(median(added))} (median of runs; a forwarding service worker alone adds ${msf(median(floor))}, one passing the body through JavaScript ${msf(median(floorJs))})`,
      null,
    ],
    ['hybrid: streaming through inpage ≥ 0.98× direct at 200 tokens/s', `${median(paced).toFixed(3)}×`, median(paced) >= 0.98],
  ];
}

/** The hybrid region of BENCHMARKS.md: its text (hybridReport's rows and targets under `stamp`) and its targets. */
export function hybridRegion(data, stamp) {
  const lines = [];
  const targets = hybridReport((line = '') => lines.push(line), data);
  return { text: regionText('Hybrid (upstream)', stampLine(stamp), lines, targets), targets };
}

/** `--only hybrid`: the hybrid rows alone, written into the hybrid region of FILE. */
export async function benchHybridOnly({ outFile, quick, noBuild, env, port, log, chromiumPath, chromiumArgs, runs, uptime }) {
  const before = uptime();
  const started = Date.now();
  if (!noBuild) {
    log('building the test build into dist-test-bench/');
    execFileSync('npx', ['vite', 'build', '--mode', 'test', '--logLevel', 'warn'], { env, stdio: 'inherit' });
  }
  const { chromium } = await import('@playwright/test');
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  const data = await benchHybrid({ browser, runs, quick, env, port, log, servePreview: true });
  await browser.close();
  const { text, targets } = hybridRegion(data, { started, before, after: uptime(), quick });
  writeRegions(outFile, { hybrid: text });
  log(`wrote the hybrid rows into ${outFile}`);
  for (const [t, m, ok] of targets) log(`${metWord(ok)} ${t}: ${m}`);
}
