// Build step: wllama's wasm with the SIMD kernels spliced in and ggml's 2×2 tiles switched on for their types
// (scripts/wasm-kernels/splice.mjs), one file per
// variant and build (wllama's main build and its compat one, @wllama/wllama-compat), written to
// node_modules/.cache/inpage-wasm-variants/ and imported from there through the alias
// `#wllama-wasm/` (worker/engine/llamacpp/wasm-variants.ts and wasm-compat-files.ts; one picked at run time). Made again only when wllama's
// wasm, a kernel file or the splice changes (binaryen's validation takes ~20 s a variant here).
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';
// Imported statically (binaryen with it): `npm run build:lib`/`build:pkg` load this file through Vite's module runner,
// which is closed by the time the build runs, so a dynamic import there fails ("Vite module runner has been closed").
import { VARIANTS, kernelFile, readModule, sha256, spliceKernels, validate } from './splice.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** Where the variants are written; the alias `#wllama-wasm` points here. */
export const WASM_VARIANTS_DIR = `${root}node_modules/.cache/inpage-wasm-variants`;
/** wllama's own (generic) wasm, the splice's input. */
export const WLLAMA_WASM = `${root}node_modules/@wllama/wllama/esm/wasm/wllama.wasm`;
/** wllama's Safari build (32-bit memory), spliced too: `wllama-compat-<variant>.wasm`. */
export const WLLAMA_COMPAT_WASM = `${root}node_modules/@wllama/wllama-compat/wasm/wllama.wasm`;
export const wasmVariantsAlias = { '#wllama-wasm': WASM_VARIANTS_DIR };

let pending: Promise<void> | null = null;

/** Writes `<name>-<variant>.wasm` for every input and variant unless the ones there come from the same inputs. */
export function ensureWasmVariants(log: (line: string) => void = () => undefined): Promise<void> {
  pending ??= (async () => {
    const inputs = [
      { name: 'wllama', file: WLLAMA_WASM },
      { name: 'wllama-compat', file: WLLAMA_COMPAT_WASM },
    ];
    const hosts = inputs.map(({ name, file }) => ({ name, bytes: new Uint8Array(readFileSync(file)) }));
    const sources = [readFileSync(fileURLToPath(new URL('./splice.mjs', import.meta.url)))];
    for (const { bytes } of hosts) sources.push(Buffer.from(bytes), ...VARIANTS.map((v) => readFileSync(kernelFile(readModule(bytes), v))));
    const stamp = sha256(Buffer.concat(sources.map((b) => Buffer.from(sha256(b)))));
    const stampFile = `${WASM_VARIANTS_DIR}/inputs.sha256`;
    const outputs = hosts.flatMap(({ name }) => VARIANTS.map((v) => `${WASM_VARIANTS_DIR}/${name}-${v}.wasm`));
    if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp && outputs.every((f) => existsSync(f))) return;
    mkdirSync(WASM_VARIANTS_DIR, { recursive: true });
    for (const { name, bytes: host } of hosts) {
      for (const variant of VARIANTS) {
        const { bytes, report, tiles } = spliceKernels(host, variant);
        await validate(bytes, `${name}-${variant}.wasm`);
        const file = `${WASM_VARIANTS_DIR}/${name}-${variant}.wasm`;
        // Written whole then renamed: a parallel build never reads half a file.
        writeFileSync(`${file}.${process.pid}`, bytes);
        renameSync(`${file}.${process.pid}`, file);
        log(
          `wasm kernels: ${name}-${variant}.wasm: ${report.map((r) => `${r.name} ${r.before}→${r.after} B`).join(', ')}; 2×2 tiles (nrows 2) for ${tiles.join(', ')}`,
        );
      }
    }
    writeFileSync(stampFile, stamp);
  })();
  return pending;
}

/** The Vite plugin: the variants exist before anything imports them (build, dev server, vitest). */
export function wasmVariants(): Plugin {
  return {
    name: 'inpage:wasm-variants',
    async buildStart() {
      await ensureWasmVariants((line) => this.info(line));
    },
  };
}
