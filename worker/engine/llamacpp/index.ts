// The llama.cpp engine wired to the real @wllama/wllama: its WebAssembly files are part of the build (served
// from this origin, never a CDN; the build for this browser chosen in wasm-build.ts, its SIMD kernels (either build's)
// in wasm-variants.ts), its GGUF cache is wllama's own, in the store this device has (stores.ts: OPFS, else Cache Storage, else memory).
import { LogLevel, ModelManager, Wllama, type WllamaLogger } from '@wllama/wllama';
import type { InpageConfig } from '#shared/config';
import type { WasmBuild } from '#shared/wire/engine-port';
import type { ModelCatalog } from '#shared/model-config';
import { LlamaCppEngine, type LlamaCppDeps, type WllamaLike } from './engine';
import { browserLlamaImageReader } from './images';
import { ResumableCache } from './resumable-cache';
import { browserImageReader } from '../common/images';
import { chooseWasmBuild, compatFiles, detectWasmFeatures, type WasmBuildChoice } from './wasm-build';
import { WASM_URLS, WASM_VARIANT_WHY, wasmVariant, type WasmVariant } from './wasm-variants';

const quiet: WllamaLogger = { debug: () => undefined, log: () => undefined, warn: console.warn, error: console.error };

/** wllama's build and llama.cpp's threads for this browser (wasm-build.ts): by feature detection. */
export function llamaWasmChoice(config: Pick<InpageConfig, 'llamaThreads'>): WasmBuildChoice {
  return chooseWasmBuild(detectWasmFeatures(), config.llamaThreads, navigator.hardwareConcurrency || 1);
}

/**
 * Bytes of weights this device can hold for a CPU model: half of `navigator.deviceMemory` (Chromium caps it at
 * 8 GiB), never more than WebAssembly's 4 GiB address space without Memory64. 0 when unknown (no check).
 */
export function memoryBudgetBytes(): number {
  const gib = (navigator as { deviceMemory?: number }).deviceMemory;
  if (typeof gib !== 'number' || gib <= 0) return 0;
  return Math.min((gib / 2) * 2 ** 30, 4 * 2 ** 30);
}

/**
 * The engine's dependencies on the real wllama (also used by the contract suite in Chromium). `kernels`: which of
 * the build's wasm files to run (wasm-variants.ts); by default the best this browser runs exactly. `build`: wllama's
 * build, for tests that run the compat build where the main one would be chosen (wllama runs either anywhere).
 */
export function llamaCppDeps(config: InpageConfig, reason: string, gpu = false, kernels: WasmVariant = wasmVariant(), build?: WasmBuild): LlamaCppDeps {
  // wllama's cache in the store this device has (stores.ts), with downloads that resume in OPFS (resumable-cache.ts).
  const cacheManager = new ResumableCache();
  const chosen = llamaWasmChoice(config);
  const wasm = build && build !== chosen.build ? { ...chosen, build, buildWhy: `wllama's ${build} build, chosen by the caller (a test).` } : chosen;
  const manager = new ModelManager({ logger: quiet, allowOffline: true, cacheManager });
  return {
    create: () => {
      // llama.cpp's log, errors only: wllama logs the text of a native exception there (and returns nothing
      // else of it), which the engine needs to say what went wrong. The first line since the engine last took
      // one is kept: it comes before wllama's own report of the failure (its stack trace, an Error object).
      let nativeError: string | null = null;
      const logger: WllamaLogger = {
        ...quiet,
        error: (...args: unknown[]) => {
          const text = typeof args[0] === 'string' ? args.join(' ').trim() : '';
          if (nativeError === null && text && !/^(Stack trace \(|Cannot find waiting task)/.test(text)) nativeError = text;
          console.error(...args);
        },
      };
      const wllama = new Wllama({ default: WASM_URLS[kernels] }, { logger, suppressNativeLog: false, allowOffline: true, cacheManager, modelManager: manager });
      // The build chosen here, its files from this deployment: wllama's default would take the compat build from a
      // CDN (never). 'firefox_safari': the choice holds in every browser (wllama's default ignores it in Firefox).
      wllama.setCompat(null, 'firefox_safari');
      const load = wllama.loadModelFromUrl.bind(wllama);
      const like: Pick<WllamaLike, 'loadModelFromUrl' | 'takeNativeError'> = {
        loadModelFromUrl: async (source, params) => {
          if (wasm.build === 'compat') wllama.setCompat(await compatFiles(kernels), 'firefox_safari');
          return load(source, { ...params, log_level: LogLevel.ERROR });
        },
        takeNativeError: () => {
          const text = nativeError;
          nativeError = null;
          return text;
        },
      };
      return Object.assign(wllama, like) as unknown as WllamaLike;
    },
    cache: {
      list: async () => (await manager.getModels()).map((m) => ({ url: m.url, size: m.size })),
      remove: async (url) => {
        for (const model of await manager.getModels({ includeInvalid: true })) if (model.url === url) await model.remove();
      },
      store: () => cacheManager.store.choice(),
      // An imported file, under the URL it would be downloaded from (as wllama's own download records it).
      put: async (url, file, mmprojUrl, onBytes) => {
        let done = 0;
        const counted = file.stream().pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, controller) {
              done += chunk.byteLength;
              onBytes(done);
              controller.enqueue(chunk);
            },
          }),
        );
        await cacheManager.write(await cacheManager.getNameFromURL(url), counted, {
          originalURL: url,
          originalSize: file.size,
          etag: '',
          ...(mmprojUrl ? { mmprojURL: mmprojUrl } : {}),
        });
      },
    },
    threads: wasm.threads,
    wasm: { build: wasm.build, buildWhy: wasm.buildWhy, threadsWhy: wasm.threadsWhy, variant: kernels, variantWhy: WASM_VARIANT_WHY[kernels] },
    gpu,
    memoryBudgetBytes: memoryBudgetBytes(),
    origin: self.location.origin,
    images: browserLlamaImageReader(browserImageReader),
    reason,
  };
}

export function createLlamaCppEngine(config: InpageConfig, reason: string, gpu = false, catalog?: ModelCatalog): LlamaCppEngine {
  return new LlamaCppEngine(config, llamaCppDeps(config, reason, gpu), catalog);
}
