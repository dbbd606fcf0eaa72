// The llama.cpp deployment's files and server, apart from any test runner: the production build served with a
// folder of GGUF files at /gguf (the deployment's `ggufBaseUrl`). The Playwright specs (llamacpp-deployment.ts)
// and the Firefox smoke set (test/firefox) both stand it up through `hostLlamaCppDeployment`.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { GGUF_DEFAULTS } from '../../worker/engine/llamacpp/models';
import { PROD_BUILD_DIR, serveStatic, type StaticServer } from './static-server';

/** Where a weight group's default GGUF (or its mmproj, `file`) lives under `ggufBaseUrl` (Hugging Face's layout). */
export const ggufPath = (group: string, file?: string) => `${GGUF_DEFAULTS[group]!.repo}/resolve/main/${file ?? GGUF_DEFAULTS[group]!.file}`;

export interface LlamaCppHostOptions {
  port: number;
  prefix: string;
  /** Writes the deployment's files through `put` (a path in the temporary folder). */
  files: (put: (path: string, bytes: Uint8Array) => Promise<void>) => Promise<void>;
  /** The subfolder served at /gguf (default: the whole folder). */
  hostDir?: string;
  /** Headers the server sends with every file (default: none, as a plain server). */
  headers?: Record<string, string>;
  /** The deployment's `llamaThreads` (default: its own default, 0: every core). */
  llamaThreads?: number;
}

export interface LlamaCppHost {
  server: StaticServer;
  /** The temporary folder the files are in. */
  dir: string;
  /** Stops the server and removes the folder. */
  close(): Promise<void>;
}

/** Writes the files to a new temporary folder and serves the production build with them. */
export async function hostLlamaCppDeployment(options: LlamaCppHostOptions): Promise<LlamaCppHost> {
  const dir = await mkdtemp(join(tmpdir(), `inpage-${options.prefix}-`));
  try {
    await options.files(async (path, bytes) => {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), bytes);
    });
    const host = join(dir, options.hostDir ?? '');
    await mkdir(host, { recursive: true });
    const server = await serveStatic(options.port, { '/': PROD_BUILD_DIR, '/gguf': host }, options.headers ? { headers: options.headers } : {});
    // The deployment's own config: the default engine policy ("auto"), GGUF files from this origin.
    const threads = options.llamaThreads === undefined ? {} : { llamaThreads: options.llamaThreads };
    server.override('/inpage.config.json', JSON.stringify({ ggufBaseUrl: '/gguf', engineHeartbeatMs: 0, ...threads }));
    return {
      server,
      dir,
      async close() {
        await server.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}
