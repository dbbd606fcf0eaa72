// What a person choosing a model wants to know about the real model behind an engine's model id: family, size,
// quantisation and licence. Declared once here, per engine, keyed by the id that engine names in each model's
// status (`modelId`) for the model it runs on this device; the workspace page shows the card.
// Pure data: the page imports it without any engine.
import type { ModelRuntime, ModelStatus } from '#shared/wire/engine-port';

export interface ModelCard {
  family: string;
  /** Parameters, as the model's makers state them. */
  size: string;
  quantisation: string;
  licence: string;
  licenceUrl: string;
}

const QWEN3_LICENCE = { licence: 'Apache-2.0', licenceUrl: 'https://www.apache.org/licenses/LICENSE-2.0' };
const PHI_LICENCE = { licence: 'MIT', licenceUrl: 'https://opensource.org/license/mit' };
const GGUF_Q4_K_M = '4-bit weights, llama.cpp’s medium K-quant mix (Q4_K_M)';

/** By engine, then by that engine's model id. */
export const MODEL_CARDS: { readonly [engine in ModelRuntime['engine']]: Readonly<Record<string, ModelCard>> } = {
  // By web-llm model id (the ids of worker/engine/webllm/models.ts).
  webllm: {
    'Qwen3-8B-q4f16_1-MLC': { family: 'Qwen3', size: '8B', quantisation: '4-bit weights, 16-bit activations (q4f16_1)', ...QWEN3_LICENCE },
    'Qwen3-8B-q4f32_1-MLC': { family: 'Qwen3', size: '8B', quantisation: '4-bit weights, 32-bit activations (q4f32_1)', ...QWEN3_LICENCE },
    'Qwen3-1.7B-q4f16_1-MLC': { family: 'Qwen3', size: '1.7B', quantisation: '4-bit weights, 16-bit activations (q4f16_1)', ...QWEN3_LICENCE },
    'Qwen3-1.7B-q4f32_1-MLC': { family: 'Qwen3', size: '1.7B', quantisation: '4-bit weights, 32-bit activations (q4f32_1)', ...QWEN3_LICENCE },
    'Phi-3.5-vision-instruct-q4f16_1-MLC': {
      family: 'Phi-3.5-vision-instruct',
      size: '4.2B',
      quantisation: '4-bit weights, 16-bit activations (q4f16_1)',
      ...PHI_LICENCE,
    },
    'Phi-3.5-vision-instruct-q4f32_1-MLC': {
      family: 'Phi-3.5-vision-instruct',
      size: '4.2B',
      quantisation: '4-bit weights, 32-bit activations (q4f32_1)',
      ...PHI_LICENCE,
    },
    'snowflake-arctic-embed-s-q0f32-MLC-b4': {
      family: 'snowflake-arctic-embed-s',
      size: '33M',
      quantisation: '32-bit weights, unquantised (q0f32)',
      licence: 'Apache-2.0',
      licenceUrl: 'https://www.apache.org/licenses/LICENSE-2.0',
    },
  },
  // By GGUF file name, as llama.cpp's status names its defaults (worker/engine/llamacpp/models.ts); a
  // deployment's own file has no card, and the page shows its name as it is.
  llamacpp: {
    'Qwen3-8B-Q4_K_M.gguf': { family: 'Qwen3', size: '8B', quantisation: GGUF_Q4_K_M, ...QWEN3_LICENCE },
    'Qwen3-1.7B-Q4_K_M.gguf': { family: 'Qwen3', size: '1.7B', quantisation: GGUF_Q4_K_M, ...QWEN3_LICENCE },
    'Qwen3VL-2B-Thinking-Q4_K_M.gguf': { family: 'Qwen3-VL-Thinking', size: '2B', quantisation: GGUF_Q4_K_M, ...QWEN3_LICENCE },
  },
};

/**
 * The card of the model a status names, if inpage has one: by the engine serving it, web-llm where the status
 * does not say (the test build's engine names web-llm's models and no runtime).
 */
export function cardOf(status: Pick<ModelStatus, 'modelId' | 'runtime'> | undefined): ModelCard | undefined {
  return status?.modelId ? MODEL_CARDS[status.runtime?.engine ?? 'webllm'][status.modelId] : undefined;
}

/** "Qwen3 8B · 4-bit" */
export function cardTitle(card: ModelCard): string {
  return `${card.family} ${card.size} · ${/^\d+-bit/.exec(card.quantisation)?.[0] ?? card.quantisation}`;
}
