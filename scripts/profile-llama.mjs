#!/usr/bin/env node
// `npm run profile:llama` (node --experimental-websocket scripts/profile-llama.mjs): where llama.cpp's time goes in the browser. The bench's page (test/pages/bench-llama.ts,
// the bench-llama build) loads the bench's synthesized GGUF into a Wllama of its own, as the engine does; V8's CPU
// profiler then samples the page and every worker (wllama's worker runs llama.cpp) over two requests:
//   - prefill: the bench's ~250-token prompt, one token out;
//   - decode: a five-word prompt, 64 tokens out (greedy, the end token biased away).
// wllama's wasm names its functions (a name section from 3.13 on; before, a table of names wllama ships, which
// scripts/wasm-functions.mjs reads), so each wasm function is named, and grouped by name. Writes a Markdown report (FILE, default stdout). Not part of `npm test`.
//
//   npm run profile:llama -- [--no-build] [--threads 1|2] [--llama-size 30m|300m|1b] [--llama-type q4_k|...]
//     [--load '{"flash_attn":false}'] [--compare '{"flash_attn":false}' [--rounds N]] [--out FILE]
//
// Ports: INPAGE_BENCH_PORT (4676) + 3 and + 4 as the bench's llama rows, + 6 for DevTools.
import { readFileSync, writeFileSync } from 'node:fs';
import { chromium } from '@playwright/test';
import { LLAMA_MODEL, MODEL, serveLlamaBench } from './bench-llama.mjs';
import { Cdp } from './cdp.mjs';
import { wllamaNames } from './wasm-functions.mjs';

const flag = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const THREADS = Number(flag('--threads', '1'));
const OUT = flag('--out', null);
/** Load parameters to compare against the engine's (e.g. `--load '{"flash_attn":false}'`). */
const LOAD = JSON.parse(flag('--load', '{}'));
const PORT = Number(process.env.INPAGE_BENCH_PORT ?? 4676);
const DEVTOOLS = PORT + 6;
const env = { ...process.env, INPAGE_BUILD_SUFFIX: process.env.INPAGE_BUILD_SUFFIX ?? '-bench' };
const log = (...a) => console.error(`[profile ${new Date().toISOString().slice(11, 19)}]`, ...a);
const CHROMIUM_ARGS = JSON.parse(readFileSync(new URL('../test/chromium-flags.json', import.meta.url), 'utf8'));

const { origin, host, model, stop } = await serveLlamaBench({ noBuild: process.argv.includes('--no-build'), env, port: PORT, log });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [...CHROMIUM_ARGS, `--remote-debugging-port=${DEVTOOLS}`],
});
const context = await browser.newContext();
const config = { engineChoice: 'llamacpp', ggufBaseUrl: host.origin, engineHeartbeatMs: 0, llamaThreads: THREADS };
await context.route('**/inpage.config.json', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(config) }));
const page = await context.newPage();
await page.goto(`${origin}/test/pages/bench-llama.html`);
const loaded = await page.evaluate(({ m, load }) => window.benchLlama.directLoad(m, load), { m: MODEL, load: LOAD });
if (loaded.threads !== THREADS) throw new Error(`wllama runs ${loaded.threads} threads, not ${THREADS}`);
log(`wllama loaded ${LLAMA_MODEL.name} (${LLAMA_MODEL.type}) with ${loaded.threads} thread(s) in ${loaded.ms.toFixed(0)} ms`);

const sentence = 'The quick brown fox jumps over the lazy dog while the cat sleeps in the warm sun. ';
let nonce = 0;
const request = (content, maxTokens) => ({
  model: MODEL,
  messages: [{ role: 'user', content: `${++nonce}-${Math.random().toString(36).slice(2, 8)} ${content}` }],
  temperature: 0,
  max_tokens: maxTokens,
  logit_bias: { [model.imEnd]: -100 },
});
const CASES = [
  { name: 'prefill', body: () => request(sentence.repeat(2), 1) },
  { name: 'decode', body: () => request('Tell me a story.', 64) },
];
// Warm-ups: the first calls' costs (compiling, first allocations) are not what a person meets on every request.
for (const c of CASES) await page.evaluate((body) => window.benchLlama.viaWllama(body), c.body());

// `--compare '{…}'`: no profile; the engine's load parameters against these, loaded in turn (ROUNDS rounds, each
// a prefill and a decode request per side), compared by llama.cpp's own timings: median tokens/s per side.
if (process.argv.includes('--compare')) {
  const other = JSON.parse(flag('--compare', '{}'));
  const sides = { engine: LOAD, compared: { ...LOAD, ...other } };
  const seen = { engine: { prefill: [], decode: [] }, compared: { prefill: [], decode: [] } };
  const ROUNDS = Number(flag('--rounds', '3'));
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of round % 2 === 0 ? ['engine', 'compared'] : ['compared', 'engine']) {
      await page.evaluate(({ m, load }) => window.benchLlama.directLoad(m, load), { m: MODEL, load: sides[side] });
      for (const c of CASES) await page.evaluate((body) => window.benchLlama.viaWllama(body), c.body());
      for (const c of CASES) {
        for (let i = 0; i < 2; i++) {
          const sample = await page.evaluate((body) => window.benchLlama.viaWllama(body), c.body());
          seen[side][c.name].push(c.name === 'prefill' ? sample.timings.prompt_per_second : sample.timings.predicted_per_second);
        }
      }
    }
    log(`round ${round + 1}/${ROUNDS}: ${JSON.stringify(seen)}`);
  }
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
  const lines = [
    `| load parameters | prefill tokens/s (llama.cpp's own) | decode tokens/s (llama.cpp's own) |`,
    '|---|---|---|',
    ...Object.entries(sides).map(
      ([side, load]) =>
        `| ${side === 'engine' ? "the engine's" : JSON.stringify(other)} ${JSON.stringify(load)} | ${med(seen[side].prefill).toFixed(1)} (${Math.min(...seen[side].prefill).toFixed(1)}–${Math.max(...seen[side].prefill).toFixed(1)}) | ${med(seen[side].decode).toFixed(1)} (${Math.min(...seen[side].decode).toFixed(1)}–${Math.max(...seen[side].decode).toFixed(1)}) |`,
    ),
    '',
    `${LLAMA_MODEL.name} (${LLAMA_MODEL.type}), ${THREADS} thread(s), ${ROUNDS} rounds of 2 prefill and 2 decode requests per side, sides in turn; load \`${readFileSync('/proc/loadavg', 'utf8').trim()}\`.`,
  ];
  await browser.close();
  stop();
  await host.close();
  if (OUT) writeFileSync(OUT, lines.join('\n') + '\n');
  console.log(lines.join('\n'));
  process.exit(0);
}

const cdp = await Cdp.connect(DEVTOOLS);
const { targetInfos } = await cdp.send('Target.getTargets');
const pageTarget = targetInfos.find((t) => t.type === 'page' && t.url.includes('bench-llama.html'));
const pageSession = (await cdp.send('Target.attachToTarget', { targetId: pageTarget.targetId, flatten: true })).sessionId;
/** Every worker under the page, and workers' workers (wllama's worker is the page's; its threads are that worker's). */
const sessions = [{ sessionId: pageSession, title: 'page' }];
cdp.listeners.push((msg) => {
  if (msg.method !== 'Target.attachedToTarget') return;
  const { sessionId, targetInfo } = msg.params;
  sessions.push({ sessionId, title: `${targetInfo.type} ${targetInfo.title || targetInfo.url}`.slice(0, 80) });
  void cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true }, sessionId).catch(() => undefined);
});
await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true }, pageSession);
await new Promise((r) => setTimeout(r, 1000));
log(`profiling ${sessions.length} targets: ${sessions.map((s) => s.title).join('; ')}`);

const name = await wllamaNames();
const WASM = /^(?:\$func|wasm-function\[)(\d+)\]?$/;
/** Self time (ms) by function over one profile: wasm functions by wllama's name, JS by name and file. */
function selfTimes(profile) {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const ms = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byNode.get(profile.samples[i]);
    const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const { functionName, url } = node.callFrame;
    const wasm = functionName.match(WASM);
    // A wasm with a name section (wllama 3.13 on) is profiled under its own names.
    const key = wasm
      ? `wasm ${name(Number(wasm[1])) ?? `function ${wasm[1]}`}`
      : url.startsWith('wasm://') || /\.wasm(\?|$)/.test(url)
        ? `wasm ${functionName}`
        : url
          ? `js ${functionName || '(anonymous)'} (${url.split('/').pop().split('?')[0]})`
          : functionName;
    ms.set(key, (ms.get(key) ?? 0) + dt);
  }
  return ms;
}

const report = [];
const p = (s = '') => report.push(s);
p(
  `### Where llama.cpp's time goes in the browser (${LLAMA_MODEL.name}, ${LLAMA_MODEL.type}, ${THREADS} thread${THREADS > 1 ? 's' : ''}${Object.keys(LOAD).length ? `, ${JSON.stringify(LOAD)}` : ''})`,
);
p();
p(
  `\`node scripts/profile-llama.mjs\` (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC): V8's sampling profiler (200 µs) on the bench page and every worker under it, wllama`,
);
p('called directly in the page (the engine worker adds nothing here: /v1 ÷ wllama is in the rows above). Self time per');
p("function, wasm functions named by wllama's own name table. Load: `" + readFileSync('/proc/loadavg', 'utf8').trim() + '`.');
for (const c of CASES) {
  await Promise.all(
    sessions.map(async (s) => {
      await cdp.send('Profiler.enable', {}, s.sessionId).catch(() => undefined);
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 }, s.sessionId).catch(() => undefined);
      await cdp.send('Profiler.start', {}, s.sessionId).catch(() => undefined);
    }),
  );
  const t0 = Date.now();
  const sample = await page.evaluate((body) => window.benchLlama.viaWllama(body), c.body());
  const wall = Date.now() - t0;
  const profiles = await Promise.all(
    sessions.map(async (s) => ({ ...s, profile: (await cdp.send('Profiler.stop', {}, s.sessionId).catch(() => null))?.profile })),
  );
  p();
  p(
    `**${c.name}**: ${sample.promptTokens} prompt tokens, ${sample.completionTokens} out, ${wall} ms wall; llama.cpp's own timings: prompt ${sample.timings?.prompt_ms?.toFixed(0)} ms (${sample.timings?.prompt_per_second?.toFixed(0)} tokens/s), decode ${sample.timings?.predicted_ms?.toFixed(0)} ms (${sample.timings?.predicted_per_second?.toFixed(1)} tokens/s).`,
  );
  p();
  p('| target | function | self ms | share of the target |');
  p('|---|---|---|---|');
  for (const { title, profile } of profiles) {
    if (!profile) continue;
    const times = [...selfTimes(profile).entries()].sort((a, b) => b[1] - a[1]);
    const total = times.reduce((n, [, ms]) => n + ms, 0);
    const busy = times.filter(([k]) => k !== '(idle)' && k !== '(program)').reduce((n, [, ms]) => n + ms, 0);
    if (busy < 0.02 * total) continue;
    for (const [key, ms] of times.slice(0, 12)) p(`| ${title} | ${key} | ${ms.toFixed(1)} | ${((ms / total) * 100).toFixed(1)} % |`);
  }
}
await cdp.send('Target.detachFromTarget', { sessionId: pageSession }).catch(() => undefined);
cdp.close();
await browser.close();
stop();
await host.close();
const text = report.join('\n') + '\n';
if (OUT) writeFileSync(OUT, text);
console.log(text);
process.exit(0);
