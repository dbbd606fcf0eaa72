#!/usr/bin/env node
// node scripts/gguf-synth.mjs OUT.gguf [--embedding N] [--layers N] [--feed-forward N] [--heads N] [--type f32|f16|q8_0|q4_0|q4_k] [--seed N]
// Writes a synthesized GGUF model (scripts/gguf/synthesize.ts) for the bench or by-hand trials.
// Runs the TypeScript through Vite's module runner (Node 20 cannot run TypeScript itself).
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runnerImport } from 'vite';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    embedding: { type: 'string' },
    layers: { type: 'string' },
    'feed-forward': { type: 'string' },
    heads: { type: 'string' },
    type: { type: 'string' },
    seed: { type: 'string' },
  },
});
const out = positionals[0];
if (!out) {
  console.error(
    'usage: node scripts/gguf-synth.mjs OUT.gguf [--embedding N] [--layers N] [--feed-forward N] [--heads N] [--type f32|f16|q8_0|q4_0|q4_k] [--seed N]',
  );
  process.exit(2);
}
const num = (v) => (v === undefined ? undefined : Number(v));
const entry = fileURLToPath(new URL('./gguf/synthesize.ts', import.meta.url));
const { module } = await runnerImport(entry, { configFile: false, logLevel: 'error' });
const model = module.synthesizeGguf({
  embedding: num(values.embedding),
  layers: num(values.layers),
  feedForward: num(values['feed-forward']),
  heads: num(values.heads),
  type: values.type,
  seed: num(values.seed),
});
await writeFile(out, model.bytes);
console.log(`${out}: ${model.parameters} parameters, vocabulary ${model.vocabSize}, ${model.bytes.length} bytes`);
