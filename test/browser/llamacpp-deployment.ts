// The deployment the llama.cpp production specs run against: the production build served with a folder of GGUF
// files at /gguf (the deployment's `ggufBaseUrl`), and a Chromium without WebGPU (no unsafe-WebGPU flags), so
// the engine chooses llama.cpp by itself. Each spec names its port and writes its files; the fixture registers
// the beforeAll / afterAll that make and remove all of it.
import { chromium, test, type Browser, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../playwright.config';
import { makeKey, openApp } from './helpers';
import { hostLlamaCppDeployment, type LlamaCppHost, type LlamaCppHostOptions } from './llamacpp-host';
import type { StaticServer } from './static-server';

export { ggufPath } from './llamacpp-host';

export interface LlamaCppDeployment {
  /** The deployment's server (valid once beforeAll ran). */
  readonly server: StaticServer;
  /** The spec's temporary folder; the model host serves `hostDir` of it. */
  readonly dir: string;
  /** Chromium without WebGPU. */
  readonly browser: Browser;
  /** A fresh context on the app, its workspace registered, and a key. */
  open(): Promise<{ page: Page; key: string }>;
}

/**
 * Registers the deployment's beforeAll / afterAll (the files and server: llamacpp-host.ts). llama.cpp runs on one
 * thread unless `options.llamaThreads` says otherwise: Playwright runs two specs at once on the two cores, and a
 * first visit is cross-origin isolated (one reload), so every spec's llama.cpp would otherwise take every core and
 * spin against the other's (a tool-call spec took 3 min instead of 13 s on a loaded machine).
 */
export function llamaCppDeployment(options: LlamaCppHostOptions): LlamaCppDeployment {
  let host: LlamaCppHost | undefined;
  let browser: Browser | undefined;
  const must = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the llama.cpp deployment's ${what} is used before its beforeAll ran`);
    return value;
  };
  test.beforeAll(async () => {
    host = await hostLlamaCppDeployment({ llamaThreads: 1, ...options });
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS.filter((a) => !/webgpu|swiftshader/i.test(a)) });
  });
  test.afterAll(async () => {
    await browser?.close();
    await host?.close();
  });
  const deployment: LlamaCppDeployment = {
    get server() {
      return must(host, 'server').server;
    },
    get dir() {
      return must(host, 'folder').dir;
    },
    get browser() {
      return must(browser, 'browser');
    },
    async open() {
      const context = await deployment.browser.newContext({ baseURL: deployment.server.origin });
      const page = await context.newPage();
      await openApp(page, '/');
      return { page, key: await makeKey(page) };
    },
  };
  return deployment;
}
