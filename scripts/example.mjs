#!/usr/bin/env node
// npm run example: builds the package (dist-pkg/) and serves examples/openai-app with its plugin on
// http://127.0.0.1:4180 (--port N for another). The example's own vite.config.js imports 'inpage/vite' from its
// node_modules, as an app that installed the package does; here the plugin comes from the fresh build.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
execFileSync('node', ['scripts/build-pkg.mjs'], { cwd: root, stdio: 'inherit' });
const { createServer } = await import('vite');
const { inpage } = await import('../dist-pkg/vite.js');
const at = process.argv.indexOf('--port');
const port = at >= 0 ? Number(process.argv[at + 1]) : 4180;
const server = await createServer({
  root: fileURLToPath(new URL('../examples/openai-app', import.meta.url)),
  configFile: false,
  plugins: [inpage()],
  server: { host: '127.0.0.1', port, strictPort: true },
});
await server.listen();
server.printUrls();
