// Loading a model on an MLCEngine, as the chat engine and the embedder both do it: the state and progress the
// page sees while web-llm downloads and loads, and a failed load told in plain words, with a file the cache
// rejected forgotten so the next try fetches it again.
import type { AppConfig, MLCEngineInterface } from '@mlc-ai/web-llm';
import type { ApiError } from '#shared/protocol/errors';
import type { Variant } from '#shared/variants';
import type { ModelStates } from '../common/model-states';
import type { ModelCache } from './cache';
import { loadError } from './errors';
import { ProgressTracker } from './progress';

/** What loading needs of the engine. */
export interface Loading {
  appConfig: AppConfig;
  cache: ModelCache;
  states: ModelStates;
}

/** Marks `group` downloading or loading and follows `mlc`'s progress until the next load; returns the tracker. */
export async function startLoad({ cache, states }: Loading, mlc: MLCEngineInterface, group: string, modelId: string): Promise<ProgressTracker> {
  const cached = await cache.has(modelId);
  states.set(group, cached ? 'loading' : 'downloading');
  const tracker = new ProgressTracker();
  mlc.setInitProgressCallback((report) => {
    const progress = tracker.update(report);
    // Before the first shard it is not yet known whether this load downloads: the state stays as it was.
    const state = progress.phase === 'download' ? 'downloading' : progress.phase === 'prepare' ? states.state(group) : 'loading';
    states.set(group, state, { progress });
  });
  return tracker;
}

/** The error a failed load of `modelId` gives, once the state says what the cache holds now. */
export async function loadFailed({ appConfig, cache, states }: Loading, err: unknown, variant: Variant, modelId: string): Promise<ApiError> {
  const record = appConfig.model_list.find((r) => r.model_id === modelId);
  const error = loadError(err, `${variant.id} (web-llm model ${modelId})`, record && `weights from ${record.model}, library ${record.model_lib}`);
  if (err instanceof Error && err.name === 'IntegrityError') await cache.forgetRejected(modelId, String((err as Error & { url?: unknown }).url));
  states.settle(variant.weightGroup, await cache.has(modelId), error.message);
  return error;
}
