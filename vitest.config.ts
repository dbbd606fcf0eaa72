import { defineConfig } from 'vitest/config';
import { playwright } from '@vitest/browser-playwright';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './playwright.config.ts';
import { brokenTile } from './test/kernels/broken-tile.ts';
import { nativeGreedy } from './test/kernels/native-greedy.ts';

// Unit tests: pure logic in Node; anything needing real IndexedDB or WebCrypto in real Chromium.

// The chromium project's page is served by a vite server of vitest's own, on 63315 by default (the next free port
// if that one is taken). INPAGE_VITEST_PORT puts it on a given port, and fails if that port is taken.
const VITEST_PORT = process.env.INPAGE_VITEST_PORT ? Number(process.env.INPAGE_VITEST_PORT) : undefined;
export default defineConfig({
  test: {
    projects: [
      {
        extends: './vite.config.ts',
        // The property tests (fast-check, hundreds to thousands of generated runs) are CPU work only: on 2 loaded
        // cores some took over vitest's 5 s default. No unit test measures time, so a wide budget hides nothing.
        test: { name: 'node', include: ['test/unit/**/*.test.ts'], exclude: ['test/unit/**/*.browser.test.ts'], environment: 'node', testTimeout: 60_000 },
      },
      {
        extends: './vite.config.ts',
        test: {
          name: 'chromium',
          include: ['test/unit/**/*.browser.test.ts'],
          browser: {
            enabled: true,
            headless: true,
            provider: playwright({ launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS } }),
            instances: [{ browser: 'chromium' }],
            // Native llama.cpp in this process, and a wasm with a broken tile, for the wasm kernels' end-to-end test
            // (llamacpp-kernels.browser.test.ts).
            commands: { nativeGreedy, brokenTile },
            ...(VITEST_PORT ? { api: { port: VITEST_PORT, strictPort: true } } : {}),
          },
        },
      },
    ],
  },
});
