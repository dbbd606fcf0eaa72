// svc-embed on web-llm: the embedding model on a second MLCEngine, created on first use, so loading it never
// unloads the chat model. It shares the chat engine's lock (one MLCEngine call at a time), cache and states.
import type { MLCEngineInterface } from '@mlc-ai/web-llm';
import { embeddingFinish, type EngineEvent } from '#shared/wire/engine-port';
import type { EmbeddingRequest } from '#shared/protocol/embeddings';
import { ApiError, clientAborted } from '#shared/protocol/errors';
import type { Variant } from '#shared/variants';
import type { Generation } from '../engine';
import type { Mutex } from '../common/mutex';
import { generationError } from './errors';
import { loadFailed, startLoad, type Loading } from './loading';

export interface EmbedderParts {
  loading: Loading;
  /** The engine's lock, held for every MLCEngine call. */
  mutex: Mutex;
  /** A new MLCEngine for the embedding model; called once, when first needed. */
  createEngine(): MLCEngineInterface;
  /** The web-llm model that serves `variant` on this device. */
  modelId(variant: Variant): string;
}

export class WebLlmEmbedder {
  private engine: MLCEngineInterface | null = null;
  private loaded: { group: string; modelId: string } | null = null;

  constructor(private readonly parts: EmbedderParts) {}

  /** Whether the embedding model loaded is of weight group `group`. */
  holds(group: string): boolean {
    return this.loaded?.group === group;
  }

  /** Unloads the embedding model, if loaded. Call with the mutex held. */
  async unload(): Promise<void> {
    const loaded = this.loaded;
    if (!loaded || !this.engine) return;
    this.loaded = null;
    await this.engine.unload();
    this.parts.loading.states.settle(loaded.group, true);
  }

  /** Loads the variant's web-llm model unless it is loaded. Call with the mutex held. */
  async ensureLoaded(variant: Variant): Promise<MLCEngineInterface> {
    const modelId = this.parts.modelId(variant);
    this.engine ??= this.parts.createEngine();
    const engine = this.engine;
    if (this.loaded?.modelId === modelId) return engine;
    const { loading } = this.parts;
    const group = variant.weightGroup;
    const tracker = await startLoad(loading, engine, group, modelId);
    try {
      await engine.reload(modelId);
    } catch (err) {
      throw await loadFailed(loading, err, variant, modelId);
    }
    loading.states.setSize(group, tracker.weightBytes);
    loading.states.set(group, 'ready');
    this.loaded = { group, modelId };
    return engine;
  }

  /** The request's vectors, loading the embedding model first if need be. */
  async embed(request: EmbeddingRequest, signal: AbortSignal): Promise<Generation> {
    const { variant } = request;
    const spec = variant.embeddings;
    if (!spec) throw new ApiError('invalid_value', `The model '${request.model}' does not create embeddings.`, { param: 'model' });
    const answer = await this.parts.mutex.run(async () => {
      if (signal.aborted) throw clientAborted();
      const engine = await this.ensureLoaded(variant);
      if (signal.aborted) throw clientAborted();
      try {
        // web-llm takes text and token ids alike; one call embeds every input (in batches of the build's size).
        return await engine.embeddings.create({ input: request.input as string[] | number[][], model: this.loaded!.modelId });
      } catch (err) {
        throw embeddingError(err, request.variant.trainedContext);
      }
    });
    const vectors = [...answer.data].sort((a, b) => a.index - b.index);
    if (vectors.length !== request.input.length || vectors.some((v) => v.embedding.length !== spec.dimensions)) {
      throw new ApiError(
        'internal_error',
        `web-llm returned ${vectors.length} vectors for ${request.input.length} inputs, not all of ${spec.dimensions} dimensions.`,
      );
    }
    const promptTokens = answer.usage.prompt_tokens;
    async function* events(): AsyncGenerator<EngineEvent> {
      for (const [index, vector] of vectors.entries()) yield { type: 'embedding', index, embedding: vector.embedding };
      yield embeddingFinish(promptTokens);
    }
    return { fingerprint: `fp_${answer.model}`, events: events() };
  }
}

/** A failure of web-llm's `embeddings.create`: an input over the window is the caller's (400), the rest as generation's. */
function embeddingError(err: unknown, context: number): ApiError {
  if (err instanceof ApiError) return err;
  const name = err instanceof Error ? err.name : '';
  if (name === 'EmbeddingExceedContextWindowSizeError') {
    const message = err instanceof Error ? err.message : String(err);
    return new ApiError('context_length_exceeded', `An input is longer than the ${context} tokens the embedding model takes: ${message}`, { param: 'input' });
  }
  return generationError(err);
}
