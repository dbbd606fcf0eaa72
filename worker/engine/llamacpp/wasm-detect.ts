// Feature detection for llama.cpp's wasm variants (wasm-variants.ts): SIMD128 and relaxed SIMD by
// WebAssembly.validate on tiny modules, and relaxed SIMD's 8-bit dot product checked for exact sums on the operand
// ranges the kernels of scripts/wasm-kernels use. No imports but a type: test/kernels/harness.ts bundles it as it is
// for the Firefox and WebKit pages.
import type { WasmVariant } from '#shared/wire/engine-port';

export type { WasmVariant };
/** Why each variant runs, in words /v1/models (`wasm_why`) and the Models area show: the same for either build. */
export const WASM_VARIANT_WHY: Readonly<Record<WasmVariant, string>> = {
  relaxed: "llama.cpp's SIMD kernels with relaxed SIMD's 8-bit dot products: this browser validates relaxed SIMD and its self-check gave the exact sums.",
  simd128: "llama.cpp's SIMD kernels on SIMD128: this browser has WebAssembly SIMD, but no relaxed SIMD whose 8-bit dot products are exact.",
  generic: "wllama's own wasm, llama.cpp's generic C kernels: this browser has no WebAssembly SIMD.",
};
const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
const V128_ZERO = [0xfd, 0x0c, ...new Array<number>(16).fill(0)];
/** A module whose one function computes i32x4.dot_i16x8_s: valid where SIMD128 is. */
export const SIMD128_PROBE = Uint8Array.from([
  ...HEADER,
  ...[0x01, 0x04, 0x01, 0x60, 0x00, 0x00],
  ...[0x03, 0x02, 0x01, 0x00],
  ...[0x0a, 0x2c, 0x01, 0x2a, 0x00, ...V128_ZERO, ...V128_ZERO, 0xfd, 0xba, 0x01, 0x1a, 0x0b],
]);
/**
 * A module exporting memory `m`, `f()`, which stores at 48 the i32x4.relaxed_dot_i8x16_i7x16_add of the vectors at
 * 0 (i8), 16 (i7) and 32 (the i32 accumulator), and `g()`, which stores at 64 the i16x8.relaxed_dot_i8x16_i7x16 of
 * the vectors at 0 and 16: the two relaxed instructions the kernels use.
 */
export const RELAXED_PROBE = Uint8Array.from([
  ...HEADER,
  ...[0x01, 0x04, 0x01, 0x60, 0x00, 0x00],
  ...[0x03, 0x03, 0x02, 0x00, 0x00],
  ...[0x05, 0x03, 0x01, 0x00, 0x01],
  ...[0x07, 0x0d, 0x03, 0x01, 0x66, 0x00, 0x00, 0x01, 0x67, 0x00, 0x01, 0x01, 0x6d, 0x02, 0x00],
  ...[0x0a, 0x38, 0x02],
  ...[0x1d, 0x00],
  ...[0x41, 0x30, 0x41, 0x00, 0xfd, 0x00, 0x04, 0x00, 0x41, 0x10, 0xfd, 0x00, 0x04, 0x00, 0x41, 0x20, 0xfd, 0x00, 0x04, 0x00],
  ...[0xfd, 0x93, 0x02, 0xfd, 0x0b, 0x04, 0x00, 0x0b],
  ...[0x18, 0x00],
  ...[0x41, 0xc0, 0x00, 0x41, 0x00, 0xfd, 0x00, 0x04, 0x00, 0x41, 0x10, 0xfd, 0x00, 0x04, 0x00],
  ...[0xfd, 0x92, 0x02, 0xfd, 0x0b, 0x04, 0x00, 0x0b],
]);

/**
 * Runs the relaxed dot products on every i8 value against weights 0..63 (the kernels' i7 operands: 4-bit nibbles
 * and 6-bit Q6_K weights), with accumulators of both signs: true when every sum is the exact one.
 */
export function relaxedDotExact(wasm: typeof WebAssembly = WebAssembly): boolean {
  const { f, g, m } = new wasm.Instance(new wasm.Module(RELAXED_PROBE)).exports as { f: () => void; g: () => void; m: WebAssembly.Memory };
  const a = new Int8Array(m.buffer, 0, 16);
  const b = new Uint8Array(m.buffer, 16, 16);
  const c = new Int32Array(m.buffer, 32, 4);
  const out = new Int32Array(m.buffer, 48, 4);
  const pairs = new Int16Array(m.buffer, 64, 8);
  for (let k = 0; k < 256; k++) {
    for (let i = 0; i < 16; i++) {
      a[i] = ((k + 97 * i) % 256) - 128;
      b[i] = (k * 7 + 13 * i) % 64;
    }
    for (let j = 0; j < 4; j++) c[j] = (j & 1 ? -1 : 1) * (k * 1009 + j);
    f();
    g();
    for (let j = 0; j < 4; j++) {
      let want = c[j]!;
      for (let i = 4 * j; i < 4 * j + 4; i++) want += a[i]! * b[i]!;
      if (out[j] !== want) return false;
    }
    for (let j = 0; j < 8; j++) if (pairs[j] !== a[2 * j]! * b[2 * j]! + a[2 * j + 1]! * b[2 * j + 1]!) return false;
  }
  return true;
}

/** The variant this browser runs best, exactly. */
export function wasmVariant(wasm: typeof WebAssembly = WebAssembly): WasmVariant {
  if (!wasm.validate(SIMD128_PROBE)) return 'generic';
  try {
    if (wasm.validate(RELAXED_PROBE) && relaxedDotExact(wasm)) return 'relaxed';
  } catch {
    // A browser that validates the module but cannot run it: SIMD128.
  }
  return 'simd128';
}
