// The GGUF v3 file format, written: metadata, tensor infos, 32-byte aligned tensor data. Shared by the
// synthesizers of a tiny language model (synthesize.ts) and of a tiny vision projector (synthesize-mmproj.ts),
// with their seeded random numbers. Nothing here is downloaded.

export type TensorType = 'f32' | 'f16';

/** A metadata entry: key, value kind, value. */
export type Meta = [string, 'u32' | 'f32' | 'bool' | 'string' | 'strings' | 'i32s' | 'f32s', unknown];

/** A tensor in ggml order (ne0 first), with its values. */
export interface Tensor {
  name: string;
  dims: number[];
  data: Float32Array;
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

function toHalf(value: number): number {
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
 * The GGUF file of `meta` and `tensors`. With type `f16`, tensors of two or more dimensions are stored as F16;
 * 1-D tensors (norms, biases) stay F32, as llama.cpp's converters keep them.
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
  const half = (t: Tensor) => type === 'f16' && t.dims.length > 1;
  for (const t of tensors) {
    w.string(t.name);
    w.u32(t.dims.length);
    for (const d of t.dims) w.u64(d);
    w.u32(half(t) ? 1 : 0);
    w.u64(offset);
    offsets.push(offset);
    offset += t.data.length * (half(t) ? 2 : 4);
    offset = Math.ceil(offset / 32) * 32;
  }
  w.pad(32);
  const start = w.length;
  tensors.forEach((t, i) => {
    while (w.length - start < offsets[i]!) w.pad(32);
    if (half(t)) {
      const values = new Uint16Array(t.data.length);
      for (let j = 0; j < t.data.length; j++) values[j] = toHalf(t.data[j]!);
      w.bytes(new Uint8Array(values.buffer));
    } else {
      w.bytes(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    }
    w.pad(32);
  });
  return w.result();
}
