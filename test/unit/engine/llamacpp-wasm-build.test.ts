// Which wllama build runs llama.cpp, and on how many threads, by feature detection (worker/engine/llamacpp/wasm-build.ts):
// the three browsers the tests drive, as their features were seen (docs/browsers.md), and the thread rules.
import { describe, expect, test } from 'vitest';
import { chooseWasmBuild, detectWasmFeatures } from '../../../worker/engine/llamacpp/wasm-build';

describe('wllama build and threads per browser', () => {
  test('Chromium (JSPI, Memory64), isolated: the main build on every core, or the configured count', () => {
    const chromium = { jspi: true, memory64: true, crossOriginIsolated: true, sharedMemory: true };
    expect(chooseWasmBuild(chromium, 0, 4)).toEqual({
      build: 'main',
      buildWhy: "wllama's main build (Memory64, JSPI).",
      threads: 4,
      threadsWhy: 'Every logical core (4); the page is cross-origin isolated.',
    });
    expect(chooseWasmBuild(chromium, 2, 4)).toMatchObject({
      threads: 2,
      threadsWhy: "2 of 4 logical cores (the deployment's llamaThreads: 2); the page is cross-origin isolated.",
    });
    expect(chooseWasmBuild(chromium, 16, 4).threads).toBe(4);
  });

  test('Memory64 without JSPI (a browser before JSPI, as Firefox was): the main build, reading the model without suspending', () => {
    expect(chooseWasmBuild({ jspi: false, memory64: true, crossOriginIsolated: false, sharedMemory: false }, 0, 4)).toMatchObject({
      build: 'main',
      buildWhy: "wllama's main build (Memory64; no JSPI here: the model is read without suspending).",
      threads: 1,
    });
  });

  test('WebKit (no Memory64, no JSPI, not isolated): the compat build on one thread, each saying why', () => {
    expect(chooseWasmBuild({ jspi: false, memory64: false, crossOriginIsolated: false, sharedMemory: false }, 0, 4)).toEqual({
      build: 'compat',
      buildWhy:
        "wllama's compat build (32-bit memory, Asyncify): this browser has no WebAssembly Memory64 and no JSPI, which the main build needs; it is slower.",
      threads: 1,
      threadsWhy:
        'One thread: the page is not cross-origin isolated, so WebAssembly has no shared memory for threads (docs/engines.md, Threads and cross-origin isolation).',
    });
  });

  test('isolated with COEP require-corp but without SharedArrayBuffer (WebKitGTK 2.50): one thread, saying so', () => {
    expect(chooseWasmBuild({ jspi: false, memory64: false, crossOriginIsolated: true, sharedMemory: false }, 0, 4)).toMatchObject({
      build: 'compat',
      threads: 1,
      threadsWhy: 'One thread: the page is cross-origin isolated, but this browser gives it no SharedArrayBuffer, which WebAssembly threads need.',
    });
  });

  test('the features as detected: Node is no cross-origin-isolated page, JSPI as its WebAssembly has it, no Memory64 where a memory of i64 is refused', () => {
    const features = detectWasmFeatures();
    expect(features.crossOriginIsolated).toBe(false);
    expect(features.jspi).toBe(typeof (WebAssembly as { Suspending?: unknown }).Suspending === 'function');
    expect(
      detectWasmFeatures({
        ...globalThis,
        WebAssembly: {
          ...WebAssembly,
          Memory: function () {
            throw new RangeError('no i64');
          },
        },
      } as unknown as typeof globalThis).memory64,
    ).toBe(false);
  });
});
