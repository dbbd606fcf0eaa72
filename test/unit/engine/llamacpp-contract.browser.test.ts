// The engine contract (engine-contract.ts) on the real llama.cpp engine: @wllama/wllama's WebAssembly in
// Chromium, on the CPU, with a random-weight GGUF synthesized here (scripts/gguf/synthesize.ts). Its answers
// are not the deterministic rules' texts, so the contract checks them against the engine's own (temperature 0).
// The GGUF is "downloaded" by wllama's own downloader from this page's fetch, answered here for the deployment's
// `ggufBaseUrl`; wllama caches it in OPFS as in production.
import { afterAll, beforeAll } from 'vitest';
import { DEFAULT_CONFIG } from '#shared/config';
import { synthesizeGguf } from '../../../scripts/gguf/synthesize';
import { LlamaCppEngine } from '../../../worker/engine/llamacpp/engine';
import { llamaCppDeps } from '../../../worker/engine/llamacpp';
import { engineContract } from './engine-contract';

const BASE = `${location.origin}/__contract-gguf`;
const model = synthesizeGguf({ seed: 7 });
const realFetch = globalThis.fetch;

beforeAll(async () => {
  // Every GGUF of the default table, at this base, is the synthesized model (HEAD for its size, GET for it).
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith(BASE)) return realFetch(input, init);
    if (!url.endsWith('.gguf')) return new Response('not here', { status: 404 });
    const headers = { 'content-type': 'application/octet-stream', 'content-length': String(model.bytes.length) };
    return new Response(init?.method === 'HEAD' ? null : model.bytes.slice(), { headers });
  };
  // A clean cache: the first engine downloads, the others load from OPFS.
  const root = await navigator.storage.getDirectory();
  await root.removeEntry('cache', { recursive: true }).catch(() => undefined);
});

afterAll(() => {
  globalThis.fetch = realFetch;
});

// One thread: this page is not cross-origin isolated (isolation.prod.spec.ts runs llama.cpp on several threads in
// the engine worker; wllama on several threads in vitest's isolated test frame did not answer, seen here).
const config = { ...DEFAULT_CONFIG, ggufBaseUrl: BASE, llamaThreads: 1 };

engineContract(
  'llama.cpp, synthesized GGUF',
  // No memory budget: every variant runs the tiny synthesized model here (the defaults' sizes would be refused).
  () => new LlamaCppEngine(config, { ...llamaCppDeps(config, 'the contract suite'), memoryBudgetBytes: 0 }),
  { rules: false },
);
