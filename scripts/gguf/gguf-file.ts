// The GGUF v3 file format, written: metadata, tensor infos, 32-byte aligned tensor data. Shared by the
// synthesizers of a tiny language model (synthesize.ts) and of a tiny vision projector (synthesize-mmproj.ts),
// with their seeded random numbers. Nothing here is downloaded.

/**
 * How a file stores its weight matrices: plain floats, or one of ggml's block quantizations (llama.cpp's
 * `Q8_0`, `Q4_0`, `Q4_K`; `Q5_0` is what `Q4_K` falls back to, as in llama.cpp, for rows that are not a
 * multiple of 256 values).
 */
export type TensorType = 'f32' | 'f16' | 'q8_0' | 'q4_0' | 'q4_k';
/** Every storage a tensor can end up in (the file types, and the fall-backs). */
export type StoredType = TensorType | 'q5_0' | 'q6_k';

/** ggml's type codes (`enum ggml_type`), values per block and bytes per block. */
export const GGML_TYPES: Record<StoredType, { code: number; block: number; bytes: number }> = {
  f32: { code: 0, block: 1, bytes: 4 },
  f16: { code: 1, block: 1, bytes: 2 },
  q4_0: { code: 2, block: 32, bytes: 18 },
  q5_0: { code: 6, block: 32, bytes: 22 },
  q8_0: { code: 8, block: 32, bytes: 34 },
  q4_k: { code: 12, block: 256, bytes: 144 },
  q6_k: { code: 14, block: 256, bytes: 210 },
};

/** `general.file_type` (`enum llama_ftype`): ALL_F32, MOSTLY_F16, MOSTLY_Q4_0, MOSTLY_Q8_0, MOSTLY_Q4_K_M. */
export const FILE_TYPES: Record<TensorType, number> = { f32: 0, f16: 1, q4_0: 2, q8_0: 7, q4_k: 15 };

/** A metadata entry: key, value kind, value. */
export type Meta = [string, 'u32' | 'f32' | 'bool' | 'string' | 'strings' | 'i32s' | 'f32s', unknown];

/**
 * A tensor in ggml order (ne0 first), with its values, or a function that makes them when the file is written (so
 * a large model never holds all its weights as floats at once). `type` overrides `storedType`'s choice (a mixed
 * file such as Q4_K_M's, where some matrices are Q6_K).
 */
export interface Tensor {
  name: string;
  dims: number[];
  data: Float32Array | (() => Float32Array);
  type?: StoredType;
}

// GGUF value types.
/** GGUF's value type codes. */
export const T = { u8: 0, i8: 1, u16: 2, i16: 3, u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9, u64: 10, i64: 11, f64: 12 } as const;

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function gaussian(random: () => number): () => number {
  return () => {
    const u = Math.max(random(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
  };
}

/** The IEEE half-precision bits nearest to `value` (ties away from zero in the last bit). */
export function toHalf(value: number): number {
  const f32 = new Float32Array([value]);
  const x = new Uint32Array(f32.buffer)[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = ((x >>> 23) & 0xff) - 127 + 15;
  const mant = x & 0x7fffff;
  if (exp <= 0) {
    if (exp < -10) return sign;
    const m = (mant | 0x800000) >>> (1 - exp);
    return sign | ((m + 0x1000) >>> 13);
  }
  if (exp >= 31) return sign | 0x7c00;
  return (sign | (exp << 10) | (mant >>> 13)) + ((mant >>> 12) & 1);
}

/** Little-endian bytes, appended; the one GGUF byte writer (the synthesizers and the split tool). */
export class Writer {
  private chunks: Uint8Array[] = [];
  length = 0;
  push(bytes: Uint8Array) {
    this.chunks.push(bytes);
    this.length += bytes.length;
  }
  u16(v: number) {
    const b = new Uint8Array(2);
    new DataView(b.buffer).setUint16(0, v, true);
    this.push(b);
  }
  u32(v: number) {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, v, true);
    this.push(b);
  }
  i32(v: number) {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setInt32(0, v, true);
    this.push(b);
  }
  u64(v: number | bigint) {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, BigInt(v), true);
    this.push(b);
  }
  f32(v: number) {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, v, true);
    this.push(b);
  }
  bool(v: boolean) {
    this.push(new Uint8Array([v ? 1 : 0]));
  }
  string(s: string) {
    const bytes = new TextEncoder().encode(s);
    this.u64(bytes.length);
    this.push(bytes);
  }
  bytes(b: Uint8Array) {
    this.push(b);
  }
  pad(alignment: number) {
    const rest = this.length % alignment;
    if (rest) this.push(new Uint8Array(alignment - rest));
  }
  result(): Uint8Array {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

function writeMeta(w: Writer, [key, kind, value]: Meta) {
  w.string(key);
  switch (kind) {
    case 'u32':
      w.u32(T.u32);
      w.u32(value as number);
      return;
    case 'f32':
      w.u32(T.f32);
      w.f32(value as number);
      return;
    case 'bool':
      w.u32(T.bool);
      w.bool(value as boolean);
      return;
    case 'string':
      w.u32(T.string);
      w.string(value as string);
      return;
    case 'strings':
      w.u32(T.array);
      w.u32(T.string);
      w.u64((value as string[]).length);
      for (const s of value as string[]) w.string(s);
      return;
    case 'i32s':
      w.u32(T.array);
      w.u32(T.i32);
      w.u64((value as number[]).length);
      for (const n of value as number[]) w.i32(n);
      return;
    case 'f32s':
      w.u32(T.array);
      w.u32(T.f32);
      w.u64((value as number[]).length);
      for (const n of value as number[]) w.f32(n);
      return;
  }
}

/**
 * The storage of tensor `t` in a file of type `type`, as llama.cpp's quantizer (`llama-quantize --pure`, every
 * weight matrix the one type) and converters choose it: tensors of one dimension (norms, biases) stay F32; a
 * matrix (`*.weight`, two or more dimensions, token embedding and output included) takes the file's type if its
 * row (ne0) is a whole number of that type's blocks. Otherwise: `q4_k` falls back to Q5_0 (llama.cpp's fall-back),
 * and to F16 where that does not fit either; `q8_0` and `q4_0` fall back to F16 (llama.cpp refuses such a file).
 */
export function storedType(t: { name: string; dims: readonly number[] }, type: TensorType): StoredType {
  if (type === 'f32' || t.dims.length < 2 || !t.name.endsWith('weight')) return 'f32';
  const fits = (s: StoredType) => t.dims[0]! % GGML_TYPES[s].block === 0;
  if (fits(type)) return type;
  if (type === 'q4_k' && fits('q5_0')) return 'q5_0';
  return 'f16';
}

/** `roundf`: to nearest, ties away from zero. */
const roundAway = (x: number) => Math.sign(x) * Math.round(Math.abs(x));

/** Q8_0 (`block_q8_0`): per 32 values, an f16 scale d = max|x| / 127, then 32 int8 q = round(x / d). */
export function quantizeQ8_0(x: Float32Array): Uint8Array {
  const out = new Uint8Array((x.length / 32) * 34);
  const view = new DataView(out.buffer);
  for (let b = 0; b < x.length / 32; b++) {
    let amax = 0;
    for (let j = 0; j < 32; j++) amax = Math.max(amax, Math.abs(x[b * 32 + j]!));
    const d = Math.fround(amax / 127);
    const id = d ? Math.fround(1 / d) : 0;
    view.setUint16(b * 34, toHalf(d), true);
    for (let j = 0; j < 32; j++) view.setInt8(b * 34 + 2 + j, roundAway(Math.fround(x[b * 32 + j]! * id)));
  }
  return out;
}

/** The value of largest magnitude among the 32 from `start`, its sign kept (ggml's Q4_0/Q5_0 scale source). */
function signedMax(x: Float32Array, start: number): number {
  let amax = 0;
  let max = 0;
  for (let j = start; j < start + 32; j++) {
    const v = x[j]!;
    if (amax < Math.abs(v)) {
      amax = Math.abs(v);
      max = v;
    }
  }
  return max;
}

/**
 * Q4_0 (`block_q4_0`): per 32 values, an f16 scale d = m / -8 (m the value of largest magnitude, sign kept),
 * then 16 bytes: byte j holds element j in its low nibble and element j + 16 in its high one, q = x / d + 8
 * (0..15); a value is (q − 8)·d.
 */
export function quantizeQ4_0(x: Float32Array): Uint8Array {
  const out = new Uint8Array((x.length / 32) * 18);
  const view = new DataView(out.buffer);
  for (let b = 0; b < x.length / 32; b++) {
    const max = signedMax(x, b * 32);
    const d = Math.fround(max / -8);
    const id = d ? Math.fround(1 / d) : 0;
    view.setUint16(b * 18, toHalf(d), true);
    const q = (v: number) => Math.min(15, Math.trunc(Math.fround(v * id) + 8.5));
    for (let j = 0; j < 16; j++) out[b * 18 + 2 + j] = q(x[b * 32 + j]!) | (q(x[b * 32 + 16 + j]!) << 4);
  }
  return out;
}

/**
 * Q5_0 (`block_q5_0`): per 32 values, an f16 scale d = m / -16, 4 bytes of fifth bits (bit j: element j's,
 * little-endian), then 16 bytes of low nibbles laid out as Q4_0's; a value is (q − 16)·d.
 */
export function quantizeQ5_0(x: Float32Array): Uint8Array {
  const out = new Uint8Array((x.length / 32) * 22);
  const view = new DataView(out.buffer);
  for (let b = 0; b < x.length / 32; b++) {
    const max = signedMax(x, b * 32);
    const d = Math.fround(max / -16);
    const id = d ? Math.fround(1 / d) : 0;
    view.setUint16(b * 22, toHalf(d), true);
    const q = (v: number) => Math.min(31, Math.trunc(Math.fround(v * id) + 16.5));
    let qh = 0;
    for (let j = 0; j < 16; j++) {
      const q0 = q(x[b * 32 + j]!);
      const q1 = q(x[b * 32 + 16 + j]!);
      out[b * 22 + 6 + j] = (q0 & 0xf) | ((q1 & 0xf) << 4);
      qh |= ((q0 >> 4) << j) | ((q1 >> 4) << (j + 16));
    }
    view.setUint32(b * 22 + 2, qh >>> 0, true);
  }
  return out;
}

/**
 * Q4_K (`block_q4_K`): per 256 values, eight sub-blocks of 32, each with a scale and a min (x ≈ scale·q − min,
 * q 0..15). Bytes: f16 d and f16 dmin (the super-block's scales of the sub-blocks' scales and mins), 12 bytes of
 * 6-bit sub-block scales and mins (sub-block j < 4: scale in byte j's low 6 bits, min in byte j + 4's; j ≥ 4: low
 * 4 bits of each in byte j + 4's low and high nibble, the top 2 bits in the top bits of bytes j − 4 and j), then
 * 128 bytes of nibbles: each 64 values take 32 bytes, the first 32 values in the low nibbles, the next 32 in the
 * high ones. The sub-block scale and min are chosen plainly (range ÷ 15, min clipped at 0), not by ggml's
 * search for the least error; the layout and the final rounding are ggml's.
 */
export function quantizeQ4_K(x: Float32Array): Uint8Array {
  const out = new Uint8Array((x.length / 256) * 144);
  const view = new DataView(out.buffer);
  for (let b = 0; b < x.length / 256; b++) {
    const at = b * 144;
    const scales: number[] = [];
    const mins: number[] = [];
    for (let s = 0; s < 8; s++) {
      let lo = 0;
      let hi = -Infinity;
      for (let j = 0; j < 32; j++) {
        const v = x[b * 256 + s * 32 + j]!;
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
      scales.push(Math.fround((hi - lo) / 15));
      mins.push(Math.fround(-lo));
    }
    const maxScale = Math.max(...scales);
    const maxMin = Math.max(...mins);
    const invScale = maxScale > 0 ? Math.fround(63 / maxScale) : 0;
    const invMin = maxMin > 0 ? Math.fround(63 / maxMin) : 0;
    const ls = scales.map((v) => Math.min(63, Math.round(Math.fround(invScale * v))));
    const lm = mins.map((v) => Math.min(63, Math.round(Math.fround(invMin * v))));
    const dHalf = toHalf(Math.fround(maxScale / 63));
    const dminHalf = toHalf(Math.fround(maxMin / 63));
    view.setUint16(at, dHalf, true);
    view.setUint16(at + 2, dminHalf, true);
    for (let j = 0; j < 8; j++) {
      if (j < 4) {
        out[at + 4 + j] = ls[j]!;
        out[at + 4 + j + 4] = lm[j]!;
      } else {
        out[at + 4 + j + 4] = (ls[j]! & 0xf) | ((lm[j]! & 0xf) << 4);
        out[at + 4 + j - 4] = out[at + 4 + j - 4]! | ((ls[j]! >> 4) << 6);
        out[at + 4 + j] = out[at + 4 + j]! | ((lm[j]! >> 4) << 6);
      }
    }
    const d = fromHalf(dHalf);
    const dmin = fromHalf(dminHalf);
    const L = new Uint8Array(256);
    for (let s = 0; s < 8; s++) {
      const sd = Math.fround(d * ls[s]!);
      if (!sd) continue;
      const dm = Math.fround(dmin * lm[s]!);
      for (let j = 0; j < 32; j++) {
        const l = Math.round(Math.fround((x[b * 256 + s * 32 + j]! + dm) / sd));
        L[s * 32 + j] = Math.max(0, Math.min(15, l));
      }
    }
    for (let j = 0; j < 256; j += 64) for (let l = 0; l < 32; l++) out[at + 16 + j / 2 + l] = L[j + l]! | (L[j + l + 32]! << 4);
  }
  return out;
}

/**
 * Q6_K (`block_q6_K`, 210 bytes per 256 values): 128 bytes of low nibbles `ql`, 64 bytes of high bit pairs `qh`,
 * 16 int8 sub-block scales (one per 16 values), an f16 super-block scale d. A value is d · scale · (q − 32) with q in
 * 0..63. Each 128 values take 64 bytes of `ql` and 32 of `qh`: values l, l+32, l+64, l+96 (l < 32) share `qh[l]`'s
 * bit pairs 0, 2, 4, 6; l and l+64 share `ql[l]` (low, high nibble), l+32 and l+96 share `ql[l+32]`. Scales are
 * chosen plainly (the largest magnitude ÷ −32 per sub-block), not by ggml's search; the layout is ggml's
 * (dequantize_row_q6_K).
 */
export function quantizeQ6_K(x: Float32Array): Uint8Array {
  const out = new Uint8Array((x.length / 256) * 210);
  const view = new DataView(out.buffer);
  const L = new Uint8Array(256);
  for (let b = 0; b < x.length / 256; b++) {
    const at = b * 210;
    // As ggml: each sub-block's scale signed so that its value of largest magnitude is q − 32 = −32; the scales
    // themselves as int8 of the one with the largest magnitude ÷ −128.
    const scales: number[] = [];
    for (let s = 0; s < 16; s++) {
      let vmax = 0;
      for (let j = 0; j < 16; j++) {
        const v = x[b * 256 + s * 16 + j]!;
        if (Math.abs(v) > Math.abs(vmax)) vmax = v;
      }
      scales.push(Math.fround(vmax / -32));
    }
    let maxScale = 0;
    for (const v of scales) if (Math.abs(v) > Math.abs(maxScale)) maxScale = v;
    const iscale = maxScale ? Math.fround(-128 / maxScale) : 0;
    const dHalf = toHalf(iscale ? Math.fround(1 / iscale) : 0);
    const d = fromHalf(dHalf);
    view.setUint16(at + 208, dHalf, true);
    for (let s = 0; s < 16; s++) {
      const sc = Math.max(-128, Math.min(127, roundAway(Math.fround(iscale * scales[s]!))));
      out[at + 192 + s] = sc & 0xff;
      const sd = Math.fround(d * sc);
      for (let j = 0; j < 16; j++) {
        const q = sd ? roundAway(Math.fround(x[b * 256 + s * 16 + j]! / sd)) : 0;
        L[s * 16 + j] = Math.max(-32, Math.min(31, q)) + 32;
      }
    }
    for (let n = 0; n < 256; n += 128) {
      const ql = at + n / 2;
      const qh = at + 128 + n / 4;
      for (let l = 0; l < 32; l++) {
        const [q1, q2, q3, q4] = [L[n + l]!, L[n + l + 32]!, L[n + l + 64]!, L[n + l + 96]!];
        out[ql + l] = (q1 & 0xf) | ((q3 & 0xf) << 4);
        out[ql + l + 32] = (q2 & 0xf) | ((q4 & 0xf) << 4);
        out[qh + l] = (q1 >> 4) | ((q2 >> 4) << 2) | ((q3 >> 4) << 4) | ((q4 >> 4) << 6);
      }
    }
  }
  return out;
}

/** The float of IEEE half-precision bits. */
export function fromHalf(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 31) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** The bytes of `data` stored as `type`. */
export function encodeTensor(data: Float32Array, type: StoredType): Uint8Array {
  switch (type) {
    case 'f32':
      return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    case 'f16': {
      const values = new Uint16Array(data.length);
      for (let j = 0; j < data.length; j++) values[j] = toHalf(data[j]!);
      return new Uint8Array(values.buffer);
    }
    case 'q8_0':
      return quantizeQ8_0(data);
    case 'q4_0':
      return quantizeQ4_0(data);
    case 'q5_0':
      return quantizeQ5_0(data);
    case 'q4_k':
      return quantizeQ4_K(data);
    case 'q6_k':
      return quantizeQ6_K(data);
  }
}

/** Bytes a tensor of `count` values takes as `type`. */
export const tensorBytes = (count: number, type: StoredType) => (count / GGML_TYPES[type].block) * GGML_TYPES[type].bytes;

/**
 * The GGUF file of `meta` and `tensors`, each tensor stored as `storedType` chooses for `type`; every tensor's data
 * starts at a multiple of 32 bytes from the data section, which starts at a multiple of 32 (`general.alignment`).
 */
export function encodeGguf(meta: readonly Meta[], tensors: readonly Tensor[], type: TensorType): Uint8Array {
  const w = new Writer();
  w.u32(0x46554747); // "GGUF"
  w.u32(3);
  w.u64(tensors.length);
  w.u64(meta.length);
  for (const m of meta) writeMeta(w, m);
  let offset = 0;
  const offsets: number[] = [];
  const types = tensors.map((t) => t.type ?? storedType(t, type));
  const count = (t: Tensor) => t.dims.reduce((a, b) => a * b, 1);
  tensors.forEach((t, i) => {
    w.string(t.name);
    w.u32(t.dims.length);
    for (const d of t.dims) w.u64(d);
    w.u32(GGML_TYPES[types[i]!].code);
    w.u64(offset);
    offsets.push(offset);
    offset += tensorBytes(count(t), types[i]!);
    offset = Math.ceil(offset / 32) * 32;
  });
  w.pad(32);
  const start = w.length;
  tensors.forEach((t, i) => {
    while (w.length - start < offsets[i]!) w.pad(32);
    const data = typeof t.data === 'function' ? t.data() : t.data;
    if (data.length !== count(t)) throw new Error(`${t.name}: ${data.length} values for dims ${t.dims.join('×')}`);
    w.bytes(encodeTensor(data, types[i]!));
    w.pad(32);
  });
  return w.result();
}
