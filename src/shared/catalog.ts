// The catalog in force in this context (page, service worker or engine worker): the five as they ship until the
// deployment's `models` setting is read. The page sets it at start-up from its config. The service worker and the
// engine worker never read it: the service worker gets the catalog with the engine's port offer (so
// `installInpage({config})` reaches it too), the engine worker builds its own (catalogOf) and passes it on.
import { DEFAULT_CATALOG, ModelConfigError, buildCatalog, type ModelCatalog } from './model-config';
import type { Variant } from './variants';
import { buildUpstreamPlan, type UpstreamPlan } from './upstreams';

let active: ModelCatalog = DEFAULT_CATALOG;

export function activeCatalog(): ModelCatalog {
  return active;
}

/** The ids the service offers, in order. */
export function modelIds(): string[] {
  return active.variants.map((v) => v.id);
}

/** The variant of `id`, if the service offers it. */
export function variantOf(id: string): Variant | undefined {
  return active.variants.find((v) => v.id === id);
}

/**
 * Start-up: checks the deployment's `models` setting and makes its catalog the one in force. Throws an Error
 * whose message says where the setting came from and names the bad entry (the page shows it).
 */
export function adoptModels(models: unknown, source: string): ModelCatalog {
  active = catalogOf(models, source);
  return active;
}

/**
 * The catalog of a `models` setting, checked, without making it the one in force: the engine worker builds its
 * own once and passes it to whoever needs it. Throws as adoptModels does.
 */
export function catalogOf(models: unknown, source: string): ModelCatalog {
  try {
    return buildCatalog(models);
  } catch (err) {
    if (err instanceof ModelConfigError) throw new ModelConfigError(`${source}: ${err.message}`);
    throw err;
  }
}

/**
 * Start-up: checks the deployment's `upstreams` setting against the catalog's routes (hybrid, docs/hybrid.md).
 * Throws a ModelConfigError saying where the setting came from and naming the bad field (a literal key first).
 */
export function checkUpstreams(upstreams: unknown, catalog: ModelCatalog, source: string, origin: string): UpstreamPlan {
  try {
    return buildUpstreamPlan(upstreams, catalog, origin);
  } catch (err) {
    if (err instanceof ModelConfigError) throw new ModelConfigError(`${source}: ${err.message}`);
    throw err;
  }
}
