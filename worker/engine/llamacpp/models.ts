// Which GGUF file serves each set of weights on the llama.cpp engine, and where it is fetched from.
// Defaults are of the same family as web-llm's models, from official GGUF repositories on Hugging Face
// (llama.cpp's own, ggml-org, and Qwen's); a deployment may fetch them from elsewhere (`ggufBaseUrl`, same
// layout), or name GGUF files of its own by URL in its `models` setting (src/shared/model-config.ts), split ones too.
import type { InpageConfig } from '#shared/config';
import type { ModelCatalog } from '#shared/model-config';
import type { Variant } from '#shared/variants';

export interface GgufDefault {
  /** Hugging Face repository (`owner/name`). */
  repo: string;
  /** The model file; a split model names its first part (`…-00001-of-0000N.gguf`). */
  file: string;
  /** The vision projector, for vision models. */
  mmproj?: string;
  /** Bytes of the files together, as published (for the "too large for this device" check and the docs). */
  bytes: number;
  /** What the quantisation is, for /v1/models and the docs. */
  quantization: string;
  /**
   * How this model thinks, where it differs from the variant's promise: `always` is a model that always thinks
   * (a "Thinking" release: its template opens the thinking block itself, so it cannot be switched off).
   */
  thinking?: 'always';
}

/**
 * By weight group (variants sharing weights share the file). Names and sizes as found in public sources (no
 * internet here; docs/engines.md says which): ggml-org (llama.cpp's own organisation) for Qwen3-8B and -1.7B,
 * Qwen's own repository for Qwen3-VL-2B-Thinking (ggml-org has none; Qwen names its files `Qwen3VL-…`).
 */
export const GGUF_DEFAULTS: Readonly<Record<string, GgufDefault>> = {
  'qwen3-8b': { repo: 'ggml-org/Qwen3-8B-GGUF', file: 'Qwen3-8B-Q4_K_M.gguf', bytes: 5_030_000_000, quantization: 'Q4_K_M' },
  'qwen3-1.7b': { repo: 'ggml-org/Qwen3-1.7B-GGUF', file: 'Qwen3-1.7B-Q4_K_M.gguf', bytes: 1_280_000_000, quantization: 'Q4_K_M' },
  'phi-3.5-vision': {
    repo: 'Qwen/Qwen3-VL-2B-Thinking-GGUF',
    file: 'Qwen3VL-2B-Thinking-Q4_K_M.gguf',
    mmproj: 'mmproj-Qwen3VL-2B-Thinking-Q8_0.gguf',
    // The model file is 1,107,409,888 bytes; the projector's Q8_0 size was not found (its F16 is about 0.86 GB,
    // so Q8_0 about 0.45 GB): together about 1.55 GB.
    bytes: 1_550_000_000,
    quantization: 'Q4_K_M',
    thinking: 'always',
  },
};

export const HUGGING_FACE = 'https://huggingface.co';

export interface GgufSource {
  /** What wllama is given: the file, or a split model's first part (wllama derives the others from its name). */
  url: string;
  /** Every file of the model (a split model's parts in order). */
  files: string[];
  mmprojUrl?: string;
  /** Bytes of the files, when known (0: unknown, no size check before the load). */
  bytes: number;
  quantization?: string;
  /** Tokens of context to load the model with, when the deployment says. */
  context?: number;
  /** The model always thinks (its thinking cannot be switched off per request). */
  alwaysThinks: boolean;
  /** The deployment's own file (from `models`), not a default. */
  configured: boolean;
}

/** A split model's parts from its first part's URL (llama.cpp's gguf-split naming, as wllama derives them). */
export function splitParts(first: string): string[] {
  const m = first.match(/-(\d{5})-of-(\d{5})\.gguf(\?.*)?$/);
  if (!m || m[1] !== '00001') return [first];
  const total = Number(m[2]);
  return Array.from({ length: total }, (_, i) => first.replace(/-\d{5}-of-(\d{5})\.gguf/, `-${String(i + 1).padStart(5, '0')}-of-$1.gguf`));
}

/** The file name a URL ends in, for status and messages. */
export function fileName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.split('/').pop() ?? url);
}

/**
 * The GGUF files that serve `variant`: the deployment's own (its `models` entry, URLs resolved against the
 * origin) or the default of its weight group at `{ggufBaseUrl}/{repo}/resolve/main/{file}` (Hugging Face's
 * layout, which a self-hosted mirror keeps).
 */
export function ggufSource(variant: Variant, config: Pick<InpageConfig, 'ggufBaseUrl'>, origin: string, catalog: ModelCatalog): GgufSource {
  const configured = catalog.groups[variant.weightGroup]?.gguf;
  if (configured) {
    const files = configured.files.map((f) => new URL(f, origin).href);
    const source: GgufSource = { url: files[0]!, files, bytes: configured.bytes ?? 0, alwaysThinks: false, configured: true };
    if (configured.mmproj) source.mmprojUrl = new URL(configured.mmproj, origin).href;
    if (configured.context) source.context = configured.context;
    return source;
  }
  const spec = GGUF_DEFAULTS[variant.weightGroup];
  if (!spec) throw new Error(`No GGUF model is configured for '${variant.id}'.`);
  const base = new URL((config.ggufBaseUrl || HUGGING_FACE).replace(/\/+$/, '') + '/', origin);
  const at = (file: string) => new URL(`${spec.repo}/resolve/main/${file}`, base).href;
  const source: GgufSource = {
    url: at(spec.file),
    files: [at(spec.file)],
    bytes: spec.bytes,
    quantization: spec.quantization,
    alwaysThinks: spec.thinking === 'always',
    configured: false,
  };
  if (spec.mmproj) source.mmprojUrl = at(spec.mmproj);
  return source;
}

/** Whether llama.cpp can serve the variant: not tied to web-llm, not the embedding model, a GGUF known for it. */
export function servedByLlama(variant: Variant, catalog: ModelCatalog): boolean {
  if (variant.engine === 'webllm' || variant.embeddings) return false;
  return !!catalog.groups[variant.weightGroup]?.gguf || variant.weightGroup in GGUF_DEFAULTS;
}

/** One variant per weight group llama.cpp serves (the first), for per-group work. */
export function weightGroups(catalog: ModelCatalog): Variant[] {
  const seen = new Set<string>();
  return catalog.variants.filter((v) => servedByLlama(v, catalog) && !seen.has(v.weightGroup) && seen.add(v.weightGroup));
}
