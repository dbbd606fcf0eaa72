// What a person choosing a model wants to know about the real model behind a web-llm model id: family, size,
// quantisation and licence. Declared once here, keyed by web-llm model id (the ids of models.ts); the engine
// names the id it runs on this device in each model's status, and the workspace page shows the card.
// Pure data: the page imports it without web-llm.

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

export const MODEL_CARDS: Readonly<Record<string, ModelCard>> = {
  'Qwen3-8B-q4f16_1-MLC': { family: 'Qwen3', size: '8B', quantisation: '4-bit weights, 16-bit activations (q4f16_1)', ...QWEN3_LICENCE },
  'Qwen3-8B-q4f32_1-MLC': { family: 'Qwen3', size: '8B', quantisation: '4-bit weights, 32-bit activations (q4f32_1)', ...QWEN3_LICENCE },
  'Qwen3-1.7B-q4f16_1-MLC': { family: 'Qwen3', size: '1.7B', quantisation: '4-bit weights, 16-bit activations (q4f16_1)', ...QWEN3_LICENCE },
  'Qwen3-1.7B-q4f32_1-MLC': { family: 'Qwen3', size: '1.7B', quantisation: '4-bit weights, 32-bit activations (q4f32_1)', ...QWEN3_LICENCE },
  'Phi-3.5-vision-instruct-q4f16_1-MLC': { family: 'Phi-3.5-vision-instruct', size: '4.2B', quantisation: '4-bit weights, 16-bit activations (q4f16_1)', ...PHI_LICENCE },
  'Phi-3.5-vision-instruct-q4f32_1-MLC': { family: 'Phi-3.5-vision-instruct', size: '4.2B', quantisation: '4-bit weights, 32-bit activations (q4f32_1)', ...PHI_LICENCE },
};

/** "Qwen3 8B · 4-bit" */
export function cardTitle(card: ModelCard): string {
  return `${card.family} ${card.size} · 4-bit`;
}
