// GET /v1/models and /v1/models/:id: the deployment's catalog as this key may see it, with each model's state as the
// engine last reported it (docs/api.md).
import { getWorkspace } from '#shared/keys/workspace';
import type { ModelCatalog } from '#shared/model-config';
import type { ModelId } from '#shared/variants';
import type { ModelRuntime, ModelStatus } from '#shared/wire/engine-port';
import type { EngineObject, ModelList, ModelObject } from '#shared/protocol/types';
import type { EngineLink } from '#shared/wire/engine-link';
import { NO_STATUS, NOT_REPORTED, unavailableWhy } from '#shared/unavailable-why';
import type { Caller } from '../access';
import { jsonResponse } from '../respond';
import { touchKey } from '../usage-book';

/** web-llm's own default window, shown while no engine has reported the device's figure. */
const FALLBACK_CONTEXT = 4096;

const whyField = (why: string | null) => (why ? { why } : {});

/** /v1/models' `engine`: where a model runs, and for llama.cpp its build, wasm variant, threads and store with their reasons. */
export function engineObject(runtime: ModelRuntime): EngineObject {
  const llama = runtime.llamacpp ?? {};
  return {
    name: runtime.engine,
    device: runtime.device,
    // llama.cpp's details (runtime.llamacpp), flat beside the name as the API has always shown them (docs/api.md).
    ...(llama.threads ? { threads: llama.threads } : {}),
    ...(llama.threadsWhy ? { threads_why: llama.threadsWhy } : {}),
    ...(llama.build ? { build: llama.build } : {}),
    ...(llama.buildWhy ? { build_why: llama.buildWhy } : {}),
    ...(llama.wasm ? { wasm: llama.wasm } : {}),
    ...(llama.wasmWhy ? { wasm_why: llama.wasmWhy } : {}),
    ...(llama.storage ? { storage: { store: llama.storage.store, why: llama.storage.why } } : {}),
  };
}

/** The two model routes of one app; they share the last status an engine reported. */
export interface ModelRoutes {
  /** GET /v1/models: every model the key may use. */
  list(caller: Caller): Promise<Response>;
  /** GET /v1/models/:id: one of them (404 `model_not_found` otherwise). */
  retrieve(caller: Caller, id: string): Promise<Response>;
}

export function modelRoutes(link: EngineLink, catalog: () => ModelCatalog): ModelRoutes {
  // The last status an engine reported, so /v1/models stays truthful about context while none is connected.
  let lastStatus: ModelStatus[] | null = null;

  async function modelObjects(reachable: readonly ModelId[]): Promise<ModelObject[]> {
    const workspace = await getWorkspace();
    let statuses: ModelStatus[] | null = null;
    // Why a model has no status: no engine answered (the link says why), or the engine did not list it.
    let missing = NOT_REPORTED;
    try {
      statuses = (await link.status()).models;
      lastStatus = statuses;
    } catch (err) {
      statuses = null;
      missing = err instanceof Error && err.message ? err.message : NO_STATUS;
    }
    // The deployment's catalog (the engine's port offer brings it): the five less hidden ones, plus its own.
    return catalog()
      .variants.filter((v) => reachable.includes(v.id))
      .map((v) => {
        const id = v.id;
        const status = statuses?.find((s) => s.id === id);
        // Consumer mode: per model when this site's engine runs beside the provider's (split), else the port's.
        const provider = status?.provider ?? link.provider;
        const known = lastStatus?.find((s) => s.id === id);
        return {
          id,
          object: 'model',
          created: v.created,
          owned_by: workspace?.orgId ?? 'org-unregistered',
          context_length: status?.context_length ?? known?.context_length ?? FALLBACK_CONTEXT,
          reasoning: status?.thinks ?? known?.thinks ?? v.thinks,
          vision: v.vision,
          ...(v.embeddings ? { embeddings: true as const, dimensions: v.embeddings.dimensions } : {}),
          state: status?.state ?? 'unavailable',
          // Every unavailable model says why (src/shared/unavailable-why.ts).
          ...whyField(unavailableWhy(status, missing)),
          // Hybrid (docs/hybrid.md): the mode, the side that would answer now and why.
          ...(status?.serving
            ? {
                mode: status.serving.mode,
                serving: { engine: status.serving.engine, why: status.serving.why, ...(status.serving.upstream ? { upstream: status.serving.upstream } : {}) },
              }
            : {}),
          // Consumer mode (docs/shared-models.md): whether the model provider serves this site, and why (not).
          ...(provider ? { provider } : {}),
          ...(status?.runtime ? { engine: engineObject(status.runtime) } : {}),
        };
      });
  }

  return {
    async list(caller) {
      const { key } = caller;
      const data = await modelObjects(key.models);
      caller.accounting.keepAlive(touchKey(key.id));
      const list: ModelList = { object: 'list', data };
      return jsonResponse(list);
    },
    async retrieve(caller, id) {
      caller.useModel(id);
      const [model] = await modelObjects([id]);
      caller.accounting.keepAlive(touchKey(caller.key.id));
      return jsonResponse(model);
    },
  };
}
