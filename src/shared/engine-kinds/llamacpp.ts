// llama.cpp's `models` entries: a GGUF model by URL (one file, or a split model's parts), its vision projector and
// context; without `gguf` (one of the five only) the id keeps its GGUF default and is only tied to llama.cpp. The
// engine reads them in worker/engine/llamacpp/models.ts; the engine itself is worker/engine/llamacpp/ (its
// descriptor there).
import { z } from '../protocol/zod';
import { ModelConfigError, where, type EntryParts } from '../model-entry';
import { QWEN3_LICENCE, type EngineKindSpec } from './kind';

/** llama.cpp's split naming (gguf-split): `…-00001-of-00003.gguf`; wllama loads a split model from its first part. */
const SPLIT_PART = /-(\d{5})-of-(\d{5})\.gguf(\?.*)?$/i;

function llamacppSchema({ common, positiveInt }: EntryParts) {
  /** A GGUF file's URL: http(s), or relative to the page's origin; the name ends in `.gguf` (as wllama requires). */
  const ggufUrl = z.string().check(
    z.minLength(1),
    z.refine((u: string) => {
      try {
        const url = new URL(u, 'https://origin.invalid/');
        return (url.protocol === 'https:' || url.protocol === 'http:') && /\.gguf$/i.test(url.pathname);
      } catch {
        return false;
      }
    }, 'must be an http(s) URL (or a path on this origin) of a .gguf file'),
  );

  /**
   * A llama.cpp model (GGUF). Without `gguf` (one of the five only) the variant keeps its GGUF default and is only
   * tied to llama.cpp. `kv` (web-llm's context sizing) does not apply.
   */
  return z.strictObject({
    engine: z.literal('llamacpp'),
    ...common,
    kv: z.optional(z.undefined({ error: "'kv' sizes web-llm's context; on llama.cpp give 'context'" })),
    /** The model file's URL, or the URLs of its split parts in order (each under llama.cpp's 2 GB buffer limit). */
    gguf: z.optional(z.union([ggufUrl, z.array(ggufUrl).check(z.minLength(1))])),
    /** The vision projector's URL (a vision model's image encoder). */
    mmproj: z.optional(ggufUrl),
    /** Tokens of context llama.cpp allocates when it loads the model (default 4096; at most `contextLength`). */
    context: z.optional(positiveInt),
    /** The files' size in bytes, for the "too large for this device" check (unknown: no check before the load). */
    bytes: z.optional(positiveInt),
  });
}

export type LlamaCppEntry = z.output<ReturnType<typeof llamacppSchema>>;

/** A configured GGUF model as the llama.cpp engine loads it: every file's URL (a split model's parts in order). */
export interface GgufModelConfig {
  /** The model's files: one, or a split model's parts `-00001-of-N` … `-N-of-N`; wllama is given the first. */
  files: string[];
  mmproj?: string;
  context?: number;
  bytes?: number;
  thinking?: 'enable_thinking' | 'none';
}

/** The GGUF files of a llamacpp entry, checked against llama.cpp's split naming. Throws a ModelConfigError. */
function ggufFiles(id: string, gguf: string | string[]): string[] {
  const files = typeof gguf === 'string' ? [gguf] : gguf;
  const parts = files.map((f) => f.match(SPLIT_PART));
  if (files.length === 1) {
    const m = parts[0];
    if (m && Number(m[1]) !== 1) {
      throw new ModelConfigError(
        `${where(id, ['gguf'])}: '${files[0]}' is part ${Number(m[1])} of a split model; give the first part (-00001-of-${m[2]}.gguf) or every part in order`,
      );
    }
    return files;
  }
  const prefix = (f: string) => f.replace(SPLIT_PART, '');
  for (let i = 0; i < files.length; i++) {
    const m = parts[i];
    const expected = `-${String(i + 1).padStart(5, '0')}-of-${String(files.length).padStart(5, '0')}.gguf`;
    if (!m || Number(m[1]) !== i + 1 || Number(m[2]) !== files.length || prefix(files[i]!) !== prefix(files[0]!) || (m[3] ?? '') !== (parts[0]![3] ?? '')) {
      throw new ModelConfigError(
        `${where(id, ['gguf', i])}: the parts of a split model must be named as llama.cpp's gguf-split names them, in order and with one prefix: expected '${prefix(files[0]!)}${expected}', got '${files[i]}'`,
      );
    }
  }
  return files;
}

/** A readable weight-group name for a GGUF model: its file name without the split suffix and `.gguf`. */
function ggufGroupName(url: string, taken: (name: string) => boolean): string {
  const file = decodeURIComponent(new URL(url, 'https://origin.invalid/').pathname.split('/').pop() ?? 'model.gguf');
  const stem = `gguf:${file.replace(SPLIT_PART, '').replace(/\.gguf$/i, '')}`;
  let name = stem;
  for (let n = 2; taken(name); n++) name = `${stem}~${n}`;
  return name;
}

const GGUF_Q4_K_M = '4-bit weights, llama.cpp’s medium K-quant mix (Q4_K_M)';

export const llamacppKind: EngineKindSpec<LlamaCppEntry> = {
  label: 'llama.cpp',
  // By GGUF file name, as llama.cpp's status names its defaults (worker/engine/llamacpp/models.ts); a
  // deployment's own file has no card, and the page shows its name as it is.
  cards: {
    'Qwen3-8B-Q4_K_M.gguf': { family: 'Qwen3', size: '8B', quantisation: GGUF_Q4_K_M, ...QWEN3_LICENCE },
    'Qwen3-1.7B-Q4_K_M.gguf': { family: 'Qwen3', size: '1.7B', quantisation: GGUF_Q4_K_M, ...QWEN3_LICENCE },
    'Qwen3VL-2B-Thinking-Q4_K_M.gguf': { family: 'Qwen3-VL-Thinking', size: '2B', quantisation: GGUF_Q4_K_M, ...QWEN3_LICENCE },
  },
  runtimeText(runtime) {
    const threads = runtime.llamacpp?.threads ?? 1;
    const isolation = globalThis.crossOriginIsolated ? 'cross-origin isolated' : 'the page is not cross-origin isolated';
    return `llama.cpp on the ${runtime.device === 'webgpu' ? 'GPU (WebGPU)' : 'CPU'}, ${threads} thread${threads === 1 ? '' : 's'} (${isolation})`;
  },
  entry: {
    schema: llamacppSchema,
    groupKey: (l) => (l.gguf === undefined ? null : `gguf:${typeof l.gguf === 'string' ? l.gguf : l.gguf[0]}`),
    groupName: (key, taken) => ggufGroupName(key.slice('gguf:'.length), taken),
    check(id, l, base) {
      if (base?.embeddings) throw new ModelConfigError(`${where(id, ['engine'])}: the llama.cpp engine has no embedding model; '${id}' runs on web-llm only`);
      if (l.gguf === undefined) {
        if (!base)
          throw new ModelConfigError(
            `${where(id)}: a model id of the deployment's own on llama.cpp needs 'gguf' (the model file's URL, or its split parts' URLs)`,
          );
        for (const field of ['mmproj', 'thinking', 'contextLength', 'bytes'] as const) {
          if (l[field] !== undefined)
            throw new ModelConfigError(
              `${where(id, [field])}: '${field}' describes a model: give it with 'gguf' (without 'gguf', ${id} keeps its GGUF default)`,
            );
        }
        return;
      }
      ggufFiles(id, l.gguf);
      const vision = l.vision ?? base?.vision ?? false;
      if (vision && l.mmproj === undefined)
        throw new ModelConfigError(`${where(id)}: a vision model on llama.cpp needs 'mmproj' (its vision projector's URL), or set 'vision' to false`);
      if (!vision && l.mmproj !== undefined)
        throw new ModelConfigError(`${where(id, ['mmproj'])}: a vision projector is for a vision model: set 'vision' to true, or leave 'mmproj' out`);
      if (l.context !== undefined && l.contextLength !== undefined && l.context > l.contextLength) {
        throw new ModelConfigError(`${where(id, ['context'])}: ${l.context} is more than the model's trained maximum ('contextLength': ${l.contextLength})`);
      }
    },
    group(id, l): { gguf: GgufModelConfig } {
      const gguf: GgufModelConfig = { files: ggufFiles(id, l.gguf!) };
      for (const field of ['mmproj', 'context', 'bytes', 'thinking'] as const) if (l[field] !== undefined) Object.assign(gguf, { [field]: l[field] });
      return { gguf };
    },
    // Without `contextLength`, the context it loads with (at least 4,096).
    trainedContext: (l) => l.contextLength ?? Math.max(l.context ?? 0, 4096),
  },
};
