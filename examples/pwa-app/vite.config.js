// An app with its own service worker (vite-plugin-pwa, `injectManifest`): the app's worker (sw.js) precaches
// the app's pages with Workbox and adds inpage's /v1 by importing `inpage/sw`. inpage's Vite plugin still puts
// inpage's files (the setup module, the engine worker, llama.cpp's wasm) into the build and makes
// `import … from 'inpage'` load them, without inpage's own worker (`serviceWorker: 'own'`); the app registers its
// worker itself and calls installInpage({serviceWorker: 'own'}), so no second worker ever claims the scope.
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { inpage } from 'inpage/vite';

export default defineConfig({
  plugins: [
    inpage({ serviceWorker: 'own' }),
    VitePWA({
      strategies: 'injectManifest',
      srcDir: '.',
      filename: 'sw.js',
      // main.js registers the worker before installInpage; no registration script, no web manifest needed here.
      injectRegister: false,
      manifest: false,
      injectManifest: {
        // A classic worker (every browser runs those): inpage/sw is bundled into it.
        rollupFormat: 'iife',
        // The app's shell and the inpage scripts every device runs. Not each engine's own files (inpage-engine-webllm-…,
        // inpage-engine-llamacpp-…, llama.cpp's wasm): inpage keeps them on first use, on the devices that run them.
        globPatterns: ['**/*.{html,js,css,svg,png,ico}'],
        globIgnores: ['**/*.map', 'sw.js', '**/inpage-engine-webllm*', '**/inpage-engine-llamacpp*'],
      },
    }),
  ],
  build: { target: 'es2022', outDir: process.env.INPAGE_EXAMPLE_OUT ?? 'dist', emptyOutDir: true },
  preview: { host: '127.0.0.1', port: Number(process.env.PORT ?? 4181) },
  server: { host: '127.0.0.1', port: Number(process.env.PORT ?? 4181) },
});
