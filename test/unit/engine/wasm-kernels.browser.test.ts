// The SIMD kernels spliced into llama.cpp's wasm (scripts/wasm-kernels), in Chromium: each against ggml's scalar
// reference (test/kernels/kernel-check.ts) in both memory models (wllama's main build is 64-bit, its compat
// build 32-bit) and both variants; and the run-time choice of variant (worker/engine/llamacpp/wasm-variants.ts).
import { describe, expect, it } from 'vitest';
import { checkDots, checkFp16 } from '../../kernels/kernel-check';
import { RELAXED_PROBE, SIMD128_PROBE, relaxedDotExact, wasmVariant } from '../../../worker/engine/llamacpp/wasm-detect';
import w32relaxed from '../../../scripts/wasm-kernels/kernels-wasm32-relaxed.wasm?url';
import w32simd from '../../../scripts/wasm-kernels/kernels-wasm32-simd128.wasm?url';
import w64relaxed from '../../../scripts/wasm-kernels/kernels-wasm64-relaxed.wasm?url';
import w64simd from '../../../scripts/wasm-kernels/kernels-wasm64-simd128.wasm?url';

const FILES = { 'wasm64 simd128': w64simd, 'wasm64 relaxed': w64relaxed, 'wasm32 simd128': w32simd, 'wasm32 relaxed': w32relaxed };

describe('wasm kernels in Chromium', () => {
  it('Chromium runs relaxed SIMD, and its 8-bit dot product is exact on the kernels\u2019 operands', () => {
    expect(WebAssembly.validate(SIMD128_PROBE)).toBe(true);
    expect(WebAssembly.validate(RELAXED_PROBE)).toBe(true);
    expect(relaxedDotExact()).toBe(true);
    expect(wasmVariant()).toBe('relaxed');
  });

  it('without relaxed SIMD the choice is SIMD128, without SIMD the generic wasm', () => {
    const only = (accept: (bytes: Uint8Array) => boolean) =>
      Object.assign(Object.create(WebAssembly) as typeof WebAssembly, { validate: (b: BufferSource) => accept(b as Uint8Array) });
    expect(wasmVariant(only((b) => b !== RELAXED_PROBE))).toBe('simd128');
    expect(wasmVariant(only(() => false))).toBe('generic');
    // A relaxed dot product that answers wrongly (one i16 pair sum off by one) is not used.
    const wrong = Object.assign(Object.create(WebAssembly) as typeof WebAssembly, {
      Instance: class {
        exports: { f: () => void; g: () => void; m: WebAssembly.Memory };
        constructor(module: WebAssembly.Module) {
          const real = new WebAssembly.Instance(module).exports as { f: () => void; g: () => void; m: WebAssembly.Memory };
          this.exports = { m: real.m, f: real.f, g: () => (real.g(), (new Int16Array(real.m.buffer, 64, 8)[3]! += 1)) };
        }
      },
    });
    expect(relaxedDotExact(wrong)).toBe(false);
    expect(wasmVariant(wrong)).toBe('simd128');
  });

  for (const [name, url] of Object.entries(FILES)) {
    it(`${name}: every dot kernel equals ggml's reference, one product (nrc 1) and in 2×2 tiles (nrc 2): random, unit-scale exact, extreme and synthesized blocks`, async () => {
      const results = await checkDots(await (await fetch(url)).arrayBuffer());
      expect(results.length).toBe(491);
      expect(results.filter((r) => r.nrc === 2).length).toBe(332);
      expect(results.filter((r) => r.exact).length).toBe(96);
      expect(results.filter((r) => r.source === 'synthesizer').length).toBe(75);
      // Each tile's four slots, for each kernel.
      expect(new Set(results.filter((r) => r.nrc === 2).map((r) => `${r.kernel} ${r.slot}`)).size).toBe(16);
      const off = results.filter((r) => !(Math.abs(r.got - r.want) <= r.tolerance));
      expect(off).toEqual([]);
      // Not all zero: the references are real sums.
      expect(results.filter((r) => r.want !== 0).length).toBeGreaterThan(450);
    });

    it(`${name}: fp16 → fp32 is exact on all 65536 halves`, async () => {
      const fp16 = await checkFp16(await (await fetch(url)).arrayBuffer());
      expect(fp16).toEqual({
        ggml_cpu_fp16_to_fp32: { checked: 65541, wrong: [] },
        ggml_fp16_to_fp32_row: { checked: 65541, wrong: [] },
      });
    });
  }
});
