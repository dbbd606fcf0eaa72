import { defineConfig } from 'vitest/config';
import { playwright } from '@vitest/browser-playwright';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './playwright.config.ts';

// Unit tests: pure logic in Node; anything needing real IndexedDB or WebCrypto in real Chromium.
export default defineConfig({
  test: {
    projects: [
      {
        extends: './vite.config.ts',
        test: { name: 'node', include: ['test/unit/**/*.test.ts'], exclude: ['test/unit/**/*.browser.test.ts'], environment: 'node' },
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
          },
        },
      },
    ],
  },
});
