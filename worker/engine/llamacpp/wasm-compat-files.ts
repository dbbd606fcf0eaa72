// wllama's compat build (@wllama/wllama-compat, the release of @wllama/wllama's): its wasm as a file of the build,
// one per variant (wasm-variants.ts: its own generic one, and the two with the 32-bit SIMD kernels of
// scripts/wasm-kernels spliced in), and its worker script as text (wllama starts its worker from the code;
// wllama-compat's README asks for `?raw`). Imported only by wasm-build.ts's compatFiles(), so it is a chunk only the
// browsers that need it load, and each of them downloads only the one wasm it runs.
import generic from '@wllama/wllama-compat/wasm/wllama.wasm?url';
import worker from '@wllama/wllama-compat/wasm/wllama.js?raw';
import relaxed from '#wllama-wasm/wllama-compat-relaxed.wasm?url';
import simd128 from '#wllama-wasm/wllama-compat-simd128.wasm?url';
import type { WasmVariant } from './wasm-detect';

export const WASM_COMPAT_URLS: Record<WasmVariant, string> = { relaxed, simd128, generic };
export { worker };
