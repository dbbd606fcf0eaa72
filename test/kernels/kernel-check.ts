// Checks the wasm kernels of scripts/wasm-kernels (the bodies spliced into wllama's wasm) against scalar
// references transcribed from ggml's generic C (ggml-cpu/quants.c, ggml-quants.c), on random blocks and on the
// blocks the GGUF synthesizer writes (scripts/gguf/gguf-file.ts), one dot product at a time (nrc = 1) and as ggml's
// 2×2 tiles (nrc = 2: two weight rows against two activation columns). Pure: runs in Chromium (vitest browser mode,
// test/unit/engine/wasm-kernels.browser.test.ts), Firefox (test/firefox/wasm-kernels.test.ts) and WebKit
// (test/webkit/llamacpp.test.ts) alike.
import { fromHalf, gaussian, mulberry32, quantizeQ4_0, quantizeQ4_K, quantizeQ8_0, toHalf } from '../../scripts/gguf/gguf-file';

export type KernelName = 'ggml_vec_dot_q4_K_q8_K' | 'ggml_vec_dot_q6_K_q8_K' | 'ggml_vec_dot_q8_0_q8_0' | 'ggml_vec_dot_q4_0_q8_0';
/** One comparison: `exact` cases have unit scales and small sums, so any float order gives the same float. */
export interface KernelResult {
  kernel: string;
  source: 'random' | 'synthesizer' | 'extremes';
  exact: boolean;
  blocks: number;
  /** 1: one dot product; 2: one of the four of a 2×2 tile, `slot` saying which (s[0], s[1], s[bs], s[bs + 1]). */
  nrc: 1 | 2;
  slot?: TileSlot;
  got: number;
  want: number;
  /** |got − want| allowed: 0 for exact cases, else 2⁻¹⁸ of the sum of the blocks' magnitudes. */
  tolerance: number;
}

/** Where a 2×2 tile's products go: s[0] = x0·y0, s[1] = x1·y0, s[bs] = x0·y1, s[bs + 1] = x1·y1. */
export type TileSlot = 'x0y0' | 'x1y0' | 'x0y1' | 'x1y1';
/**
 * The tiles' strides: the second row `TILE_BX` bytes past the first's end, the second column `TILE_BY` past the
 * first's, and the output's `bs` (ggml passes 16): none of them the natural one, so a kernel that assumes contiguous
 * rows or ggml's 16 fails.
 */
const TILE_BX = 40;
const TILE_BY = 72;
const TILE_BS = 7;

const QK_K = 256;
const LAYOUT = {
  q4_0: { block: 32, bytes: 18 },
  q8_0: { block: 32, bytes: 34 },
  q4_K: { block: QK_K, bytes: 144 },
  q6_K: { block: QK_K, bytes: 210 },
  q8_K: { block: QK_K, bytes: 292 },
} as const;

const int8 = (b: number) => (b << 24) >> 24;
const half = (bytes: Uint8Array, at: number) => fromHalf(bytes[at]! | (bytes[at + 1]! << 8));
const f32 = (bytes: Uint8Array, at: number) => new DataView(bytes.buffer, bytes.byteOffset).getFloat32(at, true);
const i16 = (bytes: Uint8Array, at: number) => new DataView(bytes.buffer, bytes.byteOffset).getInt16(at, true);

/** q8_K activations (`block_q8_K`: f32 d, 256 int8, 16 int16 sums of 16) from values, or from given int8s and d. */
function q8K(qs: Int8Array, d: Float32Array): Uint8Array {
  const nb = qs.length / QK_K;
  const out = new Uint8Array(nb * LAYOUT.q8_K.bytes);
  const view = new DataView(out.buffer);
  for (let i = 0; i < nb; i++) {
    const at = i * LAYOUT.q8_K.bytes;
    view.setFloat32(at, d[i]!, true);
    for (let l = 0; l < QK_K; l++) view.setInt8(at + 4 + l, qs[i * QK_K + l]!);
    for (let g = 0; g < 16; g++) {
      let sum = 0;
      for (let l = 0; l < 16; l++) sum += qs[i * QK_K + 16 * g + l]!;
      view.setInt16(at + 4 + QK_K + 2 * g, sum, true);
    }
  }
  return out;
}

/** ggml's quantize_row_q8_K in short: d = max|x| / 127 per 256, q = round(x / d). */
function quantizeQ8K(x: Float32Array): Uint8Array {
  const nb = x.length / QK_K;
  const qs = new Int8Array(x.length);
  const d = new Float32Array(nb);
  for (let i = 0; i < nb; i++) {
    let max = 0;
    for (let l = 0; l < QK_K; l++) max = Math.max(max, Math.abs(x[i * QK_K + l]!));
    d[i] = max / 127;
    for (let l = 0; l < QK_K; l++) qs[i * QK_K + l] = max ? Math.max(-128, Math.min(127, Math.round(x[i * QK_K + l]! / d[i]!))) : 0;
  }
  return q8K(qs, d);
}

/** get_scale_min_k4: sub-block j's 6-bit scale and min. */
function scaleMin(s: Uint8Array, at: number, j: number): [number, number] {
  const q = (k: number) => s[at + k]!;
  return j < 4 ? [q(j) & 63, q(j + 4) & 63] : [(q(j + 4) & 0xf) | ((q(j - 4) >> 6) << 4), (q(j + 4) >> 4) | ((q(j) >> 6) << 4)];
}

/** Reference dot products: [Σ over blocks, Σ of the blocks' magnitudes]. Integers exact, the rest in float64. */
const REFERENCE: Record<KernelName, (x: Uint8Array, y: Uint8Array, nb: number) => [number, number]> = {
  ggml_vec_dot_q8_0_q8_0(x, y, nb) {
    let sum = 0,
      mag = 0;
    for (let i = 0; i < nb; i++) {
      const a = i * 34;
      let sumi = 0;
      for (let l = 0; l < 32; l++) sumi += int8(x[a + 2 + l]!) * int8(y[a + 2 + l]!);
      const term = sumi * half(x, a) * half(y, a);
      sum += term;
      mag += Math.abs(term);
    }
    return [sum, mag];
  },
  ggml_vec_dot_q4_0_q8_0(x, y, nb) {
    let sum = 0,
      mag = 0;
    for (let i = 0; i < nb; i++) {
      let sumi = 0;
      for (let j = 0; j < 16; j++) {
        const q = x[i * 18 + 2 + j]!;
        sumi += ((q & 0xf) - 8) * int8(y[i * 34 + 2 + j]!) + ((q >> 4) - 8) * int8(y[i * 34 + 2 + j + 16]!);
      }
      const term = sumi * half(x, i * 18) * half(y, i * 34);
      sum += term;
      mag += Math.abs(term);
    }
    return [sum, mag];
  },
  ggml_vec_dot_q4_K_q8_K(x, y, nb) {
    let sum = 0,
      mag = 0;
    for (let i = 0; i < nb; i++) {
      const a = i * 144,
        b = i * 292;
      let sumi = 0,
        summ = 0;
      for (let s = 0; s < 8; s++) {
        const [sc, m] = scaleMin(x, a + 4, s);
        let dot = 0;
        for (let l = 0; l < 32; l++) {
          const byte = x[a + 16 + 32 * (s >> 1) + l]!;
          dot += (s & 1 ? byte >> 4 : byte & 0xf) * int8(y[b + 4 + 32 * s + l]!);
        }
        sumi += sc * dot;
        summ += m * (i16(y, b + 4 + QK_K + 4 * s) + i16(y, b + 4 + QK_K + 4 * s + 2));
      }
      const yd = f32(y, b);
      const term = half(x, a) * yd * sumi - half(x, a + 2) * yd * summ;
      sum += term;
      mag += Math.abs(half(x, a) * yd * sumi) + Math.abs(half(x, a + 2) * yd * summ);
    }
    return [sum, mag];
  },
  ggml_vec_dot_q6_K_q8_K(x, y, nb) {
    let sum = 0,
      mag = 0;
    for (let i = 0; i < nb; i++) {
      const a = i * 210,
        b = i * 292;
      let sumi = 0;
      // dequantize_row_q6_K's walk: two halves of 128, element l + 32k with scale sc[is + 2k].
      for (let n = 0; n < 2; n++) {
        const ql = a + 64 * n,
          qh = a + 128 + 32 * n,
          sc = a + 192 + 8 * n,
          q8 = b + 4 + 128 * n;
        for (let l = 0; l < 32; l++) {
          const is = l >> 4;
          const h = x[qh + l]!;
          const q = [
            ((x[ql + l]! & 0xf) | (((h >> 0) & 3) << 4)) - 32,
            ((x[ql + l + 32]! & 0xf) | (((h >> 2) & 3) << 4)) - 32,
            ((x[ql + l]! >> 4) | (((h >> 4) & 3) << 4)) - 32,
            ((x[ql + l + 32]! >> 4) | (((h >> 6) & 3) << 4)) - 32,
          ];
          for (let k = 0; k < 4; k++) sumi += int8(x[sc + is + 2 * k]!) * q[k]! * int8(y[q8 + l + 32 * k]!);
        }
      }
      const term = half(x, a + 208) * f32(y, b) * sumi;
      sum += term;
      mag += Math.abs(term);
    }
    return [sum, mag];
  },
};

const randomBytes = (random: () => number, n: number, lo = 0, hi = 255) => Uint8Array.from({ length: n }, () => lo + Math.floor(random() * (hi - lo + 1)));
/** A finite half in ±[2⁻¹⁰, 2⁻²] (weights' scales are small). */
const randomHalf = (random: () => number) => toHalf((random() < 0.5 ? -1 : 1) * 2 ** (-10 + 8 * random()));
const putHalf = (bytes: Uint8Array, at: number, h: number) => ((bytes[at] = h & 0xff), (bytes[at + 1] = h >> 8));

/** Random blocks of a weight type, every byte random (all nibbles, 6-bit scales and signs reached) but the scales. */
function randomWeights(kernel: KernelName, random: () => number, nb: number, unit: boolean): Uint8Array {
  const type =
    kernel === 'ggml_vec_dot_q4_K_q8_K' ? 'q4_K' : kernel === 'ggml_vec_dot_q6_K_q8_K' ? 'q6_K' : kernel === 'ggml_vec_dot_q4_0_q8_0' ? 'q4_0' : 'q8_0';
  const { bytes } = LAYOUT[type];
  const out = randomBytes(random, nb * bytes);
  for (let i = 0; i < nb; i++) {
    const at = i * bytes;
    const d = () => (unit ? 0x3c00 : randomHalf(random));
    if (type === 'q4_K') {
      putHalf(out, at, d());
      putHalf(out, at + 2, d());
    } else if (type === 'q6_K') putHalf(out, at + 208, d());
    else putHalf(out, at, d());
  }
  return out;
}

/** Random activations for a kernel: q8_K for the K kinds, q8_0 otherwise; int8s within ±`range`. */
function randomActivations(kernel: KernelName, random: () => number, nb: number, unit: boolean, range = 128): Uint8Array {
  const n = nb * (kernel.endsWith('q8_K') ? QK_K : 32);
  const qs = Int8Array.from({ length: n }, () => Math.max(-128, Math.min(127, Math.floor((random() * 2 - 1) * range))));
  if (kernel.endsWith('q8_K'))
    return q8K(
      qs,
      Float32Array.from({ length: nb }, () => (unit ? 1 : Math.fround(2 ** (-8 + 6 * random())))),
    );
  const out = new Uint8Array(nb * 34);
  for (let i = 0; i < nb; i++) {
    putHalf(out, i * 34, unit ? 0x3c00 : randomHalf(random));
    for (let l = 0; l < 32; l++) out[i * 34 + 2 + l] = qs[i * 32 + l]! & 0xff;
  }
  return out;
}

/** Weights and activations as the synthesizer and ggml's activation quantizers write them, from gaussian values. */
function synthesized(kernel: KernelName, random: () => number, nb: number): [Uint8Array, Uint8Array] | null {
  const normal = gaussian(random);
  const per = kernel.endsWith('q8_K') ? QK_K : 32;
  const w = Float32Array.from({ length: nb * per }, () => 0.05 * normal());
  const v = Float32Array.from({ length: nb * per }, () => normal());
  if (kernel === 'ggml_vec_dot_q4_K_q8_K') return [quantizeQ4_K(w), quantizeQ8K(v)];
  if (kernel === 'ggml_vec_dot_q8_0_q8_0') return [quantizeQ8_0(w), quantizeQ8_0(v)];
  if (kernel === 'ggml_vec_dot_q4_0_q8_0') return [quantizeQ4_0(w), quantizeQ8_0(v)];
  return null; // the synthesizer writes no Q6_K
}

/** The extremes: every weight byte 0xff or 0x00 against activations of −128 and 127 (saturation would show). */
function extremes(kernel: KernelName, nb: number, weightByte: number, activation: number): [Uint8Array, Uint8Array] {
  const x = randomWeights(kernel, () => weightByte / 256, nb, true);
  const y = randomActivations(kernel, () => (activation < 0 ? 0 : 0.9999), nb, true);
  return [x, y];
}

/**
 * Instantiates a kernel module (its own exported memory) and calls its functions with the right integer kinds.
 * `prepare`: called with the module's exports first (the per-kernel bench gives wllama's generic bodies their table).
 */
export async function loadKernels(bytes: BufferSource, prepare?: (exports: WebAssembly.Exports) => void) {
  const { instance } = await WebAssembly.instantiate(bytes, {});
  prepare?.(instance.exports);
  const exports = instance.exports as Record<string, unknown>;
  const memory = exports.memory as WebAssembly.Memory;
  // 64-bit memory: pointers and sizes are BigInt; 32-bit: numbers (the 64-bit count of fp16_to_fp32 is BigInt in both).
  const probe = exports.ggml_vec_dot_q8_0_q8_0 as (...a: unknown[]) => void;
  let memory64 = false;
  try {
    probe(0, 0, 0, 0, 0, 0, 0, 1);
  } catch {
    memory64 = true;
  }
  const ptr = (n: number) => (memory64 ? BigInt(n) : n);
  const at = { x: 4096, y: 4096 + 256 * 1024, s: 1024 };
  return {
    memory64,
    dot(kernel: KernelName, x: Uint8Array, y: Uint8Array, n: number): number {
      new Uint8Array(memory.buffer).set(x, at.x);
      new Uint8Array(memory.buffer).set(y, at.y);
      (exports[kernel] as (...a: unknown[]) => void)(n, ptr(at.s), ptr(0), ptr(at.x), ptr(0), ptr(at.y), ptr(0), 1);
      return new Float32Array(memory.buffer, at.s, 1)[0]!;
    },
    /**
     * A 2×2 tile (nrc = 2): rows x0, x1 and columns y0, y1 at the strides above. Its four floats by slot; all NaN
     * when the kernel wrote any other float of the output's 2·bs + 2 (each set to a sentinel first).
     */
    tile(kernel: KernelName, [x0, x1]: [Uint8Array, Uint8Array], [y0, y1]: [Uint8Array, Uint8Array], n: number): Record<TileSlot, number> {
      const bytes = new Uint8Array(memory.buffer);
      const bx = x0.length + TILE_BX;
      const by = y0.length + TILE_BY;
      bytes.set(x0, at.x);
      bytes.set(x1, at.x + bx);
      bytes.set(y0, at.y);
      bytes.set(y1, at.y + by);
      const out = new Float32Array(memory.buffer, at.s, 2 * TILE_BS + 2);
      const SENTINEL = -12345.5;
      out.fill(SENTINEL);
      (exports[kernel] as (...a: unknown[]) => void)(n, ptr(at.s), ptr(TILE_BS), ptr(at.x), ptr(bx), ptr(at.y), ptr(by), 2);
      const slots = [0, 1, TILE_BS, TILE_BS + 1];
      const clean = out.every((v, i) => slots.includes(i) || v === SENTINEL);
      const get = (i: number) => (clean ? out[i]! : NaN);
      return { x0y0: get(0), x1y0: get(1), x0y1: get(TILE_BS), x1y1: get(TILE_BS + 1) };
    },
    fp16(name: 'ggml_cpu_fp16_to_fp32' | 'ggml_fp16_to_fp32_row', halves: Uint16Array): Float32Array {
      new Uint16Array(memory.buffer, at.x, halves.length).set(halves);
      const out = at.x + halves.length * 2 + 64;
      (exports[name] as (...a: unknown[]) => void)(ptr(at.x), ptr(out), BigInt(halves.length));
      return new Float32Array(memory.buffer.slice(out, out + halves.length * 4));
    },
  };
}

export const DOT_KERNELS: KernelName[] = ['ggml_vec_dot_q4_K_q8_K', 'ggml_vec_dot_q6_K_q8_K', 'ggml_vec_dot_q8_0_q8_0', 'ggml_vec_dot_q4_0_q8_0'];

/** Every dot kernel on random, exact, extreme and synthesized blocks; the results, not a verdict. */
export async function checkDots(bytes: BufferSource, seed = 38, prepare?: (exports: WebAssembly.Exports) => void): Promise<KernelResult[]> {
  const k = await loadKernels(bytes, prepare);
  const random = mulberry32(seed);
  const results: KernelResult[] = [];
  for (const kernel of DOT_KERNELS) {
    const per = kernel.endsWith('q8_K') ? QK_K : 32;
    const run = (source: KernelResult['source'], exact: boolean, x: Uint8Array, y: Uint8Array, nb: number) => {
      const [want, mag] = REFERENCE[kernel](x, y, nb);
      results.push({ kernel, source, exact, blocks: nb, nrc: 1, got: k.dot(kernel, x, y, nb * per), want, tolerance: exact ? 0 : mag * 2 ** -18 });
    };
    // A 2×2 tile: each of its four products against the reference of that row and column.
    const tile = (source: KernelResult['source'], exact: boolean, xs: [Uint8Array, Uint8Array], ys: [Uint8Array, Uint8Array], nb: number) => {
      const got = k.tile(kernel, xs, ys, nb * per);
      for (const [slot, r, c] of [
        ['x0y0', 0, 0],
        ['x1y0', 1, 0],
        ['x0y1', 0, 1],
        ['x1y1', 1, 1],
      ] as const) {
        const [want, mag] = REFERENCE[kernel](xs[r], ys[c], nb);
        results.push({ kernel, source, exact, blocks: nb, nrc: 2, slot, got: got[slot], want, tolerance: exact ? 0 : mag * 2 ** -18 });
      }
    };
    const weights = (nb: number, unit: boolean) => randomWeights(kernel, random, nb, unit);
    for (const nb of [1, 2, 3, 8, 17]) {
      for (let rep = 0; rep < 4; rep++) run('random', false, randomWeights(kernel, random, nb, false), randomActivations(kernel, random, nb, false), nb);
      // Unit scales and activations within ±16 keep every sum below 2²⁴: the float result is the exact integer.
      if (nb <= 3)
        for (let rep = 0; rep < 4; rep++) run('random', true, randomWeights(kernel, random, nb, true), randomActivations(kernel, random, nb, true, 16), nb);
      const synth = synthesized(kernel, random, nb);
      if (synth) run('synthesizer', false, synth[0], synth[1], nb);
      // Tiles: two random rows against two random columns (every product differs, so a swapped slot shows).
      for (let rep = 0; rep < 2; rep++)
        tile(
          'random',
          false,
          [weights(nb, false), weights(nb, false)],
          [randomActivations(kernel, random, nb, false), randomActivations(kernel, random, nb, false)],
          nb,
        );
      if (nb <= 3)
        tile(
          'random',
          true,
          [weights(nb, true), weights(nb, true)],
          [randomActivations(kernel, random, nb, true, 16), randomActivations(kernel, random, nb, true, 16)],
          nb,
        );
      const synth2 = synthesized(kernel, random, nb);
      if (synth && synth2) tile('synthesizer', false, [synth[0], synth2[0]], [synth[1], synth2[1]], nb);
    }
    for (const [w, a] of [
      [255, -128],
      [255, 127],
      [0, -128],
      [0, 127],
    ] as const) {
      const [x, y] = extremes(kernel, 1, w, a);
      run('extremes', false, x, y, 1);
      // The extremes in a tile: these weights against the opposite activations in the other slots.
      const [, yo] = extremes(kernel, 1, w, a < 0 ? 127 : -128);
      const [xo] = extremes(kernel, 1, 255 - w, a);
      tile('extremes', false, [x, xo], [y, yo], 1);
    }
  }
  return results;
}

/**
 * fp16 → fp32 over every half (and a tail that is not a multiple of 8): the count of halves whose float differs
 * from the exact value (NaN for NaN), per function.
 */
export async function checkFp16(bytes: BufferSource): Promise<Record<string, { checked: number; wrong: number[] }>> {
  const k = await loadKernels(bytes);
  const halves = Uint16Array.from({ length: 65536 + 5 }, (_, i) => i & 0xffff);
  const out: Record<string, { checked: number; wrong: number[] }> = {};
  for (const name of ['ggml_cpu_fp16_to_fp32', 'ggml_fp16_to_fp32_row'] as const) {
    const got = k.fp16(name, halves);
    const wrong: number[] = [];
    halves.forEach((h, i) => {
      const want = fromHalf(h);
      if (Number.isNaN(want) ? !Number.isNaN(got[i]) : !Object.is(got[i], want)) wrong.push(h);
    });
    out[name] = { checked: halves.length, wrong: wrong.slice(0, 8) };
  }
  return out;
}
