#!/usr/bin/env node
// npm run build:pkg: see scripts/build-pkg.ts. Loaded through Vite's module runner (Node 20 runs no TypeScript by itself).
import { fileURLToPath } from 'node:url';
import { runnerImport } from 'vite';

const entry = fileURLToPath(new URL('./build-pkg.ts', import.meta.url));
const { module } = await runnerImport(entry, { configFile: false, logLevel: 'error' });
process.exitCode = await module.main(process.argv.slice(2));
