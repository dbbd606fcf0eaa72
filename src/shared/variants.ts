// The one variant table: public model id → what the service promises for it (thinking, vision, context,
// which variants share weights). Which real model serves a weight group is each engine's business
// (worker/engine/webllm/models.ts for web-llm). README's variant table mirrors this; test/unit/shared/variants.test.ts
// keeps the two in step.
import type { EngineKind } from './engine-kinds/names';

export const VARIANT_IDS = ['svc-model-5.2', 'svc-model-5.2-fast', 'svc-model-5.2-short', 'svc-model-5.2-short-fast', 'svc-vision', 'svc-embed'] as const;

export type VariantId = (typeof VARIANT_IDS)[number];

/** A model id the service offers: one of the five, or one of the deployment's own (src/shared/model-config.ts). */
export type ModelId = string;

export interface Variant {
  id: ModelId;
  /** Whether the variant thinks before answering (reasoning_effort "none" turns it off). */
  thinks: boolean;
  vision: boolean;
  /** The hosted service's figure: documented, never claimed by this device. */
  hostedContext: number | null;
  /** Variants with the same group share one set of weights and one loaded model. */
  weightGroup: string;
  /** The model's trained maximum context, the ceiling for what this device may configure. */
  trainedContext: number;
  /** Unix seconds, fixed per variant. */
  created: number;
  /** Set for an embedding model (POST /v1/embeddings only; chat requests for it are refused). */
  embeddings?: EmbeddingSpec;
  /**
   * The engine the deployment's `models` setting ties this variant to (its model exists for that engine only, or
   * the entry says `engine`); `upstream`: an id of the deployment's own that only an upstream server answers (hybrid
   * mode `upstream`, no local model; docs/hybrid.md); absent: the engine the device's policy picks (`engineChoice`).
   */
  engine?: EngineKind | 'upstream';
}

export interface EmbeddingSpec {
  /** The length of every vector it returns. */
  dimensions: number;
  /** How many token ids its vocabulary has (token-id inputs must be below it). */
  vocabulary: number;
}

export const VARIANTS: Readonly<Record<VariantId, Variant>> = {
  'svc-model-5.2': {
    id: 'svc-model-5.2',
    thinks: true,
    vision: false,
    hostedContext: 1_000_000,
    weightGroup: 'qwen3-8b',
    trainedContext: 40_960,
    created: 1_767_225_600,
  },
  'svc-model-5.2-fast': {
    id: 'svc-model-5.2-fast',
    thinks: false,
    vision: false,
    hostedContext: 1_000_000,
    weightGroup: 'qwen3-8b',
    trainedContext: 40_960,
    created: 1_767_225_601,
  },
  'svc-model-5.2-short': {
    id: 'svc-model-5.2-short',
    thinks: true,
    vision: false,
    hostedContext: 200_000,
    weightGroup: 'qwen3-1.7b',
    trainedContext: 40_960,
    created: 1_767_225_602,
  },
  'svc-model-5.2-short-fast': {
    id: 'svc-model-5.2-short-fast',
    thinks: false,
    vision: false,
    hostedContext: 200_000,
    weightGroup: 'qwen3-1.7b',
    trainedContext: 40_960,
    created: 1_767_225_603,
  },
  'svc-vision': {
    id: 'svc-vision',
    // Phi-3.5-vision has no thinking mode: "as the model allows" means never.
    thinks: false,
    vision: true,
    hostedContext: null,
    weightGroup: 'phi-3.5-vision',
    trainedContext: 131_072,
    created: 1_767_225_604,
  },
  'svc-embed': {
    id: 'svc-embed',
    thinks: false,
    vision: false,
    hostedContext: null,
    weightGroup: 'arctic-embed-s',
    // snowflake-arctic-embed-s: a BERT-style encoder, 512 tokens per input.
    trainedContext: 512,
    created: 1_767_225_605,
    embeddings: { dimensions: 384, vocabulary: 30_522 },
  },
};

/** The variants that answer chat (and Responses, legacy completions): all but embedding models. */
export const CHAT_VARIANT_IDS = VARIANT_IDS.filter((id) => !VARIANTS[id].embeddings);

export function isVariantId(value: unknown): value is VariantId {
  return typeof value === 'string' && (VARIANT_IDS as readonly string[]).includes(value);
}
