// The model provider's consent list (docs/shared-models.md): which consumer sites may run its models. Kept in the
// provider's first-party IndexedDB: the frame reaches it through its StorageAccessHandle (`handle.indexedDB`),
// the provider's own top-level page directly. The browser's storage-access grant is not consent: it can be given
// silently (third-party cookies allowed) and outlives the provider's revocation in an open frame, so every
// request that crosses a consumer's port is checked against this list.

export type ConsentState = 'granted' | 'refused' | 'revoked';

export interface Consent {
  /** The consumer's origin, as the frame saw it in `event.origin` (e.g. `https://app.example`). */
  origin: string;
  state: ConsentState;
  /** The model ids the site may run; null: every model the provider offers. */
  models: string[] | null;
  /** When the person decided (ms since the epoch). */
  at: number;
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

export class ConsentStore {
  constructor(private readonly factory: IDBFactory) {}

  async get(origin: string): Promise<Consent | null> {
    return ((await run(this.factory, 'readonly', (s) => s.get(origin))) as Consent | undefined) ?? null;
  }

  async list(): Promise<Consent[]> {
    return (await run(this.factory, 'readonly', (s) => s.getAll())) as Consent[];
  }

  async set(origin: string, state: ConsentState, models: string[] | null = null): Promise<Consent> {
    const consent: Consent = { origin, state, models, at: Date.now() };
    await run(this.factory, 'readwrite', (s) => s.put(consent));
    return consent;
  }
}

/** Why `consent` does not let its site run `model` (any model when `model` is omitted); null: it does. */
export function refusal(consent: Consent | null, model?: string): string | null {
  if (!consent) return 'this site was never allowed to use the provider\'s models';
  if (consent.state === 'refused') return 'the person refused this site the provider\'s models';
  if (consent.state === 'revoked') return 'the person revoked this site\'s use of the provider\'s models on the provider\'s page';
  if (model !== undefined && consent.models && !consent.models.includes(model)) return `this site may not use the model '${model}' of the provider`;
  return null;
}
