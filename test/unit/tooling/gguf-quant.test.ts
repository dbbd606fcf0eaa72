// The synthesizer's quantized tensors (scripts/gguf/gguf-file.ts), read back by a decoder written here from
// ggml's block layouts (ggml-common.h, dequantize_row_* in ggml-quants.c), not from the encoder; and the file's
// tensor table read by a GGUF reader of this test's own: types, offsets, alignment.
import { describe, expect, it } from 'vitest';
import { mulberry32, gaussian, quantizeQ4_0, quantizeQ4_K, quantizeQ5_0, quantizeQ6_K, quantizeQ8_0 } from '../../../scripts/gguf/gguf-file';
import { synthesizeGguf } from '../../../scripts/gguf/synthesize';

function half(h: number): number {
  const e = (h >> 10) & 31;
  const m = h & 1023;
  const v = e === 0 ? m / 1024 / 16384 : (1 + m / 1024) * 2 ** (e - 15);
  return h & 0x8000 ? -v : v;
}

/** Dequantization as ggml does it, one block layout at a time. */
const decode = {
  q8_0(bytes: Uint8Array): number[] {
    const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const out: number[] = [];
    for (let b = 0; b < bytes.length; b += 34) {
      const d = half(v.getUint16(b, true));
      for (let j = 0; j < 32; j++) out.push(v.getInt8(b + 2 + j) * d);
    }
    return out;
  },
  q4_0(bytes: Uint8Array): number[] {
    const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const out: number[] = [];
    for (let b = 0; b < bytes.length; b += 18) {
      const d = half(v.getUint16(b, true));
      const block = new Array<number>(32);
      for (let j = 0; j < 16; j++) {
        block[j] = ((bytes[b + 2 + j]! & 15) - 8) * d;
        block[j + 16] = ((bytes[b + 2 + j]! >> 4) - 8) * d;
      }
      out.push(...block);
    }
    return out;
  },
  q5_0(bytes: Uint8Array): number[] {
    const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const out: number[] = [];
    for (let b = 0; b < bytes.length; b += 22) {
      const d = half(v.getUint16(b, true));
      const qh = v.getUint32(b + 2, true);
      const block = new Array<number>(32);
      for (let j = 0; j < 16; j++) {
        const lo = (bytes[b + 6 + j]! & 15) | (((qh >>> j) & 1) << 4);
        const hi = (bytes[b + 6 + j]! >> 4) | (((qh >>> (j + 16)) & 1) << 4);
        block[j] = (lo - 16) * d;
        block[j + 16] = (hi - 16) * d;
      }
      out.push(...block);
    }
    return out;
  },
  q4_k(bytes: Uint8Array): number[] {
    const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const out: number[] = [];
    for (let b = 0; b < bytes.length; b += 144) {
      const d = half(v.getUint16(b, true));
      const dmin = half(v.getUint16(b + 2, true));
      const sc = bytes.subarray(b + 4, b + 16);
      const scaleMin = (j: number): [number, number] =>
        j < 4 ? [sc[j]! & 63, sc[j + 4]! & 63] : [(sc[j + 4]! & 15) | ((sc[j - 4]! >> 6) << 4), (sc[j + 4]! >> 4) | ((sc[j]! >> 6) << 4)];
      const qs = bytes.subarray(b + 16, b + 144);
      for (let c = 0; c < 4; c++) {
        const [s1, m1] = scaleMin(2 * c);
        const [s2, m2] = scaleMin(2 * c + 1);
        for (let l = 0; l < 32; l++) out.push(d * s1 * (qs[32 * c + l]! & 15) - dmin * m1);
        for (let l = 0; l < 32; l++) out.push(d * s2 * (qs[32 * c + l]! >> 4) - dmin * m2);
      }
    }
    return out;
  },
  // dequantize_row_q6_K, as written in ggml-quants.c.
  q6_k(bytes: Uint8Array): number[] {
    const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const out: number[] = [];
    for (let b = 0; b < bytes.length; b += 210) {
      const d = half(v.getUint16(b + 208, true));
      const y = new Array<number>(256);
      for (let n = 0; n < 256; n += 128) {
        const ql = b + n / 2;
        const qh = b + 128 + n / 4;
        const sc = b + 192 + n / 16;
        for (let l = 0; l < 32; l++) {
          const is = l >> 4;
          const q1 = ((bytes[ql + l]! & 15) | (((bytes[qh + l]! >> 0) & 3) << 4)) - 32;
          const q2 = ((bytes[ql + l + 32]! & 15) | (((bytes[qh + l]! >> 2) & 3) << 4)) - 32;
          const q3 = ((bytes[ql + l]! >> 4) | (((bytes[qh + l]! >> 4) & 3) << 4)) - 32;
          const q4 = ((bytes[ql + l + 32]! >> 4) | (((bytes[qh + l]! >> 6) & 3) << 4)) - 32;
          y[n + l] = d * v.getInt8(sc + is) * q1;
          y[n + l + 32] = d * v.getInt8(sc + is + 2) * q2;
          y[n + l + 64] = d * v.getInt8(sc + is + 4) * q3;
          y[n + l + 96] = d * v.getInt8(sc + is + 6) * q4;
        }
      }
      out.push(...y);
    }
    return out;
  },
};

const randomValues = (n: number, seed: number, scale = 1) => {
  const normal = gaussian(mulberry32(seed));
  return Float32Array.from({ length: n }, () => normal() * scale);
};

describe('block encodings', () => {
  it('Q8_0: 34-byte blocks, f16 d then 32 int8; values on its grid come back exactly', () => {
    // d = 1/64 (exact in f16); the block's largest magnitude is 127·d.
    const q = Array.from({ length: 64 }, (_, i) => ((i * 37) % 255) - 127);
    q[5] = 127;
    q[40] = -127;
    const x = Float32Array.from(q, (n) => n / 64);
    const bytes = quantizeQ8_0(x);
    expect(bytes.length).toBe(2 * 34);
    expect(new DataView(bytes.buffer).getUint16(0, true)).toBe(0x2400); // 1/64 in f16
    expect([...new Int8Array(bytes.buffer, 2, 32)]).toEqual(q.slice(0, 32));
    expect(decode.q8_0(bytes)).toEqual([...x]);
  });

  it('Q4_0: 18-byte blocks, element j in the low nibble of byte j, element j + 16 in the high one', () => {
    // The value of largest magnitude is 0.5, so d = 0.5 / -8 = -1/16, and x = (q − 8)·d for q in 0..15.
    const q = Array.from({ length: 32 }, (_, i) => (i * 7 + 3) % 16);
    q[9] = 0; // x = 0.5, the largest magnitude
    const x = Float32Array.from(q, (n) => (n - 8) * -(1 / 16));
    const bytes = quantizeQ4_0(x);
    expect(bytes.length).toBe(18);
    expect(half(new DataView(bytes.buffer).getUint16(0, true))).toBe(-1 / 16);
    for (let j = 0; j < 16; j++) expect([bytes[2 + j]! & 15, bytes[2 + j]! >> 4]).toEqual([q[j], q[j + 16]]);
    expect(decode.q4_0(bytes)).toEqual([...x]);
  });

  it('Q5_0: 22-byte blocks, the fifth bits in a little-endian u32 before the nibbles', () => {
    const q = Array.from({ length: 32 }, (_, i) => (i * 11 + 5) % 32);
    q[3] = 0; // x = 16/32 = 0.5, the largest magnitude: d = 0.5 / -16
    const x = Float32Array.from(q, (n) => (n - 16) * -(1 / 32));
    const bytes = quantizeQ5_0(x);
    expect(bytes.length).toBe(22);
    expect(decode.q5_0(bytes)).toEqual([...x]);
  });

  it('Q4_K: 144-byte super-blocks, 6-bit scales and mins of eight sub-blocks; values on its grid come back exactly', () => {
    // Sub-block s holds k[s]/64 · L − m[s]/128 with L in 0..15 (0 and 15 both present), so its scale is k[s]/64
    // and its min m[s]/128; the largest k and m are 63, so d = 1/64 and dmin = 1/128 exactly, and every 6-bit
    // code, including those above 15 (their top bits packed apart), is k[s] and m[s] exactly.
    const k = [63, 5, 17, 33, 40, 50, 62, 21];
    const m = [0, 63, 12, 47, 16, 33, 60, 1];
    const L = Array.from({ length: 256 }, (_, i) => (i * 5 + (i >> 5)) % 16);
    for (let s = 0; s < 8; s++) {
      L[s * 32 + 1] = 0;
      L[s * 32 + 2] = 15;
    }
    const x = Float32Array.from(L, (l, i) => (k[i >> 5]! / 64) * l - m[i >> 5]! / 128);
    const bytes = quantizeQ4_K(x);
    expect(bytes.length).toBe(144);
    const v = new DataView(bytes.buffer);
    expect([half(v.getUint16(0, true)), half(v.getUint16(2, true))]).toEqual([1 / 64, 1 / 128]);
    const decoded = decode.q4_k(bytes);
    decoded.forEach((y, i) => expect(y).toBeCloseTo(x[i]!, 6));
    // The nibbles themselves: 64 values per 32 bytes, the first 32 low, the next 32 high.
    for (let c = 0; c < 4; c++)
      for (let l = 0; l < 32; l++) expect([bytes[16 + 32 * c + l]! & 15, bytes[16 + 32 * c + l]! >> 4]).toEqual([L[64 * c + l], L[64 * c + 32 + l]]);
  });

  it('Q6_K: 210-byte super-blocks, low nibbles, high bit pairs, 16 int8 scales, f16 d last; values on its grid come back exactly', () => {
    // Sub-block s (16 values) holds −k[s]/256 · (q − 32) with q in 0..63, −32 present in each (its largest
    // magnitude); the largest k is 128, so d = 1/256 exactly (ggml's −128 ÷ the largest scale) and each code −k[s].
    const k = [128, 5, 17, 33, 40, 50, 62, 21, 90, 1, 64, 77, 100, 3, 126, 45];
    const q = Array.from({ length: 256 }, (_, i) => (i * 29 + (i >> 4)) % 64);
    for (let s = 0; s < 16; s++) q[s * 16 + 3] = 0;
    const x = Float32Array.from(q, (n, i) => (-k[i >> 4]! / 256) * (n - 32));
    const bytes = quantizeQ6_K(x);
    expect(bytes.length).toBe(210);
    expect(half(new DataView(bytes.buffer).getUint16(208, true))).toBe(1 / 256);
    expect([...new Int8Array(bytes.buffer, 192, 16)]).toEqual(k.map((n) => -n));
    const decoded = decode.q6_k(bytes);
    decoded.forEach((y, i) => expect(y).toBeCloseTo(x[i]!, 6));
  });

  it('random values come back within each encoding’s step', () => {
    const x = randomValues(4096, 3, 0.7);
    const worst = (decoded: number[], bound: (i: number) => number) => Math.max(...decoded.map((y, i) => Math.abs(y - x[i]!) / bound(i)));
    const blockMax = (size: number) => (i: number) => {
      const b = Math.floor(i / size) * size;
      return Math.max(...Array.from(x.subarray(b, b + size), Math.abs));
    };
    // Half a step, and the f16 scale's rounding (2^-11 of d) times up to 127 steps: 0.125 of half a step.
    expect(worst(decode.q8_0(quantizeQ8_0(x)), (i) => blockMax(32)(i) / 127 / 2)).toBeLessThan(1.13);
    // One step: the end opposite the largest magnitude is clipped at 7 steps, not 8.
    expect(worst(decode.q4_0(quantizeQ4_0(x)), (i) => blockMax(32)(i) / 8)).toBeLessThan(1.01);
    expect(worst(decode.q5_0(quantizeQ5_0(x)), (i) => blockMax(32)(i) / 16)).toBeLessThan(1.01);
    // Q4_K: the sub-block's range in 15 steps, its scale and min each rounded to 6 bits of the super-block's.
    const range = (i: number) => {
      const b = Math.floor(i / 32) * 32;
      const s = Array.from(x.subarray(b, b + 32));
      return Math.max(...s) - Math.min(0, ...s);
    };
    expect(worst(decode.q4_k(quantizeQ4_K(x)), (i) => range(i) / 15)).toBeLessThan(2);
    const rms = (d: number[]) => Math.sqrt(d.reduce((a, y, i) => a + (y - x[i]!) ** 2, 0) / d.length);
    expect(rms(decode.q4_k(quantizeQ4_K(x)))).toBeLessThan(rms(decode.q4_0(quantizeQ4_0(x))) * 1.2);
    // Q6_K: within a step of max|x| ÷ 32 per 16 values (half a step, and the int8 scale's rounding, which can
    // put a sub-block's extreme a fraction of a step past the clipped end).
    expect(worst(decode.q6_k(quantizeQ6_K(x)), (i) => blockMax(16)(i) / 32)).toBeLessThan(1);
    expect(rms(decode.q6_k(quantizeQ6_K(x)))).toBeLessThan(rms(decode.q4_k(quantizeQ4_K(x))) / 3);
  });
});

/** The tensor table of a GGUF v3 file, read here: name, dims, ggml type, offset; and where the data starts. */
function readTensors(bytes: Uint8Array) {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const u32 = () => ((at += 4), v.getUint32(at - 4, true));
  const u64 = () => ((at += 8), Number(v.getBigUint64(at - 8, true)));
  const str = () => {
    const n = u64();
    at += n;
    return new TextDecoder().decode(bytes.subarray(at - n, at));
  };
  const sizes: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
  const skip = (type: number): void => {
    if (type === 8) str();
    else if (type === 9) {
      const inner = u32();
      const n = u64();
      for (let i = 0; i < n; i++) skip(inner);
    } else at += sizes[type]!;
  };
  expect(u32()).toBe(0x46554747);
  expect(u32()).toBe(3);
  const nTensors = u64();
  const nMeta = u64();
  const meta = new Map<string, number>();
  for (let i = 0; i < nMeta; i++) {
    const key = str();
    const type = u32();
    if (type === 4) meta.set(key, v.getUint32(at, true));
    skip(type);
  }
  const tensors = Array.from({ length: nTensors }, () => {
    const name = str();
    const dims = Array.from({ length: u32() }, u64);
    return { name, dims, type: u32(), offset: u64() };
  });
  const alignment = meta.get('general.alignment') ?? 32;
  return { tensors, dataStart: Math.ceil(at / alignment) * alignment, alignment, fileType: meta.get('general.file_type') };
}

const F32 = 0;
const Q4_0 = 2;
const Q5_0 = 6;
const Q8_0 = 8;
const Q4_K = 12;
const Q6_K = 14;
const BLOCK: Record<number, [number, number]> = { 0: [1, 4], 1: [1, 2], 2: [32, 18], 6: [32, 22], 8: [32, 34], 12: [256, 144], 14: [256, 210] };

describe('quantized GGUF files', () => {
  const cases = [
    { type: 'q8_0', fileType: 7, matrix: Q8_0, options: {} },
    { type: 'q4_0', fileType: 2, matrix: Q4_0, options: {} },
    // 256 wide: every row is a whole number of Q4_K super-blocks.
    { type: 'q4_k', fileType: 15, matrix: Q4_K, options: { embedding: 256 } },
  ] as const;
  for (const c of cases) {
    it(`${c.type}: norms F32, every weight matrix ${c.type}, each tensor aligned and in bounds, the embedding as the synthesizer made it`, () => {
      const model = synthesizeGguf({ seed: 5, type: c.type, ...c.options });
      const plain = synthesizeGguf({ seed: 5, type: 'f32', ...c.options });
      const file = readTensors(model.bytes);
      expect(file.fileType).toBe(c.fileType);
      expect(file.alignment).toBe(32);
      expect(file.dataStart % 32).toBe(0);
      let end = 0;
      for (const t of file.tensors) {
        expect(t.type, t.name).toBe(t.dims.length === 1 ? F32 : c.matrix);
        expect(t.offset % 32, t.name).toBe(0);
        expect(t.offset, t.name).toBeGreaterThanOrEqual(end);
        const [block, size] = BLOCK[t.type]!;
        const count = t.dims.reduce((a, b) => a * b, 1);
        end = t.offset + (count / block) * size;
      }
      expect(file.dataStart + end).toBeLessThanOrEqual(model.bytes.length);
      expect(model.bytes.length - (file.dataStart + end)).toBeLessThan(32);
      expect(model.parameters).toBe(plain.parameters);

      // The token embedding, decoded from the file, against the F32 file's values.
      const at = (bytes: Uint8Array, name: string) => {
        const f = readTensors(bytes);
        const t = f.tensors.find((x) => x.name === name)!;
        const [block, size] = BLOCK[t.type]!;
        const count = t.dims.reduce((a, b) => a * b, 1);
        return bytes.subarray(f.dataStart + t.offset, f.dataStart + t.offset + (count / block) * size);
      };
      const raw = at(plain.bytes, 'token_embd.weight');
      const exact = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
      const decoded = decode[c.type](at(model.bytes, 'token_embd.weight'));
      expect(decoded.length).toBe(exact.length);
      // Within a step of the block's range (the embedding's values reach 6 in magnitude).
      const step = c.type === 'q8_0' ? 6 / 127 : 12 / 15;
      expect(Math.max(...decoded.map((y, i) => Math.abs(y - exact[i]!)))).toBeLessThan(step);
    });
  }

  it("mix 'q4_k_m': the output layer and, in use_more_bits' layers, attn_v and ffn_down Q6_K; grouped-query attention; a padded vocabulary", () => {
    const model = synthesizeGguf({ seed: 5, type: 'q4_k', mix: 'q4_k_m', embedding: 256, feedForward: 512, layers: 8, heads: 4, kvHeads: 2, vocabSize: 1000 });
    expect(model.vocabSize).toBe(1000);
    const file = readTensors(model.bytes);
    const typeOf = (name: string) => file.tensors.find((t) => t.name === name)!.type;
    expect(typeOf('output.weight')).toBe(Q6_K);
    expect(typeOf('token_embd.weight')).toBe(Q4_K);
    // 8 layers: the first and last eighth (layers 0 and 7), and layer 1 + 3k + 2 (layer 3, 6).
    const more = [0, 3, 6, 7];
    for (let l = 0; l < 8; l++) {
      expect(typeOf(`blk.${l}.attn_v.weight`), `layer ${l}`).toBe(more.includes(l) ? Q6_K : Q4_K);
      expect(typeOf(`blk.${l}.ffn_down.weight`), `layer ${l}`).toBe(more.includes(l) ? Q6_K : Q4_K);
      expect(typeOf(`blk.${l}.attn_q.weight`)).toBe(Q4_K);
    }
    // K and V are kvHeads × head size wide: 2 × 64.
    expect(file.tensors.find((t) => t.name === 'blk.0.attn_k.weight')!.dims).toEqual([256, 128]);
    expect(file.tensors.find((t) => t.name === 'output.weight')!.dims).toEqual([256, 1000]);
    expect(() => synthesizeGguf({ type: 'q8_0', mix: 'q4_k_m' })).toThrow(/needs type 'q4_k'/);
    expect(() => synthesizeGguf({ heads: 4, kvHeads: 3 })).toThrow(/multiple of kvHeads/);
    expect(() => synthesizeGguf({ vocabSize: 10 })).toThrow(/vocabSize: at least/);
  });

  it('q4_k rows that are not a multiple of 256 fall back to Q5_0, as llama.cpp does', () => {
    const file = readTensors(synthesizeGguf({ seed: 5, type: 'q4_k' }).bytes); // 64 wide
    for (const t of file.tensors) expect(t.type, t.name).toBe(t.dims.length === 1 ? F32 : Q5_0);
  });
});
