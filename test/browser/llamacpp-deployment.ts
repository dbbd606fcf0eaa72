// The deployment the llama.cpp production specs run against: the production build served with a folder of GGUF
// files at /gguf (the deployment's `ggufBaseUrl`), and a Chromium without WebGPU (no unsafe-WebGPU flags), so
// the engine chooses llama.cpp by itself. Each spec names its port and writes its files; the fixture registers
// the beforeAll / afterAll that make and remove all of it.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium, test, type Browser, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../playwright.config';
import { GGUF_DEFAULTS } from '../../worker/engine/llamacpp/models';
import { makeKey, openApp } from './helpers';
import { PROD_BUILD_DIR, serveStatic, type StaticServer } from './static-server';

/** Where a weight group's default GGUF (or its mmproj, `file`) lives under `ggufBaseUrl` (Hugging Face's layout). */
export const ggufPath = (group: string, file?: string) => `${GGUF_DEFAULTS[group]!.repo}/resolve/main/${file ?? GGUF_DEFAULTS[group]!.file}`;

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
 * Registers the deployment's beforeAll / afterAll. `files` writes the spec's files through `put` (a path in the
 * temporary folder). `hostDir`: the subfolder served at /gguf (default: the whole folder).
 */
export function llamaCppDeployment(options: {
  port: number;
  prefix: string;
  files: (put: (path: string, bytes: Uint8Array) => Promise<void>) => Promise<void>;
  hostDir?: string;
}): LlamaCppDeployment {
  let server: StaticServer | undefined;
  let dir: string | undefined;
  let browser: Browser | undefined;
  const must = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the llama.cpp deployment's ${what} is used before its beforeAll ran`);
    return value;
  };
  test.beforeAll(async () => {
    const root = await mkdtemp(join(tmpdir(), `inpage-${options.prefix}-`));
    dir = root;
    await options.files(async (path, bytes) => {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), bytes);
    });
    const host = join(root, options.hostDir ?? '');
    await mkdir(host, { recursive: true });
    server = await serveStatic(options.port, { '/': PROD_BUILD_DIR, '/gguf': host });
    // The deployment's own config: the default engine policy ("auto"), GGUF files from this origin.
    server.override('/inpage.config.json', JSON.stringify({ ggufBaseUrl: '/gguf', engineHeartbeatMs: 0 }));
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS.filter((a) => !/webgpu|swiftshader/i.test(a)) });
  });
  test.afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  const deployment: LlamaCppDeployment = {
    get server() {
      return must(server, 'server');
    },
    get dir() {
      return must(dir, 'folder');
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
