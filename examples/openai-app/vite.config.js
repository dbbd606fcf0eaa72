// The example app's build: inpage's Vite plugin puts inpage's files (its service worker, engine worker and
// llama.cpp's wasm) into the app at its base path and makes `import … from 'inpage'` load them.
import { defineConfig } from 'vite';
import { inpage } from 'inpage/vite';

export default defineConfig({
  plugins: [inpage()],
  build: { target: 'es2022', outDir: process.env.INPAGE_EXAMPLE_OUT ?? 'dist', emptyOutDir: true },
  preview: { host: '127.0.0.1', port: Number(process.env.PORT ?? 4180) },
  server: { host: '127.0.0.1', port: Number(process.env.PORT ?? 4180) },
});
