// The model provider's consent list (docs/shared-models.md): which consumer sites may run its models. Kept in the
// provider's first-party IndexedDB: the frame reaches it through its StorageAccessHandle (`handle.indexedDB`),
// the provider's own top-level page directly. The browser's storage-access grant is not consent: it can be given
// silently (third-party cookies allowed) and outlives the provider's revocation in an open frame, so every
// request that crosses a consumer's port is checked against this list.

import type { ModelCatalog } from '#shared/model-config';

export type ConsentState = 'granted' | 'refused' | 'revoked';

export interface Consent {
  /** The consumer's origin, as the frame saw it in `event.origin` (e.g. `https://app.example`). */
  origin: string;
  state: ConsentState;
  /**
   * The model ids the site may run, named one by one (the provider's local ids the person ticked; "all" is the ids
   * there were at that moment). `null` is the shape an earlier release stored for "every model": ConsentStore reads
   * it as the provider's local ids at the time of reading and stores that list (migrate), so it never stands for
   * an upstream-only id, nor for an id added later.
   */
  models: string[] | null;
  /** When the person decided (ms since the epoch). */
  at: number;
}

/**
 * The ids a provider runs for other sites: those with a model of their own on this device. Never an upstream-only
 * id, nor one the deployment sends upstream always (mode `upstream`): the frame's engine has no upstreams.
 */
export function localIds(catalog: ModelCatalog): string[] {
  return catalog.variants.filter((v) => v.engine !== 'upstream' && catalog.routes[v.id]?.mode !== 'upstream').map((v) => v.id);
}

const DB = 'inpage-provider';
const STORE = 'consents';

function open(factory: IDBFactory): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = factory.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: 'origin' });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function run<T>(factory: IDBFactory, mode: IDBTransactionMode, body: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await open(factory);
  try {
    return await new Promise<T>((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const request = body(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(request.result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

/** `consent` with its models named: a stored `null` ("every model", an earlier release's) becomes `localIds`. */
export function explicitModels(consent: Consent, localIds: readonly string[]): Consent & { models: string[] } {
  return { ...consent, models: consent.models ?? [...localIds] };
}

export class ConsentStore {
  /** `localIds`: the provider's local ids now, which a stored "every model" (`null`) is migrated to. */
  constructor(
    private readonly factory: IDBFactory,
    private readonly localIds: readonly string[],
  ) {}

  /** A record read: an earlier release's `null` is written back as the explicit list it stands for now. */
  private async migrate(consent: Consent): Promise<Consent & { models: string[] }> {
    const explicit = explicitModels(consent, this.localIds);
    if (consent.models === null) await run(this.factory, 'readwrite', (s) => s.put(explicit));
    return explicit;
  }

  async get(origin: string): Promise<(Consent & { models: string[] }) | null> {
    const stored = ((await run(this.factory, 'readonly', (s) => s.get(origin))) as Consent | undefined) ?? null;
    return stored && this.migrate(stored);
  }

  async list(): Promise<(Consent & { models: string[] })[]> {
    return Promise.all(((await run(this.factory, 'readonly', (s) => s.getAll())) as Consent[]).map((c) => this.migrate(c)));
  }

  async set(origin: string, state: ConsentState, models: readonly string[] = []): Promise<Consent> {
    const consent: Consent = { origin, state, models: [...models], at: Date.now() };
    await run(this.factory, 'readwrite', (s) => s.put(consent));
    return consent;
  }
}

/** Why `consent` does not let its site run `model` (any model when `model` is omitted); null: it does. */
export function refusal(consent: Consent | null, model?: string): string | null {
  if (!consent) return "this site was never allowed to use the provider's models";
  if (consent.state === 'refused') return "the person refused this site the provider's models";
  if (consent.state === 'revoked') return "the person revoked this site's use of the provider's models on the provider's page";
  // Only the ids the record names (an unmigrated `null` names none here: ConsentStore migrates before this is asked).
  if (model !== undefined && !consent.models?.includes(model)) return `this site may not use the model '${model}' of the provider`;
  return null;
}
