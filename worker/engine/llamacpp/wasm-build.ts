// Which of wllama's WebAssembly builds runs llama.cpp in this browser, on how many threads, by feature detection
// (never by the browser's name), and the URLs of each build's files, all part of the deployment (never a CDN):
//  - `main` (@wllama/wllama): Memory64; it suspends on JSPI (`WebAssembly.Suspending`) where the browser has it,
//    and reads the model through wllama's synchronous path where not (Firefox before JSPI);
//  - `compat` (@wllama/wllama-compat, the same release): 32-bit memory and Asyncify, for a browser without
//    Memory64 (Safari, WebKitGTK); slower, and its files (a 19 MB wasm, a 170 kB worker script) load only there.
// Threads need SharedArrayBuffer, which needs a cross-origin-isolated page; elsewhere llama.cpp runs one thread.
import type { WasmBuild } from '#shared/wire/engine-port';
import type { WasmVariant } from './wasm-detect';

/** What the choice reads of the browser. */
export interface WasmFeatures {
  /** JavaScript Promise Integration: `WebAssembly.Suspending`. */
  jspi: boolean;
  /** WebAssembly Memory64: a memory with `address: "i64"`. */
  memory64: boolean;
  /** `crossOriginIsolated`: the page may have shared memory. */
  crossOriginIsolated: boolean;
  /** `SharedArrayBuffer` is there: WebAssembly threads (WebKitGTK 2.50 has none even when isolated). */
  sharedMemory: boolean;
}

export function detectWasmFeatures(scope: typeof globalThis = globalThis): WasmFeatures {
  let memory64: boolean;
  try {
    new scope.WebAssembly.Memory({ address: 'i64', initial: 1n } as unknown as WebAssembly.MemoryDescriptor);
    memory64 = true;
  } catch {
    memory64 = false;
  }
  return {
    jspi: typeof (scope.WebAssembly as { Suspending?: unknown }).Suspending === 'function',
    memory64,
    crossOriginIsolated: scope.crossOriginIsolated === true,
    sharedMemory: typeof scope.SharedArrayBuffer === 'function',
  };
}

export interface WasmBuildChoice {
  build: WasmBuild;
  /** Why this build, in words the Models area and /v1/models show. */
  buildWhy: string;
  threads: number;
  /** Why this many threads. */
  threadsWhy: string;
}

/**
 * The build and threads for `features`. `configured`: the deployment's `llamaThreads` (0: every logical core);
 * `cores`: `navigator.hardwareConcurrency`.
 */
export function chooseWasmBuild(features: WasmFeatures, configured: number, cores: number): WasmBuildChoice {
  const build: WasmBuild = features.memory64 ? 'main' : 'compat';
  const buildWhy =
    build === 'main'
      ? `wllama's main build (Memory64${features.jspi ? ', JSPI' : '; no JSPI here: the model is read without suspending'}).`
      : `wllama's compat build (32-bit memory, Asyncify): this browser has no WebAssembly Memory64${features.jspi ? '' : ' and no JSPI'}, which the main build needs; it is slower.`;
  if (!features.crossOriginIsolated) {
    return {
      build,
      buildWhy,
      threads: 1,
      threadsWhy:
        'One thread: the page is not cross-origin isolated, so WebAssembly has no shared memory for threads (docs/engines.md, Threads and cross-origin isolation).',
    };
  }
  if (!features.sharedMemory) {
    return {
      build,
      buildWhy,
      threads: 1,
      threadsWhy: 'One thread: the page is cross-origin isolated, but this browser gives it no SharedArrayBuffer, which WebAssembly threads need.',
    };
  }
  const all = Math.max(1, cores || 1);
  const threads = configured > 0 ? Math.min(configured, all) : all;
  return {
    build,
    buildWhy,
    threads,
    threadsWhy:
      configured > 0
        ? `${threads} of ${all} logical cores (the deployment's llamaThreads: ${configured}); the page is cross-origin isolated.`
        : `Every logical core (${all}); the page is cross-origin isolated.`,
  };
}

/** wllama's `setCompat` argument: the compat build's files, served by this deployment. */
export interface CompatFiles {
  wasm: string;
  worker: { code: string };
}

/** The compat build's files, its wasm the `variant` (a chunk of their own: only a browser that needs them loads them). */
export async function compatFiles(variant: WasmVariant): Promise<CompatFiles> {
  const { WASM_COMPAT_URLS, worker } = await import('./wasm-compat-files');
  return { wasm: WASM_COMPAT_URLS[variant], worker: { code: worker } };
}
