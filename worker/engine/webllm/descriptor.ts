// web-llm (MLC models on WebGPU) as the registry lists it (worker/engine/registry.ts): it runs where the worker's
// WebGPU probe finds an adapter with web-llm's limits; its models entries: src/shared/engine-kinds/webllm.ts.
import type { EngineDescriptor } from '../engine-descriptor';

export const webllmDescriptor: EngineDescriptor<'webllm'> = {
  kind: 'webllm',
  forcedWhy: 'The deployment chose web-llm (engineChoice: "webllm").',
  tiedWhy: "The deployment's models setting ties some models to web-llm.",
  canRun: (probe) =>
    probe.report.available ? { ok: true, why: "WebGPU meets web-llm's needs." } : { ok: false, why: probe.report.reason ?? 'no usable WebGPU adapter' },
  create: async (config, catalog) => (await import('./index')).createEngine(config, catalog),
  device: 'webgpu',
  // Its model folders: mlc-chat-config.json, the shards, the tokenizer; whatever another engine does not take.
  imports: 'rest',
};
