// Per-kernel speed of llama.cpp's wasm kernels (`npm run bench -- --only kernels`, or `node scripts/bench-kernels.mjs`):
// each kernel of scripts/wasm-kernels (SIMD128 and relaxed SIMD, 64-bit memory as in wllama's main build) against the
// generic body wllama 3.13.0 ships for it, in Chromium. The generic bodies are taken out of wllama's wasm and put into
// a kernel module (splice.mjs's spliceBodies; they use the stack pointer, global 0 in both modules), checked there
// against ggml's reference like the new ones, then every kernel is called in a loop on the same blocks: ns a call,
// median of rounds taken in turn. Ratios: generic ÷ new (how many times faster). The new kernels' 2×2 tiles (nrc 2,
// what ggml's mul_mat calls in prefill) are timed too, as ns per row·column product (a tile's time ÷ 4) beside the
// single product's.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KERNELS, readModule, spliceBodies } from './wasm-kernels/splice.mjs';
import { regionText, stampLine } from './bench-regions.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = JSON.parse(readFileSync(join(ROOT, 'test/chromium-flags.json'), 'utf8'));

/** The three modules: wllama's generic bodies, and the two variants' kernels (all 64-bit memory). */
function modules() {
  const wllama = readModule(new Uint8Array(readFileSync(join(ROOT, 'node_modules/@wllama/wllama/esm/wasm/wllama.wasm'))));
  const kernelFile = (v) => new Uint8Array(readFileSync(join(ROOT, `scripts/wasm-kernels/kernels-wasm64-${v}.wasm`)));
  const generic = spliceBodies(readModule(kernelFile('simd128')), wllama, KERNELS, {
    hostName: 'the kernel module',
    sourceName: "wllama's wasm",
    allowedGlobals: [0],
  }).bytes;
  return { mods: { generic, simd128: kernelFile('simd128'), relaxed: kernelFile('relaxed') }, table: fp16Table(wllama) };
}

/**
 * Where wllama's generic kernels read ggml's fp16 → fp32 table (ggml_table_f32_f16, filled at ggml's start): the
 * offset of their `f32.load`s above 1 MiB (an f32.load is 0x2a, then its alignment 2, then the offset). The bench
 * fills that table in the kernel module's memory, so the generic bodies compute what they do in wllama.
 */
function fp16Table(wllama) {
  const body = wllama.bodies[wllama.byName.get('ggml_vec_dot_q4_K_q8_K') - wllama.importedFuncs];
  const counts = new Map();
  for (let i = 0; i + 2 < body.length; i++) {
    if (body[i] !== 0x2a || body[i + 1] !== 0x02) continue;
    let value = 0;
    let shift = 0;
    let j = i + 2;
    for (; j < i + 7; j++) {
      value += (body[j] & 0x7f) * 2 ** shift;
      shift += 7;
      if (!(body[j] & 0x80)) break;
    }
    if (value >= 1 << 20) counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  const [table] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? [];
  if (!table) throw new Error("no fp16 table found in wllama's generic ggml_vec_dot_q4_K_q8_K");
  return table;
}

/** Runs in the page: gives each module's memory ggml's fp16 table at `table` (and room for it). */
function placeTable(exports, table) {
  const memory = exports.memory;
  const need = table + 65536 * 4;
  if (memory.buffer.byteLength < need) memory.grow(BigInt(Math.ceil((need - memory.buffer.byteLength) / 65536)));
  const f = new Float32Array(memory.buffer, table, 65536);
  for (let h = 0; h < 65536; h++) {
    const sign = h & 0x8000 ? -1 : 1;
    const exp = (h >> 10) & 0x1f;
    const mant = h & 0x3ff;
    f[h] = exp === 0 ? sign * mant * 2 ** -24 : exp === 31 ? (mant ? NaN : sign * Infinity) : sign * (1 + mant / 1024) * 2 ** (exp - 15);
  }
}

async function harness() {
  const { build } = await import('rolldown');
  const dir = await mkdtemp(join(tmpdir(), 'inpage-bench-kernels-'));
  try {
    await build({
      input: join(ROOT, 'test/kernels/kernel-check.ts'),
      platform: 'browser',
      logLevel: 'silent',
      output: { file: join(dir, 'h.js'), format: 'iife', name: 'kernels' },
    });
    return await readFile(join(dir, 'h.js'), 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs in the page: ns per call of `kernel` in each module, `rounds` rounds taken in turn. */
async function timeKernels({ mods, rounds, calls, table, placeTableSource }) {
  const placeTable = new Function(`return ${placeTableSource}`)();
  const loaded = {};
  for (const [name, bytes] of Object.entries(mods)) {
    const { instance } = await WebAssembly.instantiate(Uint8Array.from(bytes), {});
    placeTable(instance.exports, table);
    loaded[name] = instance.exports;
  }
  // Weight rows of 4096 values (16 Q4_K/Q6_K super-blocks, 128 Q8_0/Q4_0 blocks), random bytes with sane scales.
  const N = 4096;
  const fill = (mem) => {
    const u8 = new Uint8Array(mem.buffer);
    let seed = 7;
    for (let i = 4096; i < 4096 + 512 * 1024; i++) u8[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
    const halves = new Uint16Array(mem.buffer);
    // Every half finite (a block's scale is wherever its bytes fall): no NaN or infinity slows a float path.
    for (let i = 2048; i < 2048 + 256 * 1024; i++) if ((halves[i] & 0x7c00) === 0x7c00) halves[i] &= 0xbfff;
  };
  for (const e of Object.values(loaded)) fill(e.memory);
  const call = {
    ggml_vec_dot_q4_K_q8_K: (e) => e.ggml_vec_dot_q4_K_q8_K(N, 1024n, 0n, 4096n, 0n, 4096n + 262144n, 0n, 1),
    ggml_vec_dot_q6_K_q8_K: (e) => e.ggml_vec_dot_q6_K_q8_K(N, 1024n, 0n, 4096n, 0n, 4096n + 262144n, 0n, 1),
    ggml_vec_dot_q8_0_q8_0: (e) => e.ggml_vec_dot_q8_0_q8_0(N, 1024n, 0n, 4096n, 0n, 4096n + 262144n, 0n, 1),
    ggml_vec_dot_q4_0_q8_0: (e) => e.ggml_vec_dot_q4_0_q8_0(N, 1024n, 0n, 4096n, 0n, 4096n + 262144n, 0n, 1),
    ggml_cpu_fp16_to_fp32: (e) => e.ggml_cpu_fp16_to_fp32(4096n, 4096n + 262144n, BigInt(N)),
  };
  // 2×2 tiles of rows of 4096: the second row and column right after the first (bx, by: a row's bytes), bs 16 as ggml.
  const rowBytes = {
    ggml_vec_dot_q4_K_q8_K: [2304n, 4672n],
    ggml_vec_dot_q6_K_q8_K: [3360n, 4672n],
    ggml_vec_dot_q8_0_q8_0: [4352n, 4352n],
    ggml_vec_dot_q4_0_q8_0: [2304n, 4352n],
  };
  const tile = Object.fromEntries(Object.entries(rowBytes).map(([k, [bx, by]]) => [`${k} 2×2`, (e) => e[k](N, 1024n, 16n, 4096n, bx, 4096n + 262144n, by, 2)]));
  const out = {};
  for (const [kernel, f] of Object.entries({ ...call, ...tile })) {
    // wllama's generic bodies take no tiles (its type_traits_cpu says nrows 1).
    const modules = Object.entries(loaded).filter(([m]) => !(kernel.endsWith('2×2') && m === 'generic'));
    const samples = Object.fromEntries(modules.map(([m]) => [m, []]));
    for (const [, e] of modules) for (let i = 0; i < calls / 10; i++) f(e);
    for (let r = 0; r < rounds; r++) {
      for (const [m, e] of modules) {
        const t0 = performance.now();
        for (let i = 0; i < calls; i++) f(e);
        samples[m].push(((performance.now() - t0) * 1e6) / calls);
      }
    }
    out[kernel] = samples;
  }
  return out;
}

export async function benchKernels({ log = console.log, rounds = 9, calls = 20000 } = {}) {
  const { chromium } = await import('@playwright/test');
  const { mods, table } = modules();
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    await page.goto('about:blank');
    await page.addScriptTag({ content: await harness() });
    // The generic bodies, moved, still compute what ggml's reference does (else the timing would be of something else).
    const checks = {};
    for (const [name, bytes] of Object.entries(mods)) {
      const results = await page.evaluate(
        async ({ b, table, source }) => window.kernels.checkDots(Uint8Array.from(b), 38, (e) => new Function(`return ${source}`)()(e, table)),
        { b: [...bytes], table, source: placeTable.toString() },
      );
      // The generic bodies are checked on single products only (they take no tiles).
      const cases = results.filter((r) => name !== 'generic' || r.nrc === 1);
      checks[name] = { off: cases.filter((r) => !(Math.abs(r.got - r.want) <= r.tolerance)).length, of: cases.length };
    }
    log(`  kernels off ggml's reference: ${JSON.stringify(checks)}`);
    const plain = Object.fromEntries(Object.entries(mods).map(([k, v]) => [k, [...v]]));
    const times = await page.evaluate(timeKernels, { mods: plain, rounds, calls, table, placeTableSource: placeTable.toString() });
    return { times, checks, rounds, calls };
  } finally {
    await browser.close();
  }
}

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const median = (xs) => sorted(xs)[Math.floor((xs.length - 1) / 2)];

/** The markdown table of benchKernels' figures. */
export function kernelsReport(p, { times, checks, rounds, calls }) {
  p('| kernel (a row of 4096 weights) | generic (wllama 3.13.0), ns | SIMD128, ns | relaxed SIMD, ns | SIMD128 speed-up | relaxed speed-up |');
  p('|---|---|---|---|---|---|');
  for (const [kernel, s] of Object.entries(times)) {
    if (kernel.endsWith('2×2')) continue;
    const [g, m, r] = [median(s.generic), median(s.simd128), median(s.relaxed)];
    p(`| \`${kernel}\` | ${g.toFixed(0)} | ${m.toFixed(0)} | ${r.toFixed(0)} | ${(g / m).toFixed(2)}× | ${(g / r).toFixed(2)}× |`);
  }
  p();
  p('| kernel, 2×2 tile (nrc 2) | SIMD128: single, ns | SIMD128: tile ÷ 4, ns | SIMD128 gain | relaxed: single, ns | relaxed: tile ÷ 4, ns | relaxed gain |');
  p('|---|---|---|---|---|---|---|');
  for (const [kernel, s] of Object.entries(times)) {
    if (!kernel.endsWith('2×2')) continue;
    const single = times[kernel.replace(' 2×2', '')];
    const [m1, m4, r1, r4] = [median(single.simd128), median(s.simd128) / 4, median(single.relaxed), median(s.relaxed) / 4];
    p(
      `| \`${kernel.replace(' 2×2', '')}\` | ${m1.toFixed(0)} | ${m4.toFixed(0)} | ${(m1 / m4).toFixed(2)}× | ${r1.toFixed(0)} | ${r4.toFixed(0)} | ${(r1 / r4).toFixed(2)}× |`,
    );
  }
  p();
  p(`Median of ${rounds} rounds of ${calls} calls each, the modules in turn within a round, 64-bit memory (wllama's main build), in Chromium.`);
  p(
    `Cases off ggml's reference (kernel-check.ts): generic ${checks.generic.off} of ${checks.generic.of} (single products), SIMD128 ${checks.simd128.off} of ${checks.simd128.of}, relaxed ${checks.relaxed.off} of ${checks.relaxed.of} (single and tiles).`,
  );
}

/** The kernels region of BENCHMARKS.md: kernelsReport's tables under `stamp`. */
export function kernelsRegion(data, stamp) {
  const lines = ['scripts/bench-kernels.mjs: each kernel of scripts/wasm-kernels against the generic body wllama ships for it (docs/engines.md).', ''];
  kernelsReport((line = '') => lines.push(line), data);
  return regionText("llama.cpp's wasm kernels", stampLine(stamp), lines);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const lines = [];
  kernelsReport((s = '') => lines.push(s), await benchKernels());
  console.log(lines.join('\n'));
}
