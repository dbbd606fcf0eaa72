// Placeholder until the web-llm adapter lands (issue 3): every request gets a clear 503.
import { ApiError } from '../../src/protocol/errors';
import type { EngineFactory } from './engine';

export const createEngine: EngineFactory = () => {
  const unavailable = () => new ApiError('engine_unavailable', 'The web-llm engine is not built into this version yet.');
  return {
    generate: async () => { throw unavailable(); },
    status: () => [],
    onStatus: () => undefined,
    adapter: async () => ({ available: false, reason: 'not built yet', features: [], shaderF16: false }),
    load: async () => { throw unavailable(); },
    unload: async () => undefined,
    deleteFromCache: async () => undefined,
  };
};
