// The engine kinds, by name: the engines that run models on this device, each a folder in worker/engine/ with its
// descriptor there (worker/engine/registry.ts lists them) and its `models` entry here (src/shared/engine-kinds/).
// A new kind is one more name here; the compiler then asks for it in every table keyed by EngineKind.

/** The engine kinds, in the order the device prefers them (`engineChoice: "auto"` takes the first that can run). */
export const ENGINE_KINDS = ['webllm', 'llamacpp'] as const;

/** One engine that runs models on this device: web-llm (WebGPU) or llama.cpp (wasm, CPU or WebGPU). */
export type EngineKind = (typeof ENGINE_KINDS)[number];

/** The kind of a `models` entry that names no `engine`: web-llm's (the five ship as web-llm models). */
export const DEFAULT_ENTRY_KIND: EngineKind = 'webllm';

export function isEngineKind(value: unknown): value is EngineKind {
  return (ENGINE_KINDS as readonly unknown[]).includes(value);
}
