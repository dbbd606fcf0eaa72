// The test build's knobs: settings only the deterministic engine reads, with their defaults, which a test page
// may also take from its own address (`?tokenDelayMs=5`), and what the test build's Models area says about its
// engine. Declared here, never in src/: vite.config.ts (test mode, which vitest runs in) and the library's
// test build inject them as constants (vite's `define`), so `npm run build` has none of them.

export const TEST_KNOB_DEFAULTS = {
  /** Milliseconds the deterministic engine waits between tokens. */
  tokenDelayMs: 0,
  /** Bytes of the deterministic engine's pretend weights per model. */
  pretendWeightsBytes: 4 * 1024 * 1024,
  /**
   * 0: a device with WebGPU. Above 0: a device without it, where llama.cpp would run the models on the CPU with
   * this many MiB for a model: the engine says so, and a variant whose GGUF weights (llama.cpp's published
   * sizes) exceed it is unavailable and refused with model_too_large_for_device, as the llama.cpp engine does.
   */
  cpuMemoryMiB: 0,
  /**
   * 1: this device's engine is not the deterministic one but the web-llm engine (worker/engine/webllm/adapter.ts)
   * over its fake of web-llm, typed by web-llm's own interfaces (test/unit/fakes/webllm-fake.ts), whose model answers as
   * test/engine/webllm-over-the-fake.ts scripts it (`webllmFakeEngine`): web-llm's request translation, tool calls and streaming, in a browser.
   */
  webllmFake: 0,
};

export type TestKnobs = typeof TEST_KNOB_DEFAULTS;

/** The Models area's notice in a test build. */
export const TEST_BUILD_NOTICE =
  'Test build: the deterministic test engine answers in place of the models named below; its weights are pretend and nothing is downloaded.';

/**
 * What a build defines (vite's `define`), read by src/shared/config.ts and src/page/ui/areas/models/: the knobs and the
 * notice in a test build, `undefined` in any other, so its bundle drops what they guard and no script of the
 * page can set them.
 */
export function testBuildDefine(testBuild: boolean): Record<string, string> {
  return {
    __INPAGE_TEST_KNOBS__: testBuild ? JSON.stringify(TEST_KNOB_DEFAULTS) : 'undefined',
    __INPAGE_TEST_NOTICE__: testBuild ? JSON.stringify(TEST_BUILD_NOTICE) : 'undefined',
  };
}
