// A deliberately broken tile, for llamacpp-kernels.browser.test.ts: wllama's main build spliced as the build splices
// it (scripts/wasm-kernels/splice.mjs: the relaxed kernels, nrows = 2 for the tiled types, mul_mat's odd column
// counts), then with wllama's own generic ggml_vec_dot_q4_K_q8_K put back. That body takes no tiles: handed one
// (nrc 2), it writes only the first of the four products, so every answer whose prefill runs Q4_K tiles goes wrong,
// and one whose prefill runs none stays right. As a vitest browser command: the file's bytes, base64.
import { readFileSync } from 'node:fs';
import type { BrowserCommand } from 'vitest/node';
import { readModule, spliceBodies, spliceKernels } from '../../scripts/wasm-kernels/splice.mjs';
import { WLLAMA_WASM } from '../../scripts/wasm-kernels/vite-plugin';

export function brokenTileWasm(): Uint8Array {
  const wllama = new Uint8Array(readFileSync(WLLAMA_WASM));
  const spliced = readModule(spliceKernels(wllama, 'relaxed').bytes);
  const generic = readModule(wllama);
  // The generic body comes from the same module's own bytes, so its globals (the stack pointer) are the same ones.
  return spliceBodies(spliced, generic, ['ggml_vec_dot_q4_K_q8_K'], { hostName: 'the spliced wasm', sourceName: "wllama's wasm", allowedGlobals: [0] }).bytes;
}

/** The vitest command: brokenTileWasm's bytes as base64. */
export const brokenTile: BrowserCommand<[]> = () => Buffer.from(brokenTileWasm()).toString('base64');
