import { defineConfig } from '@playwright/test';
import chromiumFlags from './test/chromium-flags.json' with { type: 'json' };

// Two servers: the test build (deterministic engine) and the production build (real web-llm).
const TEST_PORT = Number(process.env.INPAGE_TEST_PORT ?? 4174);
const PROD_PORT = Number(process.env.INPAGE_PROD_PORT ?? 4175);
// The OpenAI-compatible upstream of the hybrid tests (test/upstream/server.ts): 4655 + INPAGE_PORT_OFFSET.
export const UPSTREAM_PORT = 4655 + Number(process.env.INPAGE_PORT_OFFSET ?? 0);

// Debian's Chromium; WebGPU on the CPU through SwiftShader. Playwright downloads no browser here.
// The flags live in test/chromium-flags.json, shared with the benchmark driver.
export const CHROMIUM_ARGS: string[] = chromiumFlags;
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const browser = {
  browserName: 'chromium' as const,
  launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
};

export default defineConfig({
  testDir: 'test/browser',
  timeout: 60_000,
  // The whole run's hard bound (below `npm test`'s bound of this stage, scripts/bounded.mjs): past it Playwright
  // fails the tests still running, names them, and stops its web servers.
  globalTimeout: 1_380_000,
  expect: { timeout: 10_000 },
  fullyParallel: true,
  workers: 2,
  retries: 0,
  reporter: [['list']],
  projects: [
    {
      // Everything of the service runs for real; only the engine is the deterministic one from test/.
      name: 'test-build',
      testIgnore: /\.prod\.spec\.ts$/,
      use: { ...browser, baseURL: `http://127.0.0.1:${TEST_PORT}` },
    },
    {
      // `npm run build` as shipped: real web-llm on SwiftShader's WebGPU.
      name: 'production-build',
      testMatch: /\.prod\.spec\.ts$/,
      use: { ...browser, baseURL: `http://127.0.0.1:${PROD_PORT}` },
    },
  ],
  webServer: [
    {
      // Real llama.cpp (node-llama-cpp's prebuilt CPU binary) and the deterministic rules behind OpenAI's wire.
      command: `node --import ./test/firefox/register-ts.mjs test/upstream/server.ts ${UPSTREAM_PORT}`,
      url: `http://127.0.0.1:${UPSTREAM_PORT}/ready/_log`,
      reuseExistingServer: !process.env.CI,
      timeout: 60_000,
    },
    {
      command: `npm run serve:test -- --port ${TEST_PORT}`,
      url: `http://127.0.0.1:${TEST_PORT}/`,
      reuseExistingServer: !process.env.CI,
      timeout: 120_000,
    },
    {
      command: `npm run serve:prod -- --port ${PROD_PORT}`,
      url: `http://127.0.0.1:${PROD_PORT}/`,
      reuseExistingServer: !process.env.CI,
      timeout: 120_000,
    },
  ],
});
