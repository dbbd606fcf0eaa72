// What the web-llm engine must know about each set of weights beyond src/variants.ts: which web-llm models serve
// it, the shape that sets the size of its KV cache, how its thinking is switched, and web-llm's record for it
// (model URL, model library, `vram_required_MB`).
import { prebuiltAppConfig, type AppConfig, type ModelRecord } from '@mlc-ai/web-llm';
import { VARIANTS, VARIANT_IDS, type Variant, type VariantId } from '../../../src/variants';

/** `f16` for adapters with `shader-f16` (q4f16_1 weights), `f32` for the rest (q4f32_1). */
export type Precision = 'f16' | 'f32';

export interface KvShape {
  layers: number;
  kvHeads: number;
  headDim: number;
}

/**
 * How a model's thinking is switched per request: `enable_thinking` is Qwen3's (web-llm's
 * `extra_body.enable_thinking`; off, web-llm prefills EMPTY_THINK_BLOCK); `none`: the model has no switch.
 */
export type ThinkingSwitch = 'enable_thinking' | 'none';

/** The web-llm models behind one weight group. */
export interface WebLlmModel {
  /** web-llm model ids: for adapters with `shader-f16`, and the q4f32 fallback for adapters without. */
  f16: string;
  f32: string;
  /** From the model's config.json on Hugging Face (num_hidden_layers, num_key_value_heads, head_dim). */
  kv: KvShape;
  thinkingSwitch: ThinkingSwitch;
}

/** Weight group (src/variants.ts) → the web-llm models that serve it. */
export const WEBLLM_MODELS: Readonly<Record<string, WebLlmModel>> = {
  'qwen3-8b': {
    f16: 'Qwen3-8B-q4f16_1-MLC',
    f32: 'Qwen3-8B-q4f32_1-MLC',
    kv: { layers: 36, kvHeads: 8, headDim: 128 },
    thinkingSwitch: 'enable_thinking',
  },
  'qwen3-1.7b': {
    f16: 'Qwen3-1.7B-q4f16_1-MLC',
    f32: 'Qwen3-1.7B-q4f32_1-MLC',
    kv: { layers: 28, kvHeads: 8, headDim: 128 },
    thinkingSwitch: 'enable_thinking',
  },
  'phi-3.5-vision': {
    f16: 'Phi-3.5-vision-instruct-q4f16_1-MLC',
    f32: 'Phi-3.5-vision-instruct-q4f32_1-MLC',
    // 32 heads without grouping, hidden size 3072 → head_dim 96.
    kv: { layers: 32, kvHeads: 32, headDim: 96 },
    thinkingSwitch: 'none',
  },
};

/**
 * What web-llm puts in front of the answer of a Qwen3 model whose thinking is switched off
 * (`extra_body.enable_thinking: false`): it prefills this empty block and counts it as generated text.
 */
export const EMPTY_THINK_BLOCK = '<think>\n\n</think>\n\n';

export function webllmModelOf(variant: Variant): WebLlmModel {
  const model = WEBLLM_MODELS[variant.weightGroup];
  if (!model) throw new Error(`No web-llm model serves weight group '${variant.weightGroup}'.`);
  return model;
}

/** Whether the variant's model has a per-request thinking switch (Qwen3's `enable_thinking`). */
export function hasThinkingSwitch(variant: Variant): boolean {
  return webllmModelOf(variant).thinkingSwitch === 'enable_thinking';
}

/** The context web-llm's prebuilt records are configured (and `vram_required_MB` measured) for. */
export const WEBLLM_DEFAULT_CONTEXT = 4096;

export function kvShape(variant: Variant): KvShape {
  return webllmModelOf(variant).kv;
}

export function modelIdOf(variant: Variant, precision: Precision): string {
  return webllmModelOf(variant)[precision];
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
  const ids = new Set(VARIANT_IDS.flatMap((id) => [modelIdOf(VARIANTS[id], 'f16'), modelIdOf(VARIANTS[id], 'f32')]));
  return { model_list: [...ids].map((id) => recordFor(id, source, origin)), cacheBackend: 'indexeddb' };
}
