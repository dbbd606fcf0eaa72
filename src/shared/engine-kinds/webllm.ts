// web-llm's `models` entries: a prebuilt model id (one, or one per precision) or a record of the deployment's own,
// with pins for its files. The engine reads them in worker/engine/webllm/models.ts; the engine itself is
// worker/engine/webllm/ (its descriptor there). An entry that names no `engine` is web-llm's.
import { z } from '../protocol/zod';
import { ModelConfigError, where, type EntryParts } from '../model-entry';
import { QWEN3_LICENCE, type EngineKindSpec } from './kind';
import { isVariantId } from '../variants';

/**
 * The tool-call formats the web-llm engine can speak (worker/engine/webllm/tool-formats/, one module each): how a
 * model is shown the tools and writes its calls. `none`: the model has no tool format (tools are refused with 400).
 */
export const WEBLLM_TOOL_FORMATS = ['qwen3', 'llama3', 'mistral', 'phi4-mini', 'none'] as const;
export type WebLlmToolFormatName = (typeof WEBLLM_TOOL_FORMATS)[number];

/** Bytes of each SRI digest: a pin of another length is a typo, not a hash. */
const SRI_BYTES = { sha256: 32, sha384: 48, sha512: 64 } as const;

function webllmSchemas({ common, nonEmpty }: EntryParts) {
  /** One Subresource Integrity hash (`sha256-…`, `sha384-…` or `sha512-…`, base64), as web-llm verifies them. */
  const sri = z.string().check(
    z.refine((value: string) => {
      const m = /^(sha256|sha384|sha512)-([A-Za-z0-9+/]+={0,2})$/.exec(value);
      if (!m) return false;
      const b64 = m[2]!;
      return Math.floor((b64.replace(/=+$/, '').length * 3) / 4) === SRI_BYTES[m[1] as keyof typeof SRI_BYTES];
    }, 'must be one SRI hash: sha256-, sha384- or sha512- and the base64 digest'),
  );

  /**
   * Pins for one web-llm model's files, in web-llm's `ModelRecord.integrity` shape: web-llm 0.2.86 checks its
   * `mlc-chat-config.json`, its model library (before running it) and the tokenizer file it reads against these,
   * and a mismatch fails the load (inpage never sets web-llm's `onFailure: "warn"`). The weight shards and
   * `tensor-cache.json` are not covered by web-llm's check.
   */
  const modelIntegrity = z.strictObject({
    config: z.optional(sri),
    model_lib: z.optional(sri),
    /** web-llm reads (and checks) `tokenizer.json`, or `tokenizer.model` when there is no tokenizer.json. */
    tokenizer: z.optional(z.partialRecord(z.enum(['tokenizer.json', 'tokenizer.model']), sri)),
  });

  /**
   * A web-llm `ModelRecord` for a model web-llm does not ship: where its weights and compiled library are, and the
   * chat options (`overrides`: `conv_template`, `context_window_size`, …) as web-llm takes them. Relative URLs
   * resolve against the page's origin.
   */
  const webllmRecord = z.strictObject({
    model_id: z.string().check(z.regex(/^[\w.+-]{1,128}$/, 'must be 1–128 letters, digits or . _ + -')),
    model: z.string().check(z.minLength(1)),
    model_lib: z.string().check(z.minLength(1)),
    overrides: z.optional(z.record(z.string(), z.unknown())),
    vram_required_MB: z.optional(z.number().check(z.positive())),
    low_resource_required: z.optional(z.boolean()),
    buffer_size_required_bytes: z.optional(z.number().check(z.positive())),
    required_features: z.optional(z.array(z.string())),
    model_type: z.optional(z.int().check(z.minimum(0))),
  });

  const entry = z.strictObject({
    engine: z.optional(z.literal('webllm')),
    ...common,
    /** A web-llm prebuilt model id for both precisions, or one for adapters with `shader-f16` and one without. */
    webllm: z.optional(z.union([nonEmpty, z.strictObject({ f16: nonEmpty, f32: nonEmpty })])),
    /** A model of the deployment's own (see webllmRecord). */
    record: z.optional(webllmRecord),
    /**
     * The model's tool-call format (WEBLLM_TOOL_FORMATS). Default: by the web-llm model id's family (Qwen3, Qwen2.5
     * and Hermes → `qwen3`, Llama 3.1–3.3 → `llama3`, Mistral-7B-Instruct-v0.3 → `mistral`, Phi-4-mini →
     * `phi4-mini`), `qwen3` for a model with Qwen3's thinking switch, else `none`.
     */
    toolFormat: z.optional(z.enum(WEBLLM_TOOL_FORMATS)),
    /**
     * Pins, by web-llm model id (either precision of this entry's model, or of the shipped model when the entry
     * names none): the hashes its files must have. `npm run models:pull` writes them for what it pulled.
     */
    integrity: z.optional(z.record(nonEmpty, modelIntegrity)),
  });
  return { modelIntegrity, webllmRecord, entry };
}
type Schemas = ReturnType<typeof webllmSchemas>;

export type ModelIntegrity = z.output<Schemas['modelIntegrity']>;
export type WebLlmRecordConfig = z.output<Schemas['webllmRecord']>;
export type WebLlmEntry = z.output<Schemas['entry']>;

const PHI_LICENCE = { licence: 'MIT', licenceUrl: 'https://opensource.org/license/mit' };

export const webllmKind: EngineKindSpec<WebLlmEntry> = {
  label: 'web-llm (WebGPU)',
  // By web-llm model id (the ids of worker/engine/webllm/models.ts).
  cards: {
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
  runtimeText: () => 'web-llm on WebGPU',
  entry: {
    schema: (parts) => webllmSchemas(parts).entry,
    groupKey(web) {
      if (web.record) return web.record.model_id;
      if (typeof web.webllm === 'string') return web.webllm;
      if (web.webllm) return web.webllm.f16 === web.webllm.f32 ? web.webllm.f16 : `${web.webllm.f16}/${web.webllm.f32}`;
      return null;
    },
    // A model the five also use, configured: a group of its own beside the shipped one.
    groupName: (key, _taken, builtIn) => (builtIn ? `config:${key}` : key),
    check(id, web, _base, upstreamOnly) {
      if (upstreamOnly) {
        for (const field of ['integrity', 'thinking', 'kv', 'toolFormat'] as const) {
          if (web[field] !== undefined)
            throw new ModelConfigError(
              `${where(id, [field])}: '${id}' has no local model (mode 'upstream' without 'webllm', 'record' or 'gguf'), so '${field}' describes nothing here`,
            );
        }
        return;
      }
      if (web.webllm !== undefined && web.record !== undefined) {
        throw new ModelConfigError(`${where(id)}: give either 'webllm' (a prebuilt model id) or 'record' (a model of your own), not both`);
      }
      if (!isVariantId(id) && web.webllm === undefined && web.record === undefined) {
        throw new ModelConfigError(
          `${where(id)}: a model id of the deployment's own needs 'webllm' (a prebuilt model id) or 'record', or 'engine': 'llamacpp' with 'gguf'; or, answered by an upstream server only, 'mode': 'upstream' with 'upstream'`,
        );
      }
      if (web.webllm === undefined && web.record === undefined && (web.thinking !== undefined || web.kv !== undefined || web.toolFormat !== undefined)) {
        throw new ModelConfigError(`${where(id)}: 'thinking', 'kv' and 'toolFormat' describe a model: give them with 'webllm' or 'record'`);
      }
    },
  },
};
