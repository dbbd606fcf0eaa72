// `npm run build:pkg` (and `npm pack`, through `prepack`): the npm package's files, in dist-pkg/:
//   lib/        inpage's built files (scripts/build-lib.ts, production engines): what `inpage` imports and what
//               `inpage/vite` copies into an app's build;
//   vite.js     `inpage/vite`, the Vite plugin (src/lib/vite.ts), an ES module for Node;
//   sw.js       `inpage/sw`, inpage for an app's own module service worker (worker/sw-guest.ts), one ES module;
//   types/      the declarations of both (tsc);
//   config.schema.json  the settings' JSON Schema (src/config-schema.ts).
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { buildLibrary } from './build-lib.ts';
import { configJsonSchema } from '../src/config-schema.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const here = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));
export const PACKAGE_DIR = 'dist-pkg';

export async function buildPackage(): Promise<void> {
  rmSync(here(PACKAGE_DIR), { recursive: true, force: true });
  await buildLibrary({ outDir: `${PACKAGE_DIR}/lib`, sourcemap: false });
  await build({
    configFile: false,
    root,
    logLevel: 'warn',
    publicDir: false,
    build: {
      outDir: PACKAGE_DIR,
      emptyOutDir: false,
      ssr: here('src/lib/vite.ts'),
      target: 'node20',
      minify: false,
      rollupOptions: {
        external: [...builtinModules, ...builtinModules.map((m) => `node:${m}`), 'vite', 'workbox-build'],
        output: { format: 'es', entryFileNames: 'vite.js' },
      },
    },
  });
  await build({
    configFile: false,
    root,
    logLevel: 'warn',
    publicDir: false,
    build: {
      outDir: PACKAGE_DIR,
      emptyOutDir: false,
      target: 'es2022',
      minify: false,
      lib: { entry: here('worker/sw-guest.ts'), formats: ['es'], fileName: () => 'sw.js' },
    },
  });
  execFileSync('npx', ['tsc', '-p', 'tsconfig.pkg.json'], { cwd: root, stdio: 'inherit' });
  writeFileSync(here(`${PACKAGE_DIR}/config.schema.json`), `${JSON.stringify(configJsonSchema(), null, 2)}\n`);
}

export async function main(): Promise<number> {
  await buildPackage();
  return 0;
}
