// The llama.cpp rows of `npm run bench` (scripts/bench.mjs calls these; `--only llama` runs them alone).
// The production engine (llama.cpp through @wllama/wllama, chosen by the deployment: engineChoice "llamacpp") on
// the CPU, with a model of about 30M parameters synthesized here (scripts/gguf/synthesize.ts: random weights,
// nothing downloaded), served from a CORS model host of its own as Hugging Face would serve it. The page
// (test/pages/bench-llama.ts, in the bench-llama build) times the same streamed request through /v1 and
// straight to a Wllama of its own, made and loaded as the engine does (same file, context, thread count and
// parameters): prefill and decode tokens/s, /v1 as a share of wllama directly; one thread and N; the model's
// load from the network (fresh browser context) and from wllama's cache (a reload: a new engine worker).
// Beside them, native llama.cpp (node-llama-cpp's prebuilt CPU binary, in this Node process) runs the same GGUF,
// context, thread count, prompt (ChatML as the engine renders it) and greedy sampling: wllama ÷ native.
// Measure on a quiet machine: the ratios hold within pairs, the absolute figures do not under load.
//
// Ports: base + 3 for the app (vite preview of dist-bench-llama*/, which sends COOP/COEP as `npm start` does),
// base + 4 for the model host; base is INPAGE_BENCH_PORT (4676), as in bench.mjs.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { metWord, regionText, stampLine, writeRegions } from './bench-regions.mjs';
import { importNodeLlamaCpp, NODE_LLAMA_CPP_VERSION } from './native-llama.mjs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/**
 * The benchmark's models, Q4_K (every weight matrix; norms F32; feed-forward widths a whole number of Q4_K
 * super-blocks), by size: `--llama-size 30m` (the default: 512 wide, 9 layers, about 31M parameters), `300m`,
 * `1b`; `--llama-type q8_0` (or q4_0, f16) for another storage. F16, which no one runs, is WebAssembly's worst case
 * (no F16C there: every weight converted on the fly); people run Q4_K_M and Q8_0. The vocabulary is the
 * synthesizer's (469 tokens), so the output layer is far smaller than a real model's. `qwen3-1.7b` has the shapes
 * of Qwen3-1.7B (the `-short` pair's default GGUF): 28 layers, 2048 wide, 6144 feed-forward, 16 query and 8
 * key/value heads of 128, its vocabulary size (151,936, padded with unused tokens), Q4_K_M's mix (Q6_K output
 * layer, attn_v and ffn_down in use_more_bits' layers), its output layer untied (the same work): 1.28 GB. Its rows
 * go to a region of their own, with the time to first token of a long prompt with tools (`longPrompt`).
 */
const LLAMA_MODELS = {
  '30m': { seed: 7, embedding: 512, layers: 9, feedForward: 1536, heads: 8, name: 'inpage-bench-30m' },
  '300m': { seed: 7, embedding: 1024, layers: 24, feedForward: 2816, heads: 16, name: 'inpage-bench-300m' },
  '1b': { seed: 7, embedding: 2048, layers: 20, feedForward: 5632, heads: 16, name: 'inpage-bench-1b' },
  'qwen3-1.7b': {
    seed: 7,
    embedding: 2048,
    layers: 28,
    feedForward: 6144,
    heads: 16,
    kvHeads: 8,
    vocabSize: 151936,
    mix: 'q4_k_m',
    name: 'inpage-bench-qwen3-1.7b-shapes',
    region: 'llama-qwen3',
    longPrompt: 1500,
  },
};
const flag = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const SIZE = flag('--llama-size', '30m');
if (!LLAMA_MODELS[SIZE]) throw new Error(`--llama-size: one of ${Object.keys(LLAMA_MODELS).join(', ')}`);
const { region: REGION = 'llama', longPrompt: LONG_PROMPT = 0, ...SYNTH } = LLAMA_MODELS[SIZE];
export const LLAMA_MODEL = { ...SYNTH, type: flag('--llama-type', 'q4_k') };
/**
 * `--llama-long N`: after the pairs, a request whose prompt (system text, six tools, a question) is at least N
 * tokens, timed to its first token through /v1 and in native llama.cpp (0: none; `qwen3-1.7b`'s default is 1500).
 */
const LONG = Number(flag('--llama-long', String(LONG_PROMPT)));
/** The engine's context for the variant (WEBLLM_DEFAULT_CONTEXT, within the trained 4096): the native runs use it too. */
const CONTEXT = 4096;
/** The variant asked (a non-thinking one; its weight group's default GGUF path is where the file is served). */
export const MODEL = 'svc-model-5.2-short-fast';
/** `--llama-threads 1` (or `2`): one thread count only, for the larger models on a busy machine. */
const THREADS = process.argv.includes('--llama-threads') ? [Number(flag('--llama-threads', '1'))] : [1, 2];

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const median = (xs) => {
  const s = sorted(xs);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(0.5 * s.length) - 1))];
};
const spread = (xs, fmt) => `${fmt(median(xs))} (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})`;
const fx = (d) => (x) => x.toFixed(d);

/** Our TypeScript helpers (the synthesizer, the static server, the GGUF defaults), bundled for Node by rolldown. */
async function nodeHelpers() {
  const { build } = await import('rolldown');
  const dir = await mkdtemp(join(tmpdir(), 'inpage-bench-llama-'));
  const entry = join(dir, 'entry.ts');
  writeFileSync(
    entry,
    [
      `export { synthesizeGguf } from ${JSON.stringify(join(ROOT, 'scripts/gguf/synthesize.ts'))};`,
      `export { serveStatic } from ${JSON.stringify(join(ROOT, 'test/browser/static-server.ts'))};`,
      `export { GGUF_DEFAULTS } from ${JSON.stringify(join(ROOT, 'worker/engine/llamacpp/models.ts'))};`,
      `export { variantOf } from ${JSON.stringify(join(ROOT, 'src/shared/catalog.ts'))};`,
    ].join('\n'),
  );
  await build({ input: entry, platform: 'node', logLevel: 'silent', output: { file: join(dir, 'helpers.mjs'), format: 'esm' } });
  return import(join(dir, 'helpers.mjs'));
}

/**
 * The synthesized model's file, made once and kept in node_modules/.cache (synthesis takes about a minute here):
 * keyed by the options and the synthesizer's source, so a change to either makes it anew.
 */
function modelFile(helpers, log) {
  const sources = ['scripts/gguf/synthesize.ts', 'scripts/gguf/gguf-file.ts'].map((f) => readFileSync(join(ROOT, f)));
  const hash = createHash('sha256').update(JSON.stringify(LLAMA_MODEL)).update(Buffer.concat(sources)).digest('hex').slice(0, 16);
  const file = join(ROOT, 'node_modules/.cache/inpage-bench', `${hash}.gguf`);
  const meta = `${file}.json`;
  if (!existsSync(file) || !existsSync(meta)) {
    log(`  synthesizing the ${LLAMA_MODEL.name} GGUF (once; kept in node_modules/.cache/inpage-bench/)`);
    const model = helpers.synthesizeGguf(LLAMA_MODEL);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, model.bytes);
    writeFileSync(meta, JSON.stringify({ parameters: model.parameters, imEnd: model.tokenId('<|im_end|>'), bytes: model.bytes.length }));
  }
  return { file, ...JSON.parse(readFileSync(meta, 'utf8')) };
}

/** The bench model's file (modelFile), synthesized if it is not cached: `--llama-size` as for the bench. */
export async function prepareLlamaModel(log = console.log) {
  return modelFile(await nodeHelpers(), log);
}

/**
 * Native llama.cpp on the same file: node-llama-cpp's prebuilt CPU binary (from npm, installed on first use by
 * scripts/native-llama.mjs; never built or downloaded here). `open(threads)` gives a context of the engine's size with that many threads; `request(body)` answers a
 * bench request as the engine would (its ChatML, with the non-thinking variant's empty thinking block; greedy; the
 * end token never), and times it as the page times the two browser paths.
 */
async function nativeLlama(file) {
  const { getLlama, LlamaLogLevel, TokenBias } = await importNodeLlamaCpp();
  const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
  const model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
  return {
    version: NODE_LLAMA_CPP_VERSION,
    async open(threads) {
      const context = await model.createContext({ contextSize: CONTEXT, batchSize: 512, threads });
      const sequence = context.getSequence();
      /** `rendered`: the prompt's text as the chat template renders it (default: ChatML of a lone user message). */
      const request = async (body, rendered) => {
        const prompt = model.tokenize(
          rendered ?? `<|im_start|>user\n${body.messages[0].content}<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n`,
          true,
        );
        const bias = new TokenBias(model.tokenizer);
        for (const [token, value] of Object.entries(body.logit_bias ?? {})) if (value <= -100) bias.set(Number(token), 'never');
        await sequence.clearHistory();
        const tokens = [];
        const gaps = [];
        const t0 = performance.now();
        let first = -1;
        let last = -1;
        for await (const token of sequence.evaluate(prompt, { temperature: 0, tokenBias: bias })) {
          const now = performance.now();
          if (first < 0) first = now;
          else gaps.push(now - last);
          last = now;
          tokens.push(token);
          if (tokens.length === body.max_tokens) break;
        }
        return {
          ttft: first - t0,
          decodeMs: last - first,
          deltas: tokens.length,
          promptTokens: prompt.length,
          cachedTokens: 0,
          text: model.detokenize(tokens),
          gaps,
          threads: context.currentThreads,
        };
      };
      return { request, tokens: (text) => model.tokenize(text, true).length, close: () => context.dispose() };
    },
    close: async () => {
      await model.dispose();
      await llama.dispose();
    },
  };
}

/**
 * Builds the bench-llama build (unless noBuild) and serves it (port + 3) and the synthesized model (port + 4):
 * { origin, host (the model host, with its GETs), model (the file and its facts), stop }.
 */
export async function serveLlamaBench({ noBuild, env, port, log }) {
  const helpers = await nodeHelpers();
  const model = modelFile(helpers, log);
  if (!noBuild) {
    log('  building the production build with the llama.cpp bench page into dist-bench-llama*/');
    execFileSync('npx', ['vite', 'build', '--mode', 'bench-llama', '--logLevel', 'warn'], { env, stdio: 'inherit', cwd: ROOT });
  }
  const appPort = port + 3;
  const offset = Number(process.env.INPAGE_PORT_OFFSET ?? 0);
  // serveStatic adds INPAGE_PORT_OFFSET itself: the model host lands on port + 4 either way.
  const spec = helpers.GGUF_DEFAULTS[helpers.variantOf(MODEL).weightGroup];
  const hostDir = await mkdtemp(join(tmpdir(), 'inpage-bench-gguf-'));
  const modelPath = `${spec.repo}/resolve/main/${spec.file}`;
  mkdirSync(dirname(join(hostDir, modelPath)), { recursive: true });
  execFileSync('ln', ['-s', model.file, join(hostDir, modelPath)]);
  const host = await helpers.serveStatic(port + 4 - offset, { '/': hostDir }, { cors: true });

  log(`  serving the bench-llama build on 127.0.0.1:${appPort}, the model on ${host.origin}`);
  const server = spawn('npx', ['vite', 'preview', '--mode', 'bench-llama', '--port', String(appPort), '--strictPort'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
    cwd: ROOT,
  });
  const stop = () => {
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  process.on('exit', stop);
  const origin = `http://127.0.0.1:${appPort}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${origin}/test/pages/bench-llama.html`)).ok) break;
    } catch {
      // not up yet
    }
    if (i > 600) throw new Error('the bench-llama preview server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { origin, host, model, stop };
}

/** Six tools an agent might carry, in the OpenAI shape (their JSON is much of a long agent prompt). */
const LONG_TOOLS = [
  ['get_weather', 'Get the current weather for a city.', { city: 'The city, e.g. Paris', unit: 'celsius or fahrenheit' }],
  ['search_web', 'Search the web and return the top results.', { query: 'What to search for', count: 'How many results, 1 to 10' }],
  ['read_file', 'Read a file from the workspace.', { path: 'The path of the file', start: 'The first line', end: 'The last line' }],
  ['write_file', 'Write text to a file in the workspace.', { path: 'The path of the file', text: 'The whole new text' }],
  ['run_command', 'Run a shell command and return its output.', { command: 'The command line', timeout: 'Seconds to wait' }],
  ['send_email', 'Send an email to one person.', { to: 'The address', subject: 'The subject line', body: 'The text of the mail' }],
].map(([name, description, props]) => ({
  type: 'function',
  function: {
    name,
    description,
    parameters: {
      type: 'object',
      properties: Object.fromEntries(Object.entries(props).map(([k, d]) => [k, { type: 'string', description: d }])),
      required: Object.keys(props),
    },
  },
}));
let longNonce = 0;
/**
 * A request with a system prompt, LONG_TOOLS and a question, whose rendered prompt is at least LONG tokens (`count`:
 * native llama.cpp's token count of a text). A fresh nonce opens the system text, so no KV cache holds any of it.
 */
function longRequest(count) {
  const sentence = 'You are a careful assistant who helps the user with their work and answers in plain words. ';
  const body = (n) => ({
    model: MODEL,
    messages: [
      { role: 'system', content: `${++longNonce}-${Math.random().toString(36).slice(2, 8)} ${sentence.repeat(n)}` },
      { role: 'user', content: 'What is the weather in Paris today, and should I take a coat?' },
    ],
    tools: LONG_TOOLS,
    temperature: 0,
    max_tokens: 8,
  });
  // Each step renders and counts once, and adds a sentence for every 40 tokens still missing (at least one).
  for (let n = 0; ;) {
    const candidate = body(n);
    const missing = LONG - count(renderTools(candidate));
    if (missing <= 0) return candidate;
    n += Math.max(1, Math.floor(missing / 40));
  }
}
/** Python's `json.dumps` (", " and ": "), as a chat template's `tojson` writes it. */
const pyJson = (v) =>
  Array.isArray(v)
    ? `[${v.map(pyJson).join(', ')}]`
    : v && typeof v === 'object'
      ? `{${Object.entries(v)
          .map(([k, x]) => `${JSON.stringify(k)}: ${pyJson(x)}`)
          .join(', ')}}`
      : JSON.stringify(v);
/** The synthesized chat template (scripts/gguf/synthesize.ts) on a system message, tools and a user message, non-thinking. */
function renderTools(body) {
  const [system, user] = body.messages;
  return (
    `<|im_start|>system\n${system.content}\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n` +
    `You are provided with function signatures within <tools></tools> XML tags:\n<tools>${body.tools.map((t) => `\n${pyJson(t)}`).join('')}\n</tools>\n\n` +
    `For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n` +
    `<tool_call>{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n` +
    `<|im_start|>user\n${user.content}<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n`
  );
}

/**
 * Serves the bench-llama build and the model (serveLlamaBench) and measures. `browser` is a launched Chromium
 * (bench.mjs's own). Returns the figures for `llamaReport`.
 */
export async function benchLlama({ browser, runs, quick, noBuild, env, port, log }) {
  const { origin, host, model, stop } = await serveLlamaBench({ noBuild, env, port, log });
  const modelGets = () => host.gets.filter((p) => p.endsWith('.gguf')).length;

  // Single requests on one path vary by ±15 % on this 2-core machine (the same request, back to back), more than
  // the paths differ: twelve pairs per run, and the ratio taken within each pair (paired design, see llamaReport).
  // With eight, the per-run ratios of one row spread over 0.87-1.03, wider than the 3 % the target allows.
  // `--llama-pairs N`: fewer pairs for the larger models (a 1B request takes about a minute on one thread here).
  const PAIRS = Number(flag('--llama-pairs', quick ? 2 : 12));
  // Requests on wllama's own (generic) wasm after the pairs, directly; `--llama-generic 0` skips them.
  const GENERIC = Number(flag('--llama-generic', quick ? 1 : Math.max(2, Math.ceil(PAIRS / 2))));
  const MAX_TOKENS = Number(flag('--llama-max-tokens', quick ? 48 : 64));
  // About 250 prompt tokens; a fresh nonce first, so llama.cpp's KV cache holds nothing of it (full prefill).
  const sentence = 'The quick brown fox jumps over the lazy dog while the cat sleeps in the warm sun. ';
  let nonce = 0;
  const request = () => ({
    model: MODEL,
    messages: [{ role: 'user', content: `${++nonce}-${Math.random().toString(36).slice(2, 8)} ${sentence.repeat(2)}` }],
    temperature: 0,
    max_tokens: MAX_TOKENS,
    // The synthesized model ends free text after "!": it may not, so every answer is MAX_TOKENS long.
    logit_bias: { [model.imEnd]: -100 },
  });

  const native = await nativeLlama(model.file);
  const out = {
    runs: [],
    model,
    region: REGION,
    long: LONG,
    pairs: PAIRS,
    maxTokens: MAX_TOKENS,
    threads: THREADS,
    mismatches: 0,
    nativeMismatches: 0,
    nativeVersion: native.version,
  };
  const consoleErrors = [];
  try {
    for (let r = 0; r < runs; r++) {
      const run = { threads: {} };
      for (const threads of THREADS) {
        log(`  llama.cpp run ${r + 1}/${runs}, ${threads} thread(s): load from the network, ${PAIRS} request pairs, load from the cache`);
        const context = await browser.newContext();
        const config = { engineChoice: 'llamacpp', ggufBaseUrl: host.origin, engineHeartbeatMs: 0, llamaThreads: threads };
        await context.route('**/inpage.config.json', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(config) }));
        const page = await context.newPage();
        page.on('pageerror', (e) => consoleErrors.push(String(e)));
        page.on('console', (m) => {
          if (m.type() === 'error') consoleErrors.push(m.text());
        });
        await page.goto(`${origin}/test/pages/bench-llama.html`);
        const key = await page.evaluate(() => window.benchLlama.makeKey());
        const getsBefore = modelGets();
        const network = await page.evaluate((m) => window.benchLlama.engineLoad(m), MODEL);
        const networkGets = modelGets() - getsBefore;
        const where = await page.evaluate(({ key, m }) => window.benchLlama.runtime(key, m), { key, m: MODEL });
        if (!where.isolated || where.engine?.name !== 'llamacpp' || where.engine?.threads !== threads) {
          throw new Error(`llama.cpp is not running as asked (${threads} threads, isolated): ${JSON.stringify(where)}`);
        }
        const directLoad = await page.evaluate((m) => window.benchLlama.directLoad(m), MODEL);
        if (directLoad.threads !== threads) throw new Error(`wllama directly runs ${directLoad.threads} threads, not ${threads}`);
        const nativeRun = await native.open(threads);
        // Native llama.cpp's warm-up, which also checks its thread count.
        if ((await nativeRun.request(request())).threads !== threads) throw new Error(`native llama.cpp does not run ${threads} threads`);
        // One warm-up each (first-call costs of every path), then the pairs (triples, with native llama.cpp),
        // rotating which goes first.
        await page.evaluate(({ key, body }) => window.benchLlama.viaV1(key, body), { key, body: request() });
        await page.evaluate((body) => window.benchLlama.viaWllama(body), request());
        const v1 = [];
        const wl = [];
        const nat = [];
        const orders = [
          ['v1', 'direct', 'native'],
          ['direct', 'native', 'v1'],
          ['native', 'v1', 'direct'],
        ];
        for (let i = 0; i < PAIRS; i++) {
          const body = request();
          const pair = async (which) =>
            which === 'v1'
              ? v1.push(await page.evaluate(({ key, body }) => window.benchLlama.viaV1(key, body), { key, body }))
              : which === 'direct'
                ? wl.push(await page.evaluate((body) => window.benchLlama.viaWllama(body), body))
                : nat.push(await nativeRun.request(body));
          for (const which of orders[i % orders.length]) await pair(which);
          if (v1.at(-1).text !== wl.at(-1).text) {
            out.mismatches++;
            out.mismatch ??= { v1: v1.at(-1).text, wllama: wl.at(-1).text };
          }
          if (nat.at(-1).text !== wl.at(-1).text) {
            out.nativeMismatches++;
            out.nativeMismatch ??= { native: nat.at(-1).text, wllama: wl.at(-1).text };
          }
          if (nat.at(-1).promptTokens !== wl.at(-1).promptTokens)
            throw new Error(`native llama.cpp's prompt is ${nat.at(-1).promptTokens} tokens, wllama's ${wl.at(-1).promptTokens}: not the same prompt`);
        }
        // The long prompt with tools: one request a run on each path, which goes first alternating by run.
        const long = [];
        if (LONG > 0) {
          const body = longRequest(nativeRun.tokens);
          const rendered = renderTools(body);
          const v1Long = async () => page.evaluate(({ key, body }) => window.benchLlama.viaV1(key, body), { key, body });
          const pair = r % 2 ? [await nativeRun.request(body, rendered), await v1Long()].reverse() : [await v1Long(), await nativeRun.request(body, rendered)];
          long.push({ v1: pair[0], native: pair[1] });
        }
        await nativeRun.close();
        // wllama's own wasm (generic kernels) on the same requests, directly: the kernels' end-to-end speed-up.
        const generic = [];
        if (GENERIC > 0 && where.wasm !== 'generic') {
          await page.evaluate((m) => window.benchLlama.directLoad(m, {}, 'generic'), MODEL);
          await page.evaluate((body) => window.benchLlama.viaWllama(body), request());
          for (let i = 0; i < GENERIC; i++) generic.push(await page.evaluate((body) => window.benchLlama.viaWllama(body), request()));
        }
        await page.evaluate(() => window.benchLlama.directExit());
        // A reload: a new engine worker, the model from wllama's cache (no byte from the model host).
        await page.reload();
        const getsBeforeCache = modelGets();
        const cache = await page.evaluate((m) => window.benchLlama.engineLoad(m), MODEL);
        const cacheGets = modelGets() - getsBeforeCache;
        await context.close();
        run.threads[threads] = { network, networkGets, cache, cacheGets, directLoad: directLoad.ms, v1, wllama: wl, native: nat, generic, long };
        out.wasm = where.wasm;
      }
      runs > 0 && out.runs.push(run);
    }
  } finally {
    stop();
    await host.close();
    await native.close();
  }
  out.consoleErrors = consoleErrors.filter((e) => !e.startsWith('Failed to load resource'));
  // Every sample, for a closer look than the tables give.
  const dump = join(tmpdir(), `inpage-bench-llama-${process.pid}.json`);
  writeFileSync(dump, JSON.stringify(out, null, 1));
  log(`  llama.cpp samples in ${dump}`);
  return out;
}

const prefill = (s) => ((s.promptTokens - s.cachedTokens) / s.ttft) * 1000;
const decode = (s) => ((s.deltas - 1) / s.decodeMs) * 1000;
/**
 * Decode tokens/s from the lower quartile of a request's token gaps. Single requests here run at one of two paces
 * (token gaps of ~40 ms or ~60 ms at one thread, the whole request long, on either path alike, with the machine
 * otherwise idle): the lower quartile is the pace a request kept while nothing else on the machine slowed it.
 */
const quickDecode = (s) => 1000 / sorted(s.gaps)[Math.floor(s.gaps.length / 4)];
/** A run's median over its pairs (the two paths asked back to back) of `f(v1 sample, direct sample)`. */
const pairedBy = (x, f) => median(x.v1.map((s, i) => f(s, x.wllama[i])));
/** A run's /v1 ÷ wllama ratio of `rate`: the median of the ratios within each pair. */
const paired = (x, rate) => pairedBy(x, (v, d) => rate(v) / rate(d));
/** A run's wllama ÷ native llama.cpp ratio of `rate`: the median of the ratios within each triple. */
const pairedNative = (x, rate) => median(x.wllama.map((d, i) => rate(d) / rate(x.native[i])));
/** A run's /v1 ÷ native llama.cpp ratio of `rate`: the median of the ratios within each triple. */
const v1Native = (x, rate) => median(x.v1.map((v, i) => rate(v) / rate(x.native[i])));

/*
 * llama.cpp's own compute varies by up to 2x from one request to the next on this machine (so did a plain C
 * matrix product, run 20 times in a row: 96-244 ms), so the raw pair ratios above mostly measure that. Every
 * answer carries llama.cpp's `timings` on both paths, so a pair can be compared with llama.cpp's compute
 * matched: the /v1 request's window, with llama.cpp's own compute in it replaced by the direct request's. What
 * is left of the /v1 window besides llama.cpp's compute (service worker, engine worker, ports, the stream)
 * counts in full.
 */
/** The ms llama.cpp says its evaluation of the prompt took. */
const promptCompute = (s) => s.timings.prompt_ms;
/** llama.cpp's own ms for the decode steps between the first and the last content token. */
const decodeCompute = (s) => (s.deltas - 1) * s.timings.predicted_per_token_ms;
const matchedPrefill = (v, d) => (v.promptTokens - v.cachedTokens) / (v.ttft - promptCompute(v) + promptCompute(d)) / (prefill(d) / 1000);
const matchedDecode = (v, d) => (v.deltas - 1) / (v.decodeMs - decodeCompute(v) + (v.deltas - 1) * d.timings.predicted_per_token_ms) / (decode(d) / 1000);
/** llama.cpp's own speed, /v1 ÷ direct, within a pair: prompt tokens per prompt ms, and decode steps per ms. */
const ownPrefill = (v, d) => v.timings.prompt_n / v.timings.prompt_ms / (d.timings.prompt_n / d.timings.prompt_ms);
const ownDecode = (v, d) => d.timings.predicted_per_token_ms / v.timings.predicted_per_token_ms;
/** Geometric mean of ratios and its 95 % interval (mean of logs ± 1.96 standard errors). */
function geoInterval(ratios) {
  const logs = ratios.map(Math.log);
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
  const sd = Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (logs.length - 1));
  const half = (1.96 * sd) / Math.sqrt(logs.length);
  return `${Math.exp(mean).toFixed(3)} (${Math.exp(mean - half).toFixed(3)}–${Math.exp(mean + half).toFixed(3)})`;
}

/** Writes the llama.cpp section with `p` and returns its Targets rows ([target, measured, met]). */
export function llamaReport(p, data) {
  const per = (threads, f) => data.runs.map((r) => f(r.threads[threads]));
  const m = data.model;
  const sample = data.runs[0].threads[data.threads[0]].v1[0];
  p(`The production engine worker running llama.cpp (@wllama/wllama, chosen by the deployment: \`engineChoice: "llamacpp"\`)`);
  p(`on a model synthesized at bench time (scripts/gguf/synthesize.ts: llama architecture, ${LLAMA_MODEL.embedding} wide, ${LLAMA_MODEL.layers} layers,`);
  const shapes = [
    LLAMA_MODEL.kvHeads ? `${LLAMA_MODEL.heads} query and ${LLAMA_MODEL.kvHeads} key/value heads` : '',
    LLAMA_MODEL.vocabSize ? `a vocabulary of ${LLAMA_MODEL.vocabSize.toLocaleString('en')}` : '',
    LLAMA_MODEL.mix ? `${LLAMA_MODEL.mix.toUpperCase()}'s mix of Q4_K and Q6_K` : LLAMA_MODEL.type.toUpperCase(),
  ].filter(Boolean);
  p(
    `${LLAMA_MODEL.feedForward} feed-forward, ${(m.parameters / 1e6).toFixed(1)}M parameters, ${shapes.join(', ')}, ${(m.bytes / 1e6).toFixed(1)} MB; random weights), served by a CORS model host of its own.`,
  );
  p('The bench page (test/pages/bench-llama.ts) times the same streamed request two ways: *inpage* through');
  p('`/v1/chat/completions` (service worker → engine worker → wllama), and *wllama* straight to a Wllama of the');
  p("page's own, made as the engine makes it (same options and cache), same file, context, thread count and the");
  p('parameters the engine derives from that request. Each request opens with a fresh nonce (no KV-cache reuse),');
  p(`about ${sample.promptTokens} prompt tokens, temperature 0, ${data.maxTokens} tokens out (the end token biased away). Prefill: prompt`);
  p('tokens prefilled (`usage`) ÷ time to the first content token; decode: content deltas after the first (one');
  p(
    `token each here; wllama's leading newlines, which the engine drops, not counted) ÷ time from the first to the last. ${data.pairs} pairs per run after one warm-up each, alternating which goes`,
  );
  p('first; median per run, then median (range) over the runs. The ratio row is the median, per run, of the ratios');
  p('within each pair (the two paths asked back to back), so a change in load between pairs falls on both paths.');
  p('Threads: the page is cross-origin isolated, the');
  p('config sets `llamaThreads`; /v1/models was checked to report that count.');
  p();
  p('| threads | path | prefill tokens/s | decode tokens/s |');
  p('|---|---|---|---|');
  for (const t of data.threads) {
    p(
      `| ${t} | inpage (/v1) | ${spread(
        per(t, (x) => median(x.v1.map(prefill))),
        fx(0),
      )} | ${spread(
        per(t, (x) => median(x.v1.map(decode))),
        fx(1),
      )} |`,
    );
    p(
      `| ${t} | wllama directly | ${spread(
        per(t, (x) => median(x.wllama.map(prefill))),
        fx(0),
      )} | ${spread(
        per(t, (x) => median(x.wllama.map(decode))),
        fx(1),
      )} |`,
    );
    p(
      `| ${t} | inpage ÷ wllama, within pairs | ${spread(
        per(t, (x) => paired(x, prefill)),
        fx(3),
      )} | ${spread(
        per(t, (x) => paired(x, decode)),
        fx(3),
      )} |`,
    );
    p(
      `| ${t} | native llama.cpp (node-llama-cpp ${data.nativeVersion}, CPU) | ${spread(
        per(t, (x) => median(x.native.map(prefill))),
        fx(0),
      )} | ${spread(
        per(t, (x) => median(x.native.map(decode))),
        fx(1),
      )} |`,
    );
    p(
      `| ${t} | wllama ÷ native, within pairs | ${spread(
        per(t, (x) => pairedNative(x, prefill)),
        fx(3),
      )} | ${spread(
        per(t, (x) => pairedNative(x, decode)),
        fx(3),
      )} |`,
    );
    p(
      `| ${t} | **inpage (/v1) ÷ native, within triples** | ${spread(
        per(t, (x) => v1Native(x, prefill)),
        fx(3),
      )} | ${spread(
        per(t, (x) => v1Native(x, decode)),
        fx(3),
      )} |`,
    );
    if (data.runs[0].threads[t].generic.length) {
      p(
        `| ${t} | wllama directly, its own generic wasm | ${spread(
          per(t, (x) => median(x.generic.map(prefill))),
          fx(0),
        )} | ${spread(
          per(t, (x) => median(x.generic.map(decode))),
          fx(1),
        )} |`,
      );
      p(
        `| ${t} | wllama, ${data.wasm} kernels ÷ generic (medians per run) | ${spread(
          per(t, (x) => median(x.wllama.map(prefill)) / median(x.generic.map(prefill))),
          fx(2),
        )} | ${spread(
          per(t, (x) => median(x.wllama.map(decode)) / median(x.generic.map(decode))),
          fx(2),
        )} |`,
      );
    }
  }
  p();
  p(
    `llama.cpp's wasm that ran: **${data.wasm}** (worker/engine/llamacpp/wasm-variants.ts: relaxed SIMD / SIMD128 / generic, by feature detection in this Chromium). The generic rows: wllama's own wasm, loaded directly in the same page after the pairs, ${data.runs[0].threads[data.threads[0]].generic.length} requests a run.`,
  );
  p();
  p("Native llama.cpp: node-llama-cpp's prebuilt CPU binary (an npm package), in the bench's Node process, on the");
  p(`same file with the same context (${CONTEXT}), thread count and greedy sampling, the prompt rendered as the engine renders it`);
  p("(ChatML with the non-thinking variant's empty thinking block; its token count checked equal to wllama's on every");
  p('request), its history cleared before each. Each request of a run goes to all three paths back to back, the order');
  p(
    `rotating. Greedy answers, native and wllama: ${data.nativeMismatches === 0 ? 'identical text every time' : `${data.nativeMismatches} of ${data.runs.length * data.threads.length * data.pairs} differed (first: \`${JSON.stringify(data.nativeMismatch).slice(0, 160)}\`)`}.`,
  );
  p();
  p("The same pairs with llama.cpp's own compute matched. Every answer carries llama.cpp's `timings` (through /v1");
  p("on the stream's finish chunk; directly from wllama). In each pair, the /v1 request's window (to the first");
  p("token; first to last token) has llama.cpp's own compute in it (`prompt_ms`; the decode steps at");
  p("`predicted_per_token_ms`) swapped for the direct request's; everything else in the window, which is the path's");
  p("own cost, stays. llama.cpp's compute for the same work varies from request to request here, by up to 2× (see");
  p("docs/benchmarks.md), and this takes that out of the ratio. The last row is llama.cpp's own speed, /v1 ÷ direct within");
  p('pairs, over every pair of every run: geometric mean and its 95 % interval. A /v1 path that slowed llama.cpp');
  p('down (by taking CPU from its threads) would show there, and would be hidden by the matched ratio.');
  p();
  p('| threads | ratio | prefill | decode |');
  p('|---|---|---|---|');
  const allPairs = (t, f) => data.runs.flatMap((r) => r.threads[t].v1.map((s, i) => f(s, r.threads[t].wllama[i])));
  for (const t of data.threads) {
    p(
      `| ${t} | inpage ÷ wllama, compute matched (median per run; median and range over runs) | ${spread(
        per(t, (x) => pairedBy(x, matchedPrefill)),
        fx(3),
      )} | ${spread(
        per(t, (x) => pairedBy(x, matchedDecode)),
        fx(3),
      )} |`,
    );
    p(`| ${t} | llama.cpp's own speed, /v1 ÷ direct (all pairs) | ${geoInterval(allPairs(t, ownPrefill))} | ${geoInterval(allPairs(t, ownDecode))} |`);
  }
  const samples = data.runs.flatMap((r) => data.threads.flatMap((t) => [...r.threads[t].v1, ...r.threads[t].wllama]));
  const offCount = samples.filter((s) => s.timings.prompt_n !== s.promptTokens - s.cachedTokens).length;
  p();
  p(`llama.cpp's \`prompt_n\` equalled the prompt tokens prefilled by \`usage\` in ${samples.length - offCount} of ${samples.length} answers.`);
  p();
  p('Decode at the pace kept while nothing else slowed a request (tokens/s from the lower quartile of its token');
  p('gaps): single requests on either path run at one of two paces, one about 1.5× slower, for the whole request;');
  p("the rows above mix the two. Not the target's figure; shown to separate the path's cost from that.");
  p();
  p('| threads | inpage (/v1) | wllama directly | inpage ÷ wllama, within pairs |');
  p('|---|---|---|---|');
  for (const t of data.threads) {
    p(
      `| ${t} | ${spread(
        per(t, (x) => median(x.v1.map(quickDecode))),
        fx(1),
      )} | ${spread(
        per(t, (x) => median(x.wllama.map(quickDecode))),
        fx(1),
      )} | ${spread(
        per(t, (x) => paired(x, quickDecode)),
        fx(3),
      )} |`,
    );
  }
  p();
  const all = data.runs.flatMap((r) => data.threads.flatMap((t) => r.threads[t].v1));
  const batched = all.filter((s) => s.deltas !== s.completionTokens).length;
  p(
    `Answers of the two paths to the same request: ${data.mismatches === 0 ? 'identical text every time' : `**${data.mismatches} differed** (first: \`${JSON.stringify(data.mismatch).slice(0, 160)}\`)`}. /v1 streams that carried more than one token in a delta: ${batched} of ${all.length}.`,
  );
  p();
  p('Load: `engine.control.load` of the model in a fresh browser context (from the network: the model host served');
  p("the file) and after a reload of that page (a new engine worker: from wllama's cache), in seconds. wllama");
  p('directly from the cache, in the same page, for comparison.');
  p();
  p('| threads | from the network | model GETs | from the cache (reload) | model GETs | wllama directly, cache |');
  p('|---|---|---|---|---|---|');
  for (const t of data.threads) {
    const s = (x) => (x / 1000).toFixed(2);
    p(
      `| ${t} | ${spread(
        per(t, (x) => x.network),
        s,
      )} | ${Math.max(...per(t, (x) => x.networkGets))} | ${spread(
        per(t, (x) => x.cache),
        s,
      )} | ${Math.max(...per(t, (x) => x.cacheGets))} | ${spread(
        per(t, (x) => x.directLoad),
        s,
      )} |`,
    );
  }
  p();
  if (data.long > 0) {
    p(`Time to the first token of a long agent prompt: a system text, six tools (their JSON schemas) and a question,`);
    p(`rendered by the model's chat template to at least ${data.long} tokens; a fresh nonce first, so nothing of it is cached;`);
    p('one request a run on each path, the first path alternating by run. Native llama.cpp gets the same text as the');
    p('template renders it (scripts/bench-llama.mjs: renderTools; prompt tokens of both shown). TTFT: from the request to');
    p('the first content token, in seconds; the ratio is of prefill rates (prompt tokens ÷ TTFT), /v1 ÷ native.');
    p();
    p('| threads | prompt tokens, /v1 (native) | TTFT through /v1 | TTFT native | /v1 ÷ native, prefill rate |');
    p('|---|---|---|---|---|');
    for (const t of data.threads) {
      const longs = data.runs.flatMap((r) => r.threads[t].long);
      const tokens = [...new Set(longs.map((x) => `${x.v1.promptTokens} (${x.native.promptTokens})`))].join(', ');
      p(
        `| ${t} | ${tokens} | ${spread(
          longs.map((x) => x.v1.ttft / 1000),
          fx(1),
        )} s | ${spread(
          longs.map((x) => x.native.ttft / 1000),
          fx(1),
        )} s | ${spread(
          longs.map((x) => prefill(x.v1) / prefill(x.native)),
          fx(3),
        )} |`,
      );
    }
    p();
  }
  if (data.consoleErrors.length)
    p(`Console errors in the llama.cpp pages: ${data.consoleErrors.length} (first: \`${data.consoleErrors[0].slice(0, 200)}\`).\n`);

  const ratios = data.threads.flatMap((t) => [median(per(t, (x) => paired(x, prefill))), median(per(t, (x) => paired(x, decode)))]);
  const worst = Math.min(...ratios);
  const matched = data.threads.flatMap((t) => [median(per(t, (x) => pairedBy(x, matchedPrefill))), median(per(t, (x) => pairedBy(x, matchedDecode)))]);
  const worstMatched = Math.min(...matched);
  const cacheGets = Math.max(...data.threads.flatMap((t) => per(t, (x) => x.cacheGets)));
  return [
    [
      "llama.cpp through /v1 ≥ 0.97× wllama directly (prefill and decode tokens/s, 1 and 2 threads), llama.cpp's own compute matched within pairs",
      `${worstMatched.toFixed(3)}× (worst of the four); unmatched ${worst.toFixed(3)}×`,
      worstMatched >= 0.97 && offCount === 0,
    ],
    ['llama.cpp load from the cache fetches no model bytes', `${cacheGets} model GETs`, cacheGets === 0],
    // Issue 47's: prefill ≥ 0.5× native (0.4× on Q8_0 and Q4_0), decode ≥ 0.7× (0.5×), at 2 threads.
    ...data.threads
      .filter((t) => t === 2)
      .flatMap((t) => {
        const k = LLAMA_MODEL.type === 'q4_k';
        const what = `at 2 threads (${(m.parameters / 1e6).toFixed(0)}M ${LLAMA_MODEL.mix ?? LLAMA_MODEL.type}, ${data.wasm} wasm)`;
        return [
          ['prefill', prefill, k ? 0.5 : 0.4],
          ['decode', decode, k ? 0.7 : 0.5],
        ].map(([name, rate, floor]) => {
          const ratio = median(per(t, (x) => v1Native(x, rate)));
          return [`llama.cpp ${name} through /v1 ≥ ${floor}× native llama.cpp ${what}`, `${ratio.toFixed(3)}×`, ratio >= floor];
        });
      }),
  ];
}

/** The llama region of BENCHMARKS.md: its text (llamaReport's rows and targets under `stamp`) and its targets. */
export function llamaRegion(data, stamp) {
  const lines = [];
  const targets = llamaReport((line = '') => lines.push(line), data);
  return { text: regionText('llama.cpp on the CPU', stampLine(stamp), lines, targets), targets };
}

/**
 * `npm run bench -- --only llama`: these rows alone, in a browser of their own, written into the llama region of
 * `outFile` (the rest of the file is kept as it was).
 */
export async function benchLlamaOnly({ outFile, quick, noBuild, env, port, log, chromiumPath, chromiumArgs, runs, uptime }) {
  const { chromium } = await import('@playwright/test');
  const before = uptime();
  const started = Date.now();
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  const data = await benchLlama({ browser, runs, quick, noBuild, env, port, log });
  await browser.close();
  const { text, targets } = llamaRegion(data, { started, before, after: uptime(), quick });
  writeRegions(outFile, { [data.region]: text });
  log(`wrote the llama.cpp rows into ${outFile}`);
  for (const [t, m, ok] of targets) log(`${metWord(ok)} ${t}: ${m}`);
}
