// Splits a GGUF file the way llama.cpp's `gguf-split` does: N files named `…-00001-of-0000N.gguf`, each a GGUF
// file of its own holding some of the tensors; the first keeps every metadata key, and every part carries
// `split.no` (u16, from 0), `split.count` (u16) and `split.tensors.count` (i32, the tensors of all parts).
// llama.cpp loads such a model from its first part and finds the others by name (wllama names its copies that
// way too), which is how a model larger than one 2 GB ArrayBuffer reaches it. Used by the browser tests.

import { T, Writer } from './gguf-file';

const GGUF_MAGIC = 0x46554747; // "GGUF", little-endian
const FIXED: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };

interface TensorInfo {
  name: string;
  dims: bigint[];
  type: number;
  offset: number;
  data: Uint8Array;
}

interface Parsed {
  version: number;
  /** Each metadata entry's bytes as written (key, type, value), and its key. */
  kvs: { key: string; bytes: Uint8Array }[];
  tensors: TensorInfo[];
  alignment: number;
}

/** Reads a GGUF file's header, metadata and tensor table; each tensor's bytes run to the next one's start. */
export function parseGguf(bytes: Uint8Array): Parsed {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const u32 = () => ((at += 4), view.getUint32(at - 4, true));
  const u64 = () => ((at += 8), Number(view.getBigUint64(at - 8, true)));
  const str = () => {
    const n = u64();
    at += n;
    return new TextDecoder().decode(bytes.subarray(at - n, at));
  };
  const skip = (type: number): void => {
    if (type === T.string) {
      const n = u64(); // (not `at += u64()`: that adds to the offset before the length was read)
      at += n;
    } else if (type === T.array) {
      const inner = u32();
      const n = u64();
      for (let i = 0; i < n; i++) skip(inner);
    } else if (FIXED[type] !== undefined) {
      at += FIXED[type]!;
    } else {
      throw new Error(`Unknown GGUF value type ${type} at byte ${at}.`);
    }
  };
  if (u32() !== GGUF_MAGIC) throw new Error('Not a GGUF file.');
  const version = u32();
  const nTensors = u64();
  const nKv = u64();
  const kvs: Parsed['kvs'] = [];
  let alignment = 32;
  for (let i = 0; i < nKv; i++) {
    const start = at;
    const key = str();
    const type = u32();
    if (key === 'general.alignment' && type === T.u32) alignment = view.getUint32(at, true);
    skip(type);
    kvs.push({ key, bytes: bytes.subarray(start, at) });
  }
  const tensors: TensorInfo[] = [];
  for (let i = 0; i < nTensors; i++) {
    const name = str();
    const nDims = u32();
    const dims: bigint[] = [];
    for (let d = 0; d < nDims; d++) dims.push(view.getBigUint64((at += 8) - 8, true));
    const type = u32();
    tensors.push({ name, dims, type, offset: u64(), data: new Uint8Array() });
  }
  const dataStart = Math.ceil(at / alignment) * alignment;
  const byOffset = [...tensors].sort((a, b) => a.offset - b.offset);
  byOffset.forEach((t, i) => {
    const end = i + 1 < byOffset.length ? byOffset[i + 1]!.offset : bytes.length - dataStart;
    t.data = bytes.subarray(dataStart + t.offset, dataStart + end);
  });
  return { version, kvs, tensors, alignment };
}

/** `{prefix}-0000k-of-0000N.gguf` for k = 1…N. */
export function splitNames(prefix: string, count: number): string[] {
  const pad = (n: number) => String(n).padStart(5, '0');
  return Array.from({ length: count }, (_, i) => `${prefix}-${pad(i + 1)}-of-${pad(count)}.gguf`);
}

/** Splits `bytes` (a GGUF file) into `count` parts with the tensors spread evenly, in order. */
export function splitGguf(bytes: Uint8Array, count: number): Uint8Array[] {
  const model = parseGguf(bytes);
  if (count < 2 || count > model.tensors.length) throw new Error(`Cannot split ${model.tensors.length} tensors into ${count} parts.`);
  const per = Math.ceil(model.tensors.length / count);
  const parts: Uint8Array[] = [];
  for (let p = 0; p < count; p++) {
    const tensors = model.tensors.slice(p * per, (p + 1) * per);
    const w = new Writer();
    w.u32(GGUF_MAGIC);
    w.u32(model.version);
    w.u64(tensors.length);
    const kvs = p === 0 ? model.kvs.filter((kv) => !kv.key.startsWith('split.')) : [];
    w.u64(kvs.length + 3);
    for (const kv of kvs) w.push(kv.bytes);
    w.string('split.no');
    w.u32(T.u16);
    w.u16(p);
    w.string('split.count');
    w.u32(T.u16);
    w.u16(count);
    w.string('split.tensors.count');
    w.u32(T.i32);
    w.i32(model.tensors.length);
    // The first part keeps the file's alignment (general.alignment); the others use GGUF's default, 32.
    const alignment = p === 0 ? model.alignment : 32;
    let offset = 0;
    for (const t of tensors) {
      w.string(t.name);
      w.u32(t.dims.length);
      for (const d of t.dims) w.u64(d);
      w.u32(t.type);
      w.u64(offset);
      offset = Math.ceil((offset + t.data.length) / alignment) * alignment;
    }
    w.pad(alignment);
    for (const t of tensors) {
      w.push(t.data);
      w.pad(alignment);
    }
    parts.push(w.result());
  }
  return parts;
}
