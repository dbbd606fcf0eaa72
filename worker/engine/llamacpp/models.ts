// Which GGUF file serves each set of weights on the llama.cpp engine, and where it is fetched from.
// Defaults are of the same family as web-llm's models, from ggml-org's GGUF repositories on Hugging Face
// (llama.cpp's own conversions); a deployment may fetch them from elsewhere (`ggufBaseUrl`, same layout).
import type { InpageConfig } from '../../../src/config';
import { VARIANTS, VARIANT_IDS, type Variant } from '../../../src/variants';

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
}

/** By weight group (variants sharing weights share the file). */
export const GGUF_DEFAULTS: Readonly<Record<string, GgufDefault>> = {
  'qwen3-8b': { repo: 'ggml-org/Qwen3-8B-GGUF', file: 'Qwen3-8B-Q4_K_M.gguf', bytes: 5_030_000_000, quantization: 'Q4_K_M' },
  'qwen3-1.7b': { repo: 'ggml-org/Qwen3-1.7B-GGUF', file: 'Qwen3-1.7B-Q4_K_M.gguf', bytes: 1_280_000_000, quantization: 'Q4_K_M' },
  'phi-3.5-vision': {
    repo: 'ggml-org/Qwen3-VL-2B-Thinking-GGUF',
    file: 'Qwen3-VL-2B-Thinking-Q4_K_M.gguf',
    mmproj: 'mmproj-Qwen3-VL-2B-Thinking-Q8_0.gguf',
    bytes: 1_550_000_000,
    quantization: 'Q4_K_M',
  },
};

export const HUGGING_FACE = 'https://huggingface.co';

export interface GgufSource {
  url: string;
  mmprojUrl?: string;
  bytes: number;
  quantization: string;
}

/** `{base}/{repo}/resolve/main/{file}`: Hugging Face's layout, which a self-hosted mirror keeps. */
export function ggufSource(variant: Variant, config: Pick<InpageConfig, 'ggufBaseUrl'>, origin: string): GgufSource {
  const spec = GGUF_DEFAULTS[variant.weightGroup];
  if (!spec) throw new Error(`No GGUF model is configured for '${variant.id}'.`);
  const base = new URL((config.ggufBaseUrl || HUGGING_FACE).replace(/\/+$/, '') + '/', origin);
  const at = (file: string) => new URL(`${spec.repo}/resolve/main/${file}`, base).href;
  const source: GgufSource = { url: at(spec.file), bytes: spec.bytes, quantization: spec.quantization };
  if (spec.mmproj) source.mmprojUrl = at(spec.mmproj);
  return source;
}

/** One variant per weight group (the first), for per-group work. */
export function weightGroups(): Variant[] {
  const seen = new Set<string>();
  return VARIANT_IDS.map((id) => VARIANTS[id]).filter((v) => !seen.has(v.weightGroup) && seen.add(v.weightGroup));
}
