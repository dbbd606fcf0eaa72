// `npm run bench -- --only hybrid`: the hybrid rows (docs/hybrid.md), against the OpenAI-compatible test server
// (test/upstream/server.ts, its deterministic OpenAI flavour) on loopback, from the test build's benchmark page:
//   - added time to the first token through inpage to the upstream, against a direct fetch to the same upstream
//     from the same page (target ≤ 2 ms, p50);
//   - streaming rate through inpage ÷ direct (target ≥ 0.98);
//   - first visit: time to the first token for a variant not yet downloaded, prefer-local against local (a fresh
//     browser context each; the test engine's weights are pretend, 4 MiB, so the local figure is a floor).
// Spliced into FILE as "## Hybrid (upstream)". Not part of `npm test`; the full bench does not run these rows yet.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { chromium } from '@playwright/test';

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

export async function benchHybridOnly({ outFile, quick, noBuild, env, port, log, chromiumPath, chromiumArgs, uptime }) {
  const before = uptime();
  const started = Date.now();
  const upstreamPort = 4668 + Number(process.env.INPAGE_PORT_OFFSET ?? 0);
  const origin = `http://127.0.0.1:${port}`;
  if (!noBuild) {
    log('building the test build into dist-test-bench/');
    execFileSync('npx', ['vite', 'build', '--mode', 'test', '--logLevel', 'warn'], { env, stdio: 'inherit' });
  }
  const children = [
    spawn('npx', ['vite', 'preview', '--mode', 'test', '--port', String(port), '--strictPort'], { env, stdio: ['ignore', 'ignore', 'inherit'], detached: true }),
    spawn('node', ['--import', './test/firefox/register-ts.mjs', 'test/upstream/server.ts', String(upstreamPort)], { env, stdio: ['ignore', 'ignore', 'inherit'], detached: true }),
  ];
  const stop = () => children.forEach((c) => {
    try {
      process.kill(-c.pid, 'SIGTERM');
    } catch {
      // gone
    }
  });
  process.on('exit', stop);
  for (const url of [`${origin}/test/pages/bench.html`, `http://127.0.0.1:${upstreamPort}/ready/_log`]) {
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
  // Paced at 200 tokens/s (one token every 5 ms), as the local streaming row is; `up` answers unpaced.
  const up = `http://127.0.0.1:${upstreamPort}/bench/openai/v1`;
  const upPaced = `http://127.0.0.1:${upstreamPort}/pace5-bench/openai/v1`;
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
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
  const route = (mode, id, url = up) => ({ upstreams: { gpu: { url, dialect: 'openai', concurrency: 8 } }, models: { [id]: { mode, upstream: { model: `up/${id}` } } } });

  // One page, both paths in turn: time to the first content token and, for long answers, the streaming rate.
  const { context, page, key } = await fresh(route('upstream', 'svc-model-5.2-fast'));
  const n = quick ? 10 : 40;
  const samples = await page.evaluate(
    async ({ key, up, n }) => {
      const body = (model, content, max) => JSON.stringify({ model, messages: [{ role: 'user', content }], stream: true, max_tokens: max });
      async function run(url, headers, payload) {
        const t0 = performance.now();
        const res = await fetch(url, { method: 'POST', headers, body: payload });
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
      }
      const inpage = (content, max) => run('/v1/chat/completions', { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body('svc-model-5.2-fast', content, max));
      const direct = (content, max) => run(`${up}/chat/completions`, { 'content-type': 'application/json' }, body('up/svc-model-5.2-fast', content, max));
      for (let i = 0; i < 5; i++) await inpage('warm', 8), await direct('warm', 8);
      const out = { inpage: [], direct: [], rateIn: [], rateDirect: [] };
      for (let i = 0; i < n; i++) {
        out.inpage.push((await inpage('hi', 8)).first);
        out.direct.push((await direct('hi', 8)).first);
      }
      for (let i = 0; i < 3; i++) {
        const a = await inpage('count 2000', 2100);
        const b = await direct('count 2000', 2100);
        out.rateIn.push((a.tokens / (a.total - a.first)) * 1000);
        out.rateDirect.push((b.tokens / (b.total - b.first)) * 1000);
      }
      return out;
    },
    { key, up, n },
  );
  await context.close();

  // The streaming rate at 200 tokens/s, the pace of the local streaming row.
  const pacedPage = await fresh(route('upstream', 'svc-model-5.2-fast', upPaced));
  const pacedRates = await pacedPage.page.evaluate(
    async ({ key, up }) => {
      async function rate(url, headers, model) {
        const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ model, messages: [{ role: 'user', content: 'count 200' }], stream: true, max_tokens: 210 }) });
        const reader = res.body.getReader();
        const decoder = new TextDecoder();
        let text = '';
        let first = NaN;
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          text += decoder.decode(value, { stream: true });
          if (Number.isNaN(first) && /"content":"[^"]/.test(text)) first = performance.now();
        }
        return ((text.match(/"content":"[^"]/g) ?? []).length - 1) / ((performance.now() - first) / 1000);
      }
      const out = { inpage: [], direct: [] };
      for (let i = 0; i < 3; i++) {
        out.inpage.push(await rate('/v1/chat/completions', { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, 'svc-model-5.2-fast'));
        out.direct.push(await rate(`${up}/chat/completions`, { 'content-type': 'application/json' }, 'up/svc-model-5.2-fast'));
      }
      return out;
    },
    { key: pacedPage.key, up: upPaced },
  );
  await pacedPage.context.close();

  // First visit: a fresh context (nothing downloaded), one request; prefer-local answers from the upstream.
  const firstVisit = { 'prefer-local': [], local: [] };
  for (let i = 0; i < (quick ? 1 : 3); i++) {
    for (const mode of ['prefer-local', 'local']) {
      const f = await fresh(mode === 'local' ? {} : route(mode, 'svc-model-5.2-short-fast'));
      const ms = await f.page.evaluate(async (key) => {
        const t0 = performance.now();
        const res = await fetch('/v1/chat/completions', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'svc-model-5.2-short-fast', messages: [{ role: 'user', content: 'hi' }], stream: true }) });
        const reader = res.body.getReader();
        let text = '';
        while (!/"content":"[^"]/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
        await reader.cancel();
        return performance.now() - t0;
      }, f.key);
      firstVisit[mode].push(ms);
      await f.context.close();
    }
  }
  await browser.close();
  stop();

  const ms = (x) => `${x.toFixed(2)} ms`;
  const added = pct(samples.inpage, 50) - pct(samples.direct, 50);
  const ratio = pct(samples.rateIn, 50) / pct(samples.rateDirect, 50);
  const pacedRatio = pct(pacedRates.inpage, 50) / pct(pacedRates.direct, 50);
  const rows = [
    '## Hybrid (upstream)',
    '',
    `From \`npm run bench -- --only hybrid\` (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${((Date.now() - started) / 1000).toFixed(0)} s${quick ? ', --quick' : ''}): load before \`${before}\`, after \`${uptime()}\`. The upstream is test/upstream/server.ts (the deterministic rules, OpenAI's stream) on loopback.`,
    '',
    '| row | through inpage | direct fetch | result | target |',
    '|---|---|---|---|---|',
    `| time to the first token, p50 of ${n} | ${ms(pct(samples.inpage, 50))} | ${ms(pct(samples.direct, 50))} | ${ms(added)} added | ≤ 2 ms: ${added <= 2 ? 'met' : 'not met'} |`,
    `| streaming rate at 200 tokens/s, "count 200", median of 3 | ${pct(pacedRates.inpage, 50).toFixed(1)} tokens/s | ${pct(pacedRates.direct, 50).toFixed(1)} tokens/s | ${pacedRatio.toFixed(3)}× | ≥ 0.98: ${pacedRatio >= 0.98 ? 'met' : 'not met'} |`,
    `| streaming ceiling (unpaced), "count 2000", median of 3 | ${pct(samples.rateIn, 50).toFixed(0)} tokens/s | ${pct(samples.rateDirect, 50).toFixed(0)} tokens/s | ${ratio.toFixed(3)}× | (no target: the server's unpaced ceiling) |`,
    `| first visit, time to the first token (not downloaded), median of ${firstVisit.local.length} | prefer-local ${ms(pct(firstVisit['prefer-local'], 50))} | local ${ms(pct(firstVisit.local, 50))} | | the test engine's weights are pretend (4 MiB): real weights make local far slower |`,
    '',
  ];
  console.log(rows.join('\n'));
  let text = existsSync(outFile) ? readFileSync(outFile, 'utf8') : '# Benchmarks\n';
  const at = text.indexOf('## Hybrid (upstream)');
  if (at >= 0) {
    const end = text.indexOf('\n## ', at + 1);
    text = text.slice(0, at) + (end >= 0 ? text.slice(end + 1) : '');
  }
  text = `${text.trimEnd()}\n\n${rows.join('\n')}`;
  writeFileSync(outFile, text);
  log(`wrote the hybrid rows into ${outFile}`);
}
