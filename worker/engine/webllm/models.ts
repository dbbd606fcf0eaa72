// What the engine must know about each set of weights beyond src/variants.ts: the shape that sets the size of
// its KV cache, and web-llm's record for it (model URL, model library, `vram_required_MB`).
import { prebuiltAppConfig, type AppConfig, type ModelRecord } from '@mlc-ai/web-llm';
import { VARIANTS, VARIANT_IDS, type Variant, type VariantId } from '../../../src/variants';

/** `f16` for adapters with `shader-f16` (q4f16_1 weights), `f32` for the rest (q4f32_1). */
export type Precision = 'f16' | 'f32';

export interface KvShape {
  layers: number;
  kvHeads: number;
  headDim: number;
}

/** From each model's config.json on Hugging Face (num_hidden_layers, num_key_value_heads, head_dim). */
export const KV_SHAPES: Readonly<Record<string, KvShape>> = {
  'qwen3-8b': { layers: 36, kvHeads: 8, headDim: 128 },
  'qwen3-1.7b': { layers: 28, kvHeads: 8, headDim: 128 },
  // Phi-3.5-vision: 32 heads without grouping, hidden size 3072 → head_dim 96.
  'phi-3.5-vision': { layers: 32, kvHeads: 32, headDim: 96 },
};

/** The context web-llm's prebuilt records are configured (and `vram_required_MB` measured) for. */
export const WEBLLM_DEFAULT_CONTEXT = 4096;

export function kvShape(variant: Variant): KvShape {
  const shape = KV_SHAPES[variant.weightGroup];
  if (!shape) throw new Error(`No KV cache shape is known for weight group '${variant.weightGroup}'.`);
  return shape;
}

export function modelIdOf(variant: Variant, precision: Precision): string {
  return variant.webllm[precision];
}

/** web-llm's own record for a model id (throws for an id web-llm does not ship). */
export function prebuiltRecord(modelId: string): ModelRecord {
  const record = prebuiltAppConfig.model_list.find((r) => r.model_id === modelId);
  if (!record) throw new Error(`This web-llm release ships no prebuilt model '${modelId}'.`);
  return record;
}

/** One variant per set of weights: the variants that load something different. */
export function weightGroups(): Variant[] {
  const seen = new Set<string>();
  return VARIANT_IDS.map((id) => VARIANTS[id]).filter((v) => !seen.has(v.weightGroup) && seen.add(v.weightGroup));
}

export function variantsOfGroup(group: string): VariantId[] {
  return VARIANT_IDS.filter((id) => VARIANTS[id].weightGroup === group);
}

/** Where a deployment serves model files from; empty strings keep web-llm's prebuilt hosts. */
export interface ModelSource {
  /** Weights: `{modelBaseUrl}/{model id}/resolve/main/…`. Relative URLs resolve against `origin`. */
  modelBaseUrl: string;
  /** Model libraries: `{modelLibBaseUrl}/{library file name}`. */
  modelLibBaseUrl: string;
}

function join(base: string, name: string, origin: string): string {
  const absolute = new URL(base.endsWith('/') ? base : `${base}/`, origin);
  return new URL(name, absolute).href;
}

/** The record web-llm loads for `modelId` from `source`, with the files' URLs made absolute. */
export function recordFor(modelId: string, source: ModelSource, origin: string): ModelRecord {
  const prebuilt = prebuiltRecord(modelId);
  const record: ModelRecord = { ...prebuilt, overrides: { ...prebuilt.overrides } };
  if (source.modelBaseUrl) record.model = join(source.modelBaseUrl, modelId, origin);
  if (source.modelLibBaseUrl) {
    const file = prebuilt.model_lib.slice(prebuilt.model_lib.lastIndexOf('/') + 1);
    record.model_lib = join(source.modelLibBaseUrl, file, origin);
  }
  return record;
}

/** web-llm's app config for every model inpage can load, cached in IndexedDB. */
export function appConfigFor(source: ModelSource, origin: string): AppConfig {
  const ids = new Set(VARIANT_IDS.flatMap((id) => [VARIANTS[id].webllm.f16, VARIANTS[id].webllm.f32]));
  return { model_list: [...ids].map((id) => recordFor(id, source, origin)), cacheBackend: 'indexeddb' };
}
