#!/usr/bin/env node
// npm run models:pull -- <variant…|all> --out DIR [--precision f16|f32|both] [--source URL] [--lib-source URL]
// Runs scripts/models-pull/pull.ts through Vite's module runner (Node 20 cannot run TypeScript itself).
import { fileURLToPath } from 'node:url';
import { runnerImport } from 'vite';

const entry = fileURLToPath(new URL('./models-pull/pull.ts', import.meta.url));
const { module } = await runnerImport(entry, { configFile: false, logLevel: 'error' });
process.exitCode = await module.main(process.argv.slice(2));
