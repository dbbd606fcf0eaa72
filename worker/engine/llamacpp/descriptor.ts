// llama.cpp (@wllama/wllama, GGUF models in wasm) as the registry lists it (worker/engine/registry.ts): it runs on
// every device, on the CPU, or on the GPU where WebGPU has `shader-f16`; its models entries:
// src/shared/engine-kinds/llamacpp.ts.
import type { GpuProbe } from '../common/gpu';
import type { EngineDescriptor } from '../engine-descriptor';

/**
 * Whether llama.cpp runs on the GPU here: its WebGPU backend needs an adapter with `shader-f16` (web-llm's limits
 * need not be met: that is where llama.cpp can use a GPU web-llm cannot). SwiftShader has none: the CPU.
 */
export function llamaOnWebGpu(probe: Pick<GpuProbe, 'report'>): boolean {
  return probe.report.shaderF16;
}

export const llamacppDescriptor: EngineDescriptor<'llamacpp'> = {
  kind: 'llamacpp',
  forcedWhy: 'The deployment chose llama.cpp (engineChoice: "llamacpp"); models run on the CPU.',
  tiedWhy: "The deployment's models setting ties some models to llama.cpp; they run on the CPU.",
  canRun: (probe) => ({ ok: true, why: `llama.cpp on the CPU: ${probe.report.reason ?? 'no usable WebGPU adapter'}` }),
  create: async (config, catalog, why, probe) => (await import('./index')).createLlamaCppEngine(config, why, llamaOnWebGpu(probe), catalog),
  device: 'cpu',
  imports: /\.gguf$/i,
  notImported: (names) =>
    `Not imported: ${names}. GGUF files are for the llama.cpp engine, and no model runs on llama.cpp on this device (web-llm serves them all); a deployment ties a model to llama.cpp in its models setting (engine: "llamacpp").`,
  // The page shows the GPU as the probe saw it, and where llama.cpp runs the models: on it, or on the CPU (threads).
  adapter(probe, engine) {
    const report = { ...probe.report, features: [...probe.report.features] };
    if (llamaOnWebGpu(probe)) return { ...report, available: true, reason: `llama.cpp runs the models on this GPU (WebGPU). ${report.reason ?? ''}`.trim() };
    return { ...report, cpu: { threads: engine?.runtime()?.llamacpp?.threads ?? 1 } };
  },
};
