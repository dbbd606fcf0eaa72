// ESLint (`npm run lint`): typescript-eslint's recommended rules, no import circles, and the realms' import
// boundaries (docs/development.md, "Lint and format"). The first import must stay first: it gives the linters the
// TypeScript they parse with.
import './scripts/lint/typescript-for-lint.mjs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import globals from 'globals';
import { defineConfig } from 'eslint/config';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The four parts, each where it runs. Paths are relative to this folder (`root`), wherever ESLint is started.
const root = new URL('.', import.meta.url);
const shared = './src/shared';
const serviceWorker = ['./worker/sw', './worker/sw.ts', './worker/sw-guest.ts'];
const engine = './worker/engine';
const page = './src/!(shared)/**/*'; // the page: src/ outside src/shared
const engineWorkerEntry = './engine/engine-worker.ts'; // relative to worker/
const areas = './src/page/ui/areas'; // the workspace's areas, one folder each

/** The workspace's area folders (none before the areas move). */
function areaNames() {
  try {
    return readdirSync(new URL(`${areas}/`, root), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

/** import-x/no-restricted-paths zones: each realm's forbidden sources. */
export const realmZones = [
  {
    target: shared,
    from: '.',
    except: [shared, './node_modules'],
    message: 'src/shared imports nothing of ours outside src/shared (relative imports inside it; npm packages are fine).',
  },
  {
    target: engine,
    from: serviceWorker,
    message: 'The engine worker never imports the service worker (what both need belongs in src/shared, e.g. src/shared/wire/).',
  },
  {
    target: engine,
    from: './src',
    except: ['./shared'],
    message: 'The engine worker never imports page code (src/ outside src/shared).',
  },
  {
    target: serviceWorker,
    from: './src',
    except: ['./shared'],
    message: 'The service worker never imports page code (src/ outside src/shared).',
  },
  {
    target: serviceWorker,
    from: engine,
    message: 'The service worker never imports the engine worker (they talk over the engine port: src/shared/wire/).',
  },
  {
    target: page,
    from: './worker',
    except: [engineWorkerEntry],
    message: "Page code never imports worker/ code; only the engine worker's entry, as a URL (`engine-worker.ts?worker&url`).",
  },
  // No workspace area imports another: what two areas use belongs in src/page/ui/kit/.
  ...areaNames().map((area) => ({
    target: `${areas}/${area}`,
    from: areas,
    except: [`./${area}`],
    message: 'A workspace area never imports another area (what two areas use belongs in src/page/ui/kit/).',
  })),
];

export default defineConfig(
  {
    ignores: [
      'dist*/**',
      '**/node_modules/**',
      '.native-llama/**',
      'test-results/**',
      'playwright-report/**',
      'blob-report/**',
      '.vitest-attachments/**',
      '.vite/**',
      'public/**',
      'examples/**', // apps built against the packed package by test/package (they import `inpage`, not this tree)
      'test/saa/pages/**', // plain pages served as they are to the Storage Access probe
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { ...globals.browser, ...globals.worker, ...globals.serviceworker, ...globals.node },
    },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: fileURLToPath(new URL('./tsconfig.json', root)) })],
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
    },
    rules: {
      // A leading underscore marks a name kept on purpose: a parameter a signature needs, a field left out by a rest.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Short-circuit and ternary statements are how the scripts write a guarded call.
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }], // circles among our files (npm packages are not followed)
      // An import the resolver cannot follow would pass the realm rules unseen. Not followed: files a build writes
      // (the wasm the kernels' Vite plugin splices, under the alias #wllama-wasm/; the packed package in dist-pkg/).
      'import-x/no-unresolved': ['error', { ignore: ['^#wllama-wasm/', '/dist-pkg/'] }],
      'import-x/no-restricted-paths': ['error', { zones: realmZones, basePath: fileURLToPath(root) }],
    },
  },
  {
    // Page code may take the engine worker's entry only as a URL: `?worker&url` or `?url` (no-restricted-paths
    // above lets the file through; this refuses a plain import of it).
    files: ['src/**'],
    ignores: ['src/shared/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: 'worker/engine/engine-worker(\\.ts)?$',
              message: "Page code takes the engine worker's entry only as a URL: `engine-worker.ts?worker&url`.",
            },
          ],
        },
      ],
    },
  },
  {
    // The service worker and the engine worker never read the catalog from module state: the engine worker builds
    // it once (catalogOf) and passes it on; the service worker gets it with the engine's port offer.
    files: ['worker/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '#shared/catalog',
              importNames: ['activeCatalog', 'adoptModels', 'modelIds', 'variantOf'],
              message: 'Workers take the catalog they were given (a parameter or a field), never the module state of src/shared/catalog.ts.',
            },
          ],
        },
      ],
    },
  },
  {
    // The workspace's components stay small enough to read: one over ~120 lines is split into named parts
    // (docs/workspace.md, "Where the code lives").
    files: ['src/page/**'],
    rules: { 'max-lines-per-function': ['error', { max: 120, skipBlankLines: false, skipComments: false }] },
  },
  {
    // The tests whose concurrent clients add their answers' usage to one sum, compared with the tokens booked:
    // `sum += (await res.json()).usage.total_tokens` reads `sum` before the await and writes it back after, losing
    // what the other clients added meanwhile (issue 51: "booked 12,976 > reported 8,574" was this, in the probe).
    // ESLint's require-atomic-updates says so too, but with many false alarms elsewhere.
    files: ['test/update/**', 'test/browser/update-handover.spec.ts', 'test/browser/accounting.spec.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'AssignmentExpression[operator=/^[-+*\\/%&|^]=$/] AwaitExpression',
          message: 'A compound assignment that awaits reads its target before the await: await into a const first, then add.',
        },
      ],
    },
  },
);
