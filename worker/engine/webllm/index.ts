// The web-llm engine wired to the real web-llm on WebGPU, in this (the engine) worker: device-engine.ts
// loads it where WebGPU serves, and the library build's `#engine-impl` alias points here; the parts live beside it.
import { MLCEngine, deleteChatConfigInCache, deleteModelAllInfoInCache, deleteModelWasmInCache, hasModelInCache } from '@mlc-ai/web-llm';
import type { EngineFactory } from '../engine';
import { WebLlmEngine } from './adapter';
import { probeGpu, watchDeviceLoss } from '../common/gpu';
import { browserImageReader } from '../common/images';
import { inspectMLCEngine } from './introspect';

export const createEngine: EngineFactory = (config, catalog) =>
  new WebLlmEngine(
    config,
    {
      createEngine: (engineConfig) => new MLCEngine(engineConfig),
      cache: { hasModelInCache, deleteModelAllInfoInCache, deleteModelWasmInCache, deleteChatConfigInCache },
      probeGpu: () => probeGpu(),
      inspect: inspectMLCEngine,
      images: browserImageReader,
      watchDeviceLoss,
      origin: self.location.origin,
    },
    catalog,
  );
