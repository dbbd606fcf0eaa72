// The pins models:pull writes for what it pulled: web-llm's `ModelRecord.integrity` (SRI hashes of the chat
// config, the model library and the tokenizer file web-llm reads), gathered into the `models` setting it suggests,
// so the deployment's engine refuses any of these files if it changes on the host (src/shared/model-config.ts, integrity).
import { createHash } from 'node:crypto';
import type { ModelIntegrity } from '../../src/shared/model-config';
import type { VariantId } from '../../src/shared/variants';

export const SRI_ALGORITHMS = ['sha256', 'sha384', 'sha512'] as const;
export type SriAlgorithm = (typeof SRI_ALGORITHMS)[number];

/** A Subresource Integrity string for `data`: `sha384-<base64 digest>`. */
export function sri(data: Uint8Array, algorithm: SriAlgorithm = 'sha384'): string {
  return `${algorithm}-${createHash(algorithm).update(data).digest('base64')}`;
}

/**
 * The tokenizer file web-llm 0.2.86 reads, and checks, among a config's `tokenizer_files`: tokenizer.json, else
 * tokenizer.model. The others it never reads, so they have nothing to pin.
 */
export function checkedTokenizerFile(tokenizerFiles: readonly string[]): 'tokenizer.json' | 'tokenizer.model' | undefined {
  if (tokenizerFiles.includes('tokenizer.json')) return 'tokenizer.json';
  if (tokenizerFiles.includes('tokenizer.model')) return 'tokenizer.model';
  return undefined;
}

/** The pins for one model from its files' bytes. */
export function modelPins(
  files: { config: Uint8Array; lib: Uint8Array; tokenizer?: { name: 'tokenizer.json' | 'tokenizer.model'; data: Uint8Array } },
  algorithm: SriAlgorithm,
): ModelIntegrity {
  return {
    config: sri(files.config, algorithm),
    model_lib: sri(files.lib, algorithm),
    ...(files.tokenizer ? { tokenizer: { [files.tokenizer.name]: sri(files.tokenizer.data, algorithm) } } : {}),
  };
}

/**
 * The settings models:pull suggests: the pulled folder as the model source, and each pulled model's pins on the
 * first variant it serves (a pin applies to the model id wherever it is used, so once is enough).
 */
export function suggestedConfig(
  pulled: readonly { modelId: string; variants: readonly VariantId[]; integrity: ModelIntegrity }[],
  libDir: string,
): Record<string, unknown> {
  const models: Record<string, { integrity: Record<string, ModelIntegrity> }> = {};
  for (const { modelId, variants, integrity } of pulled) {
    const owner = variants[0]!;
    models[owner] ??= { integrity: {} };
    models[owner].integrity[modelId] = integrity;
  }
  return { modelBaseUrl: '/models', modelLibBaseUrl: `/models/${libDir}`, models };
}
