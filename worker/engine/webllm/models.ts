// What the web-llm engine must know about each set of weights beyond src/shared/variants.ts: which web-llm models serve
// it, the shape that sets the size of its KV cache, how its thinking is switched, and web-llm's record for it
// (model URL, model library, `vram_required_MB`).
import { prebuiltAppConfig, type AppConfig, type ModelIntegrity, type ModelRecord } from '@mlc-ai/web-llm';
import { ModelConfigError, type ModelCatalog, type WebLlmEntry, type WebLlmRecordConfig } from '#shared/model-config';
import type { ModelId, Variant } from '#shared/variants';
import type { WebLlmToolFormatName } from '#shared/engine-kinds/webllm';
import { familyToolFormat } from './tool-formats/registry';

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
  /**
   * From the model's config.json (num_hidden_layers, num_key_value_heads, head_dim): sizes the context beyond
   * web-llm's default. Unknown for a configured model that does not say: it gets the default context.
   */
  kv?: KvShape;
  thinkingSwitch: ThinkingSwitch;
  /** How the model is shown tools and writes its calls (tool-formats/); `none`: tools are refused. */
  toolFormat: WebLlmToolFormatName;
  /** A model of the deployment's own (not one web-llm ships): its record, URLs as configured. */
  custom?: WebLlmRecordConfig;
}

/** Weight group (src/shared/variants.ts) → the web-llm models that serve it, as inpage ships. */
export const WEBLLM_MODELS: Readonly<Record<string, WebLlmModel & { kv: KvShape }>> = {
  'qwen3-8b': {
    f16: 'Qwen3-8B-q4f16_1-MLC',
    f32: 'Qwen3-8B-q4f32_1-MLC',
    kv: { layers: 36, kvHeads: 8, headDim: 128 },
    thinkingSwitch: 'enable_thinking',
    toolFormat: 'qwen3',
  },
  'qwen3-1.7b': {
    f16: 'Qwen3-1.7B-q4f16_1-MLC',
    f32: 'Qwen3-1.7B-q4f32_1-MLC',
    kv: { layers: 28, kvHeads: 8, headDim: 128 },
    thinkingSwitch: 'enable_thinking',
    toolFormat: 'qwen3',
  },
  'phi-3.5-vision': {
    f16: 'Phi-3.5-vision-instruct-q4f16_1-MLC',
    f32: 'Phi-3.5-vision-instruct-q4f32_1-MLC',
    // 32 heads without grouping, hidden size 3072 → head_dim 96.
    kv: { layers: 32, kvHeads: 32, headDim: 96 },
    thinkingSwitch: 'none',
    toolFormat: 'none',
  },
  // svc-embed. Of the embedding models web-llm 0.2.86 ships (snowflake-arctic-embed -m and -s, batch 4 or 32),
  // -s: 384 dimensions and 239 MB of GPU memory (-m: 768 and 539 MB), so it fits beside any chat model; batch 4
  // keeps its buffers small (a request of more inputs runs in batches of 4). q0f32: one build for every adapter.
  'arctic-embed-s': {
    f16: 'snowflake-arctic-embed-s-q0f32-MLC-b4',
    f32: 'snowflake-arctic-embed-s-q0f32-MLC-b4',
    // An encoder keeps no KV cache between requests; its context is fixed at 512 (not sized from this).
    kv: { layers: 12, kvHeads: 12, headDim: 32 },
    thinkingSwitch: 'none',
    toolFormat: 'none',
  },
};

/**
 * What web-llm puts in front of the answer of a Qwen3 model whose thinking is switched off
 * (`extra_body.enable_thinking: false`): it prefills this empty block and counts it as generated text.
 */
export const EMPTY_THINK_BLOCK = '<think>\n\n</think>\n\n';

const isPrebuilt = (modelId: string) => prebuiltAppConfig.model_list.some((r) => r.model_id === modelId);
const WEBLLM_VLM = 2; // web-llm's ModelType.VLM

/** A model's tool format when its entry names none: its family's, else Qwen3's for a model with Qwen3's switch. */
function defaultToolFormat(modelId: string, thinkingSwitch: ThinkingSwitch): WebLlmToolFormatName {
  const family = familyToolFormat(modelId);
  return family === 'none' && thinkingSwitch === 'enable_thinking' ? 'qwen3' : family;
}

/** The web-llm model a configured entry names, checked against this web-llm release. */
function configuredModel(id: string, entry: WebLlmEntry, thinks: boolean, vision: boolean): WebLlmModel {
  const at = (field: string) => `models[${JSON.stringify(id)}].${field}`;
  let model: WebLlmModel;
  if (entry.record) {
    const thinkingSwitch = entry.thinking ?? 'none';
    const toolFormat = entry.toolFormat ?? defaultToolFormat(entry.record.model_id, thinkingSwitch);
    model = { f16: entry.record.model_id, f32: entry.record.model_id, thinkingSwitch, toolFormat, custom: entry.record };
    if (isPrebuilt(entry.record.model_id)) {
      throw new ModelConfigError(
        `${at('record.model_id')}: '${entry.record.model_id}' is a web-llm prebuilt id; give your model an id of its own (or use 'webllm')`,
      );
    }
  } else {
    const ids = typeof entry.webllm === 'string' ? { f16: entry.webllm, f32: entry.webllm } : entry.webllm!;
    for (const modelId of new Set([ids.f16, ids.f32])) {
      if (!isPrebuilt(modelId)) {
        throw new ModelConfigError(`${at('webllm')}: this web-llm release ships no model '${modelId}' (a model of your own needs 'record')`);
      }
      if (vision !== ((prebuiltRecord(modelId).model_type ?? 0) === WEBLLM_VLM)) {
        throw new ModelConfigError(`${at('webllm')}: '${modelId}' ${vision ? 'takes no images' : 'is a vision model'}; set 'vision' to ${!vision}`);
      }
    }
    // Qwen3 is the prebuilt family with a per-request switch; any other model has none unless the entry says so.
    const qwen3 = /^Qwen3-/.test(ids.f16);
    const thinkingSwitch = entry.thinking ?? (qwen3 ? 'enable_thinking' : 'none');
    model = { ...ids, thinkingSwitch, toolFormat: entry.toolFormat ?? defaultToolFormat(ids.f16, thinkingSwitch) };
  }
  if (entry.kv) model.kv = entry.kv;
  if (thinks && model.thinkingSwitch === 'none') {
    throw new ModelConfigError(
      `models[${JSON.stringify(id)}]: a model that thinks needs a thinking switch: say which ('thinking': 'enable_thinking'), or set 'thinks' to false`,
    );
  }
  return model;
}

const tables = new WeakMap<ModelCatalog, Map<string, WebLlmModel>>();

/**
 * Weight group → web-llm model, for a catalog: the shipped table for the five's own groups, and each configured
 * entry checked against this web-llm release. Throws a ModelConfigError naming the first bad entry.
 */
export function webllmModels(catalog: ModelCatalog): Map<string, WebLlmModel> {
  let table = tables.get(catalog);
  if (table) return table;
  table = new Map();
  for (const [group, spec] of Object.entries(catalog.groups)) {
    if (spec.engine !== 'webllm') continue;
    if (!spec.entry) {
      const shipped = WEBLLM_MODELS[group];
      if (!shipped) throw new Error(`No web-llm model serves weight group '${group}'.`);
      table.set(group, shipped);
      continue;
    }
    const first = catalog.variants.find((v) => v.weightGroup === group)!;
    table.set(group, configuredModel(spec.configuredBy ?? first.id, spec.entry as WebLlmEntry, first.thinks, first.vision));
  }
  // A pin for a model nothing here loads would protect nothing: most likely a typo in the id.
  const served = new Set([...table.values()].flatMap((m) => [m.f16, m.f32]));
  for (const [modelId, pin] of Object.entries(catalog.pins)) {
    if (!served.has(modelId)) {
      throw new ModelConfigError(
        `models[${JSON.stringify(pin.pinnedBy)}].integrity: no id of this deployment is served by '${modelId}' (served: ${[...served].join(', ')})`,
      );
    }
  }
  tables.set(catalog, table);
  return table;
}

export function webllmModelOf(catalog: ModelCatalog, variant: Variant): WebLlmModel {
  const model = webllmModels(catalog).get(variant.weightGroup);
  if (!model) throw new Error(`No web-llm model serves weight group '${variant.weightGroup}'.`);
  return model;
}

/** Whether the variant's model has a per-request thinking switch (Qwen3's `enable_thinking`). */
export function hasThinkingSwitch(catalog: ModelCatalog, variant: Variant): boolean {
  return webllmModelOf(catalog, variant).thinkingSwitch === 'enable_thinking';
}

/** The variant's tool-call format (tool-formats/); `none` when its model has none. */
export function toolFormatOf(catalog: ModelCatalog, variant: Variant): WebLlmToolFormatName {
  return webllmModelOf(catalog, variant).toolFormat;
}

/** The context web-llm's prebuilt records are configured (and `vram_required_MB` measured) for. */
export const WEBLLM_DEFAULT_CONTEXT = 4096;

export function kvShape(catalog: ModelCatalog, variant: Variant): KvShape | undefined {
  return webllmModelOf(catalog, variant).kv;
}

export function modelIdOf(catalog: ModelCatalog, variant: Variant, precision: Precision): string {
  return webllmModelOf(catalog, variant)[precision];
}

/** web-llm's own record for a model id (throws for an id web-llm does not ship). */
export function prebuiltRecord(modelId: string): ModelRecord {
  const record = prebuiltAppConfig.model_list.find((r) => r.model_id === modelId);
  if (!record) throw new Error(`This web-llm release ships no prebuilt model '${modelId}'.`);
  return record;
}

/** The deployment's record for a model of its own, if `modelId` is one. */
function customRecord(catalog: ModelCatalog, modelId: string): WebLlmRecordConfig | undefined {
  for (const model of webllmModels(catalog).values()) if (model.custom?.model_id === modelId) return model.custom;
  return undefined;
}

/**
 * The deployment's pins for a model's files, as web-llm's `ModelRecord.integrity` (a mismatch throws web-llm's
 * IntegrityError, never only a warning). None: web-llm checks nothing (what it ships carries no hashes).
 */
export function integrityOf(catalog: ModelCatalog, modelId: string): ModelIntegrity | undefined {
  webllmModels(catalog); // checks the pins name served models
  const pin = catalog.pins[modelId];
  if (!pin) return undefined;
  const { pinnedBy: _by, ...integrity } = pin;
  return { ...integrity, onFailure: 'error' };
}

/** The record (prebuilt or the deployment's own) for a model id; its URLs as given. */
export function baseRecord(catalog: ModelCatalog, modelId: string): ModelRecord {
  const custom = customRecord(catalog, modelId);
  return custom ? ({ ...custom, overrides: { ...custom.overrides } } as ModelRecord) : prebuiltRecord(modelId);
}

/** One variant per set of weights: the variants that load something different. */
export function weightGroups(catalog: ModelCatalog): Variant[] {
  const seen = new Set<string>();
  return catalog.variants.filter((v) => webllmModels(catalog).has(v.weightGroup) && !seen.has(v.weightGroup) && seen.add(v.weightGroup));
}

export function variantsOfGroup(catalog: ModelCatalog, group: string): ModelId[] {
  return catalog.variants.filter((v) => v.weightGroup === group).map((v) => v.id);
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

/**
 * The record web-llm loads for `modelId` from `source`, with the files' URLs made absolute. A model of the
 * deployment's own keeps the URLs its record gives (relative ones resolve against `origin`).
 */
export function recordFor(catalog: ModelCatalog, modelId: string, source: ModelSource, origin: string): ModelRecord {
  const custom = customRecord(catalog, modelId);
  const integrity = integrityOf(catalog, modelId);
  if (custom) {
    return {
      ...custom,
      model: new URL(custom.model, origin).href,
      model_lib: new URL(custom.model_lib, origin).href,
      overrides: { ...custom.overrides },
      ...(integrity ? { integrity } : {}),
    } as ModelRecord;
  }
  const prebuilt = prebuiltRecord(modelId);
  const record: ModelRecord = { ...prebuilt, overrides: { ...prebuilt.overrides }, ...(integrity ? { integrity } : {}) };
  if (source.modelBaseUrl) record.model = join(source.modelBaseUrl, modelId, origin);
  if (source.modelLibBaseUrl) {
    const file = prebuilt.model_lib.slice(prebuilt.model_lib.lastIndexOf('/') + 1);
    record.model_lib = join(source.modelLibBaseUrl, file, origin);
  }
  return record;
}

/** web-llm's app config for every model inpage can load, cached in IndexedDB. */
export function appConfigFor(catalog: ModelCatalog, source: ModelSource, origin: string): AppConfig {
  const ids = new Set(weightGroups(catalog).flatMap((v) => [modelIdOf(catalog, v, 'f16'), modelIdOf(catalog, v, 'f32')]));
  return { model_list: [...ids].map((id) => recordFor(catalog, id, source, origin)), cacheBackend: 'indexeddb' };
}
