// The /v1 routes (docs/contract.md "Endpoints") as a Hono app; the service worker feeds it fetch events.
import type { Context } from 'hono';
import { HonoBase as Hono } from 'hono/hono-base';
import { TrieRouter } from 'hono/router/trie-router';
import { ApiError } from '#shared/protocol/errors';
import type { ModelCatalog } from '#shared/model-config';
import { DEFAULT_CONFIG, type InpageConfig } from '#shared/config';
import type { EngineLink } from '#shared/wire/engine-link';
import { apiRoute } from '#shared/base-path';
import { requireKey, type AuthEnv } from './auth';
import { modelAccess } from './access';
import { errorResponse } from './respond';
import { modelRoutes } from './models/route';
import { createChatCompletion } from './chat/route';
import { createCompletion } from './completions/route';
import { createEmbeddings } from './embeddings/route';
import { createResponse, inputItems, removeResponse, retrieveResponse, type KeyUse } from './responses/route';

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
  const models = modelRoutes(link, catalog);
  // A route that names no model: the key, and the fetch event's waitUntil for its booking.
  const keyUse = (c: Context<AuthEnv>): KeyUse => ({ key: c.get('key'), keepAlive: (until) => c.executionCtx.waitUntil(until) });

  app.use('*', async (c, next) => {
    const id = requestId();
    c.set('requestId', id);
    await next();
    c.res.headers.set('x-request-id', id);
  });

  app.onError((err) => errorResponse(err));
  app.notFound((c) => errorResponse(new ApiError('unknown_url', `Unknown request URL: ${c.req.method} ${new URL(c.req.url).pathname}.`)));

  // One line per route and method, then the methods it refuses.
  app.get('/v1/models', ...withModels, (c) => models.list(c.get('caller')));
  app.all('/v1/models', methodNotAllowed('GET'));
  app.get('/v1/models/:id', ...withModels, (c) => models.retrieve(c.get('caller'), c.req.param('id')));
  app.all('/v1/models/:id', methodNotAllowed('GET'));
  app.post('/v1/chat/completions', ...withModels, (c) => createChatCompletion(link, c.req.raw, c.get('caller')));
  app.all('/v1/chat/completions', methodNotAllowed('POST'));
  app.post('/v1/completions', ...withModels, (c) => createCompletion(link, c.req.raw, c.get('caller')));
  app.all('/v1/completions', methodNotAllowed('POST'));
  app.post('/v1/embeddings', ...withModels, (c) => createEmbeddings(link, c.req.raw, c.get('caller')));
  app.all('/v1/embeddings', methodNotAllowed('POST'));
  app.post('/v1/responses', ...withModels, (c) => createResponse(link, c.req.raw, c.get('caller'), settings));
  app.all('/v1/responses', methodNotAllowed('POST'));
  app.get('/v1/responses/:id', requireKey, (c) => retrieveResponse(keyUse(c), c.req.param('id')));
  app.delete('/v1/responses/:id', requireKey, (c) => removeResponse(keyUse(c), c.req.param('id')));
  app.all('/v1/responses/:id', methodNotAllowed('GET, DELETE'));
  app.get('/v1/responses/:id/input_items', requireKey, (c) => inputItems(keyUse(c), c.req.param('id'), new URL(c.req.url).searchParams));
  app.all('/v1/responses/:id/input_items', methodNotAllowed('GET'));

  return app;
}
