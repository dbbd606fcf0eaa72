// What every /v1 route that names a model passes through, after the key (auth.ts): the deployment's catalog
// (it comes with the engine's port, so a restarted worker waits for it), then the one check that the key may
// use the model a request names, and the one way its tokens are booked to the key.
import { createMiddleware } from 'hono/factory';
import { modelNotFound } from '#shared/protocol/errors';
import { variantIn, type ModelCatalog } from '#shared/model-config';
import type { Variant } from '#shared/variants';
import type { KeyRecord } from '#shared/keys/db';
import type { AuthEnv } from './auth';
import type { Accounting } from './answer';
import type { EngineLink } from '#shared/wire/engine-link';
import { bookUse } from './usage-book';
import { handoverOf } from './handover';

/** Who asks, as a model-taking route sees it. */
export interface Caller {
  readonly key: KeyRecord;
  /** The deployment's catalog, as the engine's port offer brought it (service.ts). */
  readonly catalog: ModelCatalog;
  /** Throws 404 `model_not_found` unless `id` is in the deployment's catalog and this key may use it. */
  useModel(id: string): void;
  /**
   * The same for a request whose model its validation resolved in this catalog (`variant`): only the key's check,
   * so a request's model is looked up once in the service worker.
   */
  useVariant(variant: Variant): void;
  /** Books a generation's tokens to the key (journaled before the answer closes; see usage-book.ts). */
  readonly accounting: Accounting;
}

export type AccessEnv = { Variables: AuthEnv['Variables'] & { caller: Caller } };

/** `catalog`: the deployment's catalog now (it arrives with the engine's port offer). */
export function modelAccess(link: EngineLink, catalog: () => ModelCatalog) {
  return createMiddleware<AccessEnv>(async (c, next) => {
    // Model ids are the deployment's: after a restart its catalog arrives with the engine's port offer.
    if (!link.connected) await link.settled();
    const key = c.get('key');
    const models = catalog();
    c.set('caller', {
      key,
      catalog: models,
      useModel: (id) => {
        if (!variantIn(models, id) || !key.models.includes(id)) throw modelNotFound(id);
      },
      useVariant: (variant) => {
        if (!key.models.includes(variant.id)) throw modelNotFound(variant.id);
      },
      accounting: {
        book: (tokens) => bookUse(key.id, tokens),
        keepAlive: (until) => c.executionCtx.waitUntil(until),
        ending: handoverOf(c.executionCtx),
      },
    });
    await next();
  });
}
