// The engine contract (engine-contract.ts) on the upstream engine, over HTTP to the OpenAI-compatible test server
// (test/upstream/server.ts, on a free loopback port) whose model follows the deterministic engine's rules: once as
// vLLM streams, once as Ollama streams (no role chunk, whole tool calls, usage only when asked), and on the hybrid
// composite in mode prefer-upstream over the deterministic engine. What an upstream does not do is skipped, with why.
import { afterAll, beforeAll } from 'vitest';
import { DEFAULT_CONFIG } from '#shared/config';
import { DEFAULT_CATALOG } from '#shared/model-config';
import { VARIANT_IDS } from '#shared/variants';
import { DEFAULT_BOUNDS, type Dialect, type UpstreamSpec } from '#shared/upstreams';
import { DeterministicEngine } from '../../engine/deterministic-engine';
import { UpstreamEngine, type UpstreamTarget } from '../../../worker/engine/upstream';
import { HybridEngine } from '../../../worker/engine/hybrid';
import { engineContract } from './engine-contract';
import { startUpstreamServer } from '../../upstream/server';

let server: { url: string; close(): Promise<void> };
beforeAll(async () => {
  server = await startUpstreamServer(0);
});
afterAll(async () => {
  await server?.close();
});

const spec = (dialect: Dialect, tag: string): UpstreamSpec => ({
  name: `test-${dialect}`,
  url: `${server.url}/${tag}/${dialect}/v1`,
  dialect,
  credentials: 'omit',
  concurrency: 4,
  timeoutMs: 10_000,
  ...DEFAULT_BOUNDS,
});
const targets = (dialect: Dialect, tag: string): Record<string, UpstreamTarget> =>
  Object.fromEntries(VARIANT_IDS.filter((id) => id !== 'svc-vision').map((id) => [id, { spec: spec(dialect, tag), model: `up/${id}` }]));

const online = { fetch: (input: RequestInfo | URL, init?: RequestInit) => fetch(input, init), online: () => true, now: () => Date.now() };

const upstreamSkips = {
  'refuses what it cannot honour with 400 unsupported_parameter naming the field, before it generates':
    "an upstream server decides what it accepts (vLLM and llama-server continue a last assistant message); inpage refuses before sending only n > 1, reasoning_effort on a variant that never thinks and a dialect's dropped fields (upstream-wire.test.ts)",
  'refuses prompt plus max_tokens over the context with 400 context_length_exceeded, in the one shared wording':
    "the context is the upstream's: its 400 context_length_exceeded comes back with its code and words, prefixed with where it came from (upstream-wire.test.ts)",
  'status lists the five ids with a context; load makes a group ready, unload leaves it cached':
    'an upstream has no weights here to load or unload; its status lists the ids routed to it',
};

for (const dialect of ['vllm', 'ollama'] as const) {
  engineContract(`upstream engine (${dialect} dialect, test server over HTTP)`, () => new UpstreamEngine(targets(dialect, `contract-${dialect}`), online), {
    rules: true,
    skip: upstreamSkips,
  });
}

engineContract(
  'hybrid composite, every id prefer-upstream (vllm dialect), over the deterministic engine',
  () => {
    const upstream = spec('vllm', 'contract-hybrid');
    const routes = Object.fromEntries(VARIANT_IDS.map((id) => [id, { mode: 'prefer-upstream' as const, upstream: upstream.name, model: `up/${id}` }]));
    return new HybridEngine(new DeterministicEngine({ ...DEFAULT_CONFIG }), { upstreams: { [upstream.name]: upstream }, routes }, DEFAULT_CATALOG, online);
  },
  {
    rules: true,
    // Status, load and unload are the local engine's (the hybrid passes them on), so that case runs.
    skip: {
      'refuses what it cannot honour with 400 unsupported_parameter naming the field, before it generates':
        upstreamSkips['refuses what it cannot honour with 400 unsupported_parameter naming the field, before it generates'],
      'refuses prompt plus max_tokens over the context with 400 context_length_exceeded, in the one shared wording':
        upstreamSkips['refuses prompt plus max_tokens over the context with 400 context_length_exceeded, in the one shared wording'],
      'through the scheduler: one at a time in order; aborted in the queue it never starts, in flight it stops':
        'upstream requests run at once in their lane, beside the local queue (hybrid.test.ts checks the lane and its limit)',
    },
  },
);
