// llama.cpp's split format, as scripts/gguf/split.ts writes it: parts that are GGUF files of their own, the first
// with every metadata key, each with split.no / split.count / split.tensors.count, the tensors' bytes unchanged.
import { describe, expect, it } from 'vitest';
import { parseGguf, splitGguf, splitNames } from '../../../scripts/gguf/split';
import { synthesizeGguf } from '../../../scripts/gguf/synthesize';

const value = (kv: { key: string; bytes: Uint8Array }) => {
  const view = new DataView(kv.bytes.buffer, kv.bytes.byteOffset, kv.bytes.byteLength);
  const at = 8 + new TextEncoder().encode(kv.key).length;
  const type = view.getUint32(at, true);
  return type === 2 ? view.getUint16(at + 4, true) : type === 5 ? view.getInt32(at + 4, true) : NaN;
};

describe('splitting a GGUF model', () => {
  it('three parts: the metadata in the first, the split keys in each, every tensor once with its bytes', () => {
    const model = synthesizeGguf({ seed: 3 });
    const whole = parseGguf(model.bytes);
    const parts = splitGguf(model.bytes, 3).map(parseGguf);
    expect(parts).toHaveLength(3);
    parts.forEach((part, i) => {
      const split = Object.fromEntries(part.kvs.filter((kv) => kv.key.startsWith('split.')).map((kv) => [kv.key, value(kv)]));
      expect(split).toEqual({ 'split.no': i, 'split.count': 3, 'split.tensors.count': whole.tensors.length });
      expect(part.kvs.length).toBe(i === 0 ? whole.kvs.length + 3 : 3);
      expect(part.tensors.length).toBeGreaterThan(0);
    });
    const names = parts.flatMap((p) => p.tensors.map((t) => t.name));
    expect(names).toEqual(whole.tensors.map((t) => t.name));
    const tensors = parts.flatMap((p) => p.tensors);
    for (const [i, t] of whole.tensors.entries()) {
      expect(tensors[i]!.dims).toEqual(t.dims);
      expect(tensors[i]!.type).toBe(t.type);
      expect(Buffer.from(tensors[i]!.data.subarray(0, t.data.length)).equals(Buffer.from(t.data))).toBe(true);
    }
  });

  it('names the parts as gguf-split does, and refuses what is not GGUF', () => {
    expect(splitNames('/m/x', 2)).toEqual(['/m/x-00001-of-00002.gguf', '/m/x-00002-of-00002.gguf']);
    expect(() => parseGguf(new Uint8Array(64))).toThrow('Not a GGUF file.');
    expect(() => splitGguf(synthesizeGguf().bytes, 1)).toThrow(/Cannot split/);
  });
});
