// The tool-call formats of the web-llm engine, by name (src/shared/engine-kinds/webllm.ts names them, so a
// deployment's `toolFormat` is checked where its config is): a Record over every name, so a format added to the
// names without its module does not compile. A model's format is its entry's `toolFormat`, else its family's
// (by web-llm model id), else `none`.
import type { WebLlmToolFormatName } from '#shared/engine-kinds/webllm';
import { llama3 } from './llama3';
import { mistral } from './mistral';
import { phi4Mini } from './phi4-mini';
import { qwen3 } from './qwen3';
import type { ToolFormat } from './types';

export type { ToolFormat, ToolCallStream, ParsedPiece } from './types';

export const TOOL_FORMATS: Record<WebLlmToolFormatName, ToolFormat | null> = {
  qwen3,
  llama3,
  mistral,
  'phi4-mini': phi4Mini,
  none: null,
};

/** The families of web-llm's prebuilt chat models with a tool format, by model id prefix. */
const FAMILIES: readonly [RegExp, WebLlmToolFormatName][] = [
  [/^Qwen3-\d/, 'qwen3'],
  [/^Qwen2\.5-(?:Coder-)?\d/, 'qwen3'],
  [/^Hermes-(?:2-Pro|3)-/, 'qwen3'],
  [/^Llama-3\.[123]-/, 'llama3'],
  [/^Mistral-7B-Instruct-v0\.3-/, 'mistral'],
  [/^Phi-4-mini-/, 'phi4-mini'],
];

/** The format of a web-llm model id's family; `none` for a family without one. */
export function familyToolFormat(modelId: string): WebLlmToolFormatName {
  return FAMILIES.find(([pattern]) => pattern.test(modelId))?.[1] ?? 'none';
}
