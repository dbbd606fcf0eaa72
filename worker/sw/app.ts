// The /v1 routes (docs/contract.md "Endpoints") as a Hono app; the service worker feeds it fetch events.
import type { Context } from 'hono';
import { HonoBase as Hono } from 'hono/hono-base';
import { TrieRouter } from 'hono/router/trie-router';
import { ApiError } from '#shared/protocol/errors';
import { getWorkspace } from '#shared/keys/workspace';
import type { ModelCatalog } from '#shared/model-config';
import { DEFAULT_CONFIG, type InpageConfig } from '#shared/config';
import type { ModelId } from '#shared/variants';
import type { ModelRuntime, ModelStatus } from '#shared/wire/engine-port';
import type { EngineObject, ModelList, ModelObject } from '#shared/protocol/types';
import { requireKey, type AuthEnv } from './auth';
import { apiRoute } from '#shared/base-path';
import { bookUse } from './usage-book';
import { errorResponse, jsonResponse } from './respond';
import { readChatRequest, completeChat } from './chat/route';
import { modelAccess } from './access';
import type { EngineLink } from '#shared/wire/engine-link';
import { createResponse, pageOptions } from './responses/route';
import { createCompletion } from './completions/route';
import { createEmbeddings } from './embeddings/route';
import { deleteResponse, getResponse, listInputItems } from './responses/store';
import { NO_STATUS, NOT_REPORTED, unavailableWhy } from '#shared/unavailable-why';

/** web-llm's own default window, shown while no engine has reported the device's figure. */
const FALLBACK_CONTEXT = 4096;

/** Books a use to a key (journaled, then coalesced: see usage-book.ts); a failed booking never fails the answer. */
const touchKey = (id: string, tokens = 0) => bookUse(id, tokens).booked;

const whyField = (why: string | null) => (why ? { why } : {});

/** /v1/models' `engine`: where a model runs, and for llama.cpp its build, wasm variant, threads and store with their reasons. */
export function engineObject(runtime: ModelRuntime): EngineObject {
  return {
    name: runtime.engine,
    device: runtime.device,
    ...(runtime.threads ? { threads: runtime.threads } : {}),
    ...(runtime.threadsWhy ? { threads_why: runtime.threadsWhy } : {}),
    ...(runtime.build ? { build: runtime.build } : {}),
    ...(runtime.buildWhy ? { build_why: runtime.buildWhy } : {}),
    ...(runtime.wasm ? { wasm: runtime.wasm } : {}),
    ...(runtime.wasmWhy ? { wasm_why: runtime.wasmWhy } : {}),
    ...(runtime.storage ? { storage: { store: runtime.storage.store, why: runtime.storage.why } } : {}),
  };
}

function requestId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `req_${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

const methodNotAllowed = (allowed: string) => (c: Context) => {
  const err = new ApiError('method_not_allowed', `Method ${c.req.method} is not allowed on ${new URL(c.req.url).pathname}; use ${allowed}.`);
  const res = errorResponse(err);
  res.headers.set('allow', allowed);
  return res;
};

/**
 * `api`: where the API answers, `<base>v1` (src/shared/base-path.ts); the routes below are written at `/v1`, and a
 * request under the app's base is routed by its path there.
 */
export function createApp(
  link: EngineLink,
  api: string,
  catalog: () => ModelCatalog,
  /** The deployment's settings, read where a request needs them (the MCP servers it allows: responses/mcp.ts). */
  settings: () => Promise<InpageConfig> = async () => ({ ...DEFAULT_CONFIG }),
): Hono<AuthEnv> {
  // TrieRouter: ready as the routes are added. Hono's default (RegExpRouter first) compiles every route into
  // one matcher on the first request, which a restarted worker paid for on the request that started it.
  const app = new Hono<AuthEnv>({ router: new TrieRouter(), getPath: (request) => apiRoute(new URL(request.url).pathname, api) ?? '/' });
  // Every route that names or lists models: the key, the catalog, the key-may-use-this-model check (access.ts).
  const withModels = [requireKey, modelAccess(link, catalog)] as const;
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

  app.use('*', async (c, next) => {
    const id = requestId();
    c.set('requestId', id);
    await next();
    c.res.headers.set('x-request-id', id);
  });

  app.onError((err) => errorResponse(err));
  app.notFound((c) => errorResponse(new ApiError('unknown_url', `Unknown request URL: ${c.req.method} ${new URL(c.req.url).pathname}.`)));

  app.get('/v1/models', ...withModels, async (c) => {
    const key = c.get('key');
    const data = await modelObjects(key.models);
    c.executionCtx.waitUntil(touchKey(key.id));
    const list: ModelList = { object: 'list', data };
    return jsonResponse(list);
  });
  app.all('/v1/models', methodNotAllowed('GET'));

  app.get('/v1/models/:id', ...withModels, async (c) => {
    const key = c.get('key');
    const id = c.req.param('id');
    c.get('caller').useModel(id);
    const [model] = await modelObjects([id]);
    c.executionCtx.waitUntil(touchKey(key.id));
    return jsonResponse(model);
  });
  app.all('/v1/models/:id', methodNotAllowed('GET'));

  app.post('/v1/chat/completions', ...withModels, async (c) => {
    const caller = c.get('caller');
    const request = await readChatRequest(c.req.raw, caller.catalog);
    caller.useModel(request.model);
    return completeChat(link, request, c.req.raw.signal, caller.accounting);
  });
  app.all('/v1/chat/completions', methodNotAllowed('POST'));

  app.post('/v1/completions', ...withModels, (c) => createCompletion(link, c.req.raw, c.get('caller')));
  app.all('/v1/completions', methodNotAllowed('POST'));

  app.post('/v1/embeddings', ...withModels, (c) => createEmbeddings(link, c.req.raw, c.get('caller')));
  app.all('/v1/embeddings', methodNotAllowed('POST'));

  app.post('/v1/responses', ...withModels, (c) => createResponse(link, c.req.raw, c.get('caller'), settings));
  app.all('/v1/responses', methodNotAllowed('POST'));

  app.get('/v1/responses/:id', requireKey, async (c) => {
    const key = c.get('key');
    const record = await getResponse(key.id, c.req.param('id'));
    c.executionCtx.waitUntil(touchKey(key.id));
    return jsonResponse(record.response);
  });
  app.delete('/v1/responses/:id', requireKey, async (c) => {
    const key = c.get('key');
    const id = c.req.param('id');
    await deleteResponse(key.id, id);
    c.executionCtx.waitUntil(touchKey(key.id));
    return jsonResponse({ id, object: 'response', deleted: true });
  });
  app.all('/v1/responses/:id', methodNotAllowed('GET, DELETE'));

  app.get('/v1/responses/:id/input_items', requireKey, async (c) => {
    const key = c.get('key');
    const page = await listInputItems(key.id, c.req.param('id'), pageOptions(new URL(c.req.url).searchParams));
    c.executionCtx.waitUntil(touchKey(key.id));
    return jsonResponse(page);
  });
  app.all('/v1/responses/:id/input_items', methodNotAllowed('GET'));

  return app;
}
