// `npm run build:pkg` (and `npm pack`, through `prepack`): the npm package's files, in dist-pkg/:
//   lib/        inpage's built files (scripts/build-lib.ts, production engines): what `inpage` imports and what
//               `inpage/vite` copies into an app's build;
//   vite.js     `inpage/vite`, the Vite plugin (src/lib/vite.ts), an ES module for Node;
//   sw.js       `inpage/sw`, inpage for an app's own module service worker (worker/sw-guest.ts), one ES module;
//   types/      the declarations of both (tsc);
//   config.schema.json  the settings' JSON Schema (src/shared/config-schema.ts);
//   THIRD-PARTY-NOTICES.txt  inpage's licence and those of every package the files above carry (scripts/notices.ts);
//               lib/ has its own (inpage-third-party-notices.txt), which goes into the apps' builds with lib/.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build as buildWith, type BuildOptions } from 'vite';
import { buildLibrary } from './build-lib.ts';
import { configJsonSchema } from '../src/shared/config-schema.ts';
import { NOTICES_FILE } from './notices.ts';
import { mcpClientAlias } from './mcp-client-alias.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const here = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));
export const PACKAGE_DIR = 'dist-pkg';

export async function buildPackage(): Promise<void> {
  rmSync(here(PACKAGE_DIR), { recursive: true, force: true });
  const notices = await buildLibrary({ outDir: `${PACKAGE_DIR}/lib`, sourcemap: false });
  // One module each, beside lib/: the plugin for Node (vite.js) and the guest service worker for bundlers (sw.js).
  const module = (build: BuildOptions) =>
    buildWith({
      configFile: false,
      root,
      logLevel: 'warn',
      publicDir: false,
      plugins: [notices.recorder()],
      // The guest worker's MCP client without ajv (mcp-client-alias.ts).
      resolve: { alias: mcpClientAlias },
      build: { outDir: PACKAGE_DIR, emptyOutDir: false, minify: false, ...build },
    });
  await module({
    ssr: here('src/lib/vite.ts'),
    target: 'node20',
    rollupOptions: {
      external: [...builtinModules, ...builtinModules.map((m) => `node:${m}`), 'vite', 'workbox-build'],
      output: { format: 'es', entryFileNames: 'vite.js' },
    },
  });
  await module({ target: 'es2022', lib: { entry: here('worker/sw-guest.ts'), formats: ['es'], fileName: () => 'sw.js' } });
  execFileSync('npx', ['tsc', '-p', 'tsconfig.pkg.json'], { cwd: root, stdio: 'inherit' });
  relativeSharedImports(here(`${PACKAGE_DIR}/types`));
  writeFileSync(here(`${PACKAGE_DIR}/config.schema.json`), `${JSON.stringify(configJsonSchema(), null, 2)}\n`);
  notices.write(here(`${PACKAGE_DIR}/${NOTICES_FILE}`));
}

export async function main(): Promise<number> {
  await buildPackage();
  return 0;
}

/**
 * The declarations tsc writes keep the repository's `#shared/…` imports (package.json `imports`, which point into
 * src/, not shipped): rewritten to relative paths of the shipped declarations, so a consumer's TypeScript finds them.
 */
function relativeSharedImports(typesDir: string): void {
  const sharedDir = join(typesDir, 'src/shared');
  for (const file of readdirSync(typesDir, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.d.ts')) continue;
    const path = join(typesDir, file);
    const text = readFileSync(path, 'utf8');
    const rewritten = text.replace(/(['"])#shared\/([^'"]+)\1/g, (_m, quote: string, rest: string) => {
      const target = relative(dirname(path), join(sharedDir, rest));
      return `${quote}${target.startsWith('.') ? target : `./${target}`}${quote}`;
    });
    if (rewritten !== text) writeFileSync(path, rewritten);
  }
}
