// A fake wllama for the llama.cpp engine's own code (worker/engine/llamacpp/engine.ts): it records loads and
// requests and streams the chunks it is given, as wllama's createChatCompletion does. The engine around it is made
// as the engine worker makes it, minus the real wllama and cache. Used by test/unit/engine/llamacpp-catalog.test.ts and
// the bench's request path (test/bench/request-path.run.ts).
import { DEFAULT_CONFIG, type InpageConfig } from '#shared/config';
import { LlamaCppEngine, type WllamaLike } from '../../../worker/engine/llamacpp/engine';
import type { LlamaChunk } from '../../../worker/engine/llamacpp/run';

export interface FakeWllamaOptions {
  /** What each request streams (default: "ok", then stop with usage). */
  chunks?: LlamaChunk[];
  /** Every load: the source and the load parameters. */
  loads?: { url: string; mmprojUrl?: string; n_ctx: number }[];
  /** Every request's options, as the engine passed them. */
  calls?: Record<string, unknown>[];
}

const ANSWER: LlamaChunk[] = [
  { choices: [{ delta: { content: 'ok' }, finish_reason: null }] },
  { choices: [{ delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 1 } },
];

export function fakeWllama({ chunks = ANSWER, loads = [], calls = [] }: FakeWllamaOptions = {}): WllamaLike {
  return {
    async loadModelFromUrl(source, params) {
      loads.push({ ...source, n_ctx: params.n_ctx });
    },
    getLoadedContextInfo: () => ({ n_ctx: loads.at(-1)?.n_ctx ?? 4096, n_ctx_train: 4096, success: true, has_image_input: true }),
    getNumThreads: () => 1,
    async createChatCompletion(options) {
      calls.push(options as Record<string, unknown>);
      return (async function* () {
        yield* chunks;
      })();
    },
    exit: async () => undefined,
  };
}

/** The llama.cpp engine with `models` configured, over `wllama`. */
export function llamaEngineWith(models: InpageConfig['models'], wllama: WllamaLike): LlamaCppEngine {
  return new LlamaCppEngine({ ...DEFAULT_CONFIG, models }, {
    create: () => wllama,
    cache: { list: async () => [], remove: async () => undefined },
    threads: 1,
    memoryBudgetBytes: 0,
    origin: 'https://app.example',
    reason: 'test',
  } as unknown as ConstructorParameters<typeof LlamaCppEngine>[1]);
}
