// The production engine: web-llm on WebGPU, in this (the engine) worker. vite's `#engine-impl` alias points
// here for `npm run build`; the parts live in ./webllm/.
import {
  MLCEngine,
  deleteChatConfigInCache,
  deleteModelAllInfoInCache,
  deleteModelWasmInCache,
  hasModelInCache,
} from '@mlc-ai/web-llm';
import type { EngineFactory } from './engine';
import { WebLlmEngine } from './webllm/adapter';
import { probeGpu, watchDeviceLoss } from './webllm/gpu';
import { browserImageReader } from './webllm/images';
import { inspectMLCEngine } from './webllm/introspect';

export const createEngine: EngineFactory = (config) =>
  new WebLlmEngine(config, {
    createEngine: (engineConfig) => new MLCEngine(engineConfig),
    cache: { hasModelInCache, deleteModelAllInfoInCache, deleteModelWasmInCache, deleteChatConfigInCache },
    probeGpu: () => probeGpu(),
    inspect: inspectMLCEngine,
    images: browserImageReader,
    watchDeviceLoss,
    origin: self.location.origin,
  });
