// Which of llama.cpp's wasm files this browser runs: wllama's own (generic C kernels), or one with the SIMD kernels
// of scripts/wasm-kernels spliced in at build time (docs/engines.md, "The WebAssembly files: SIMD kernels"). Chosen by feature detection
// (wasm-detect.ts): relaxed SIMD where WebAssembly.validate accepts it and a self-check of its 8-bit dot product,
// on the operand ranges the kernels use, gives the exact sums; SIMD128 where that is all; the generic wasm otherwise.
// The same choice holds for either build (wasm-build.ts): these are the main build's files, the compat build's are in
// wasm-compat-files.ts (a chunk only the browsers without Memory64 load).
import generic from '@wllama/wllama/esm/wasm/wllama.wasm?url';
import relaxed from '#wllama-wasm/wllama-relaxed.wasm?url';
import simd128 from '#wllama-wasm/wllama-simd128.wasm?url';
import type { WasmVariant } from './wasm-detect';

export { WASM_VARIANT_WHY, wasmVariant, type WasmVariant } from './wasm-detect';
export const WASM_URLS: Record<WasmVariant, string> = { relaxed, simd128, generic };
