// The example app's build. `npm run example` builds the inpage library and serves this app with it.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  // inpage's library files go at the site root (inpage-sw.js must control every page): here, served as the
  // public folder. A real app copies dist-lib/ into its own public/ folder.
  publicDir: process.env.INPAGE_LIB_DIR ?? fileURLToPath(new URL('../../dist-lib', import.meta.url)),
  build: { target: 'es2022', outDir: process.env.INPAGE_EXAMPLE_OUT ?? 'dist', emptyOutDir: true },
  preview: { host: '127.0.0.1', port: 4180 },
  server: { host: '127.0.0.1', port: 4180 },
});
