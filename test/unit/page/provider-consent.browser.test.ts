// The model provider's consent list (src/provider/consent.ts) in real IndexedDB: consent names its ids, and a record
// an earlier release stored as "every model" (null) is migrated to the provider's local ids of the moment it is read,
// and written back, so ids the provider adds later are not in it.
import { beforeEach, describe, expect, it } from 'vitest';
import { deleteDB } from 'idb';
import { ConsentStore, refusal, type Consent } from '../../../src/provider/consent';

const DB = 'inpage-provider';

/** Writes `consent` as an earlier release stored it (its `set` took null for "every model"). */
function storeRaw(consent: Consent): Promise<void> {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(DB, 1);
    open.onupgradeneeded = () => open.result.createObjectStore('consents', { keyPath: 'origin' });
    open.onsuccess = () => {
      const tx = open.result.transaction('consents', 'readwrite');
      tx.objectStore('consents').put(consent);
      tx.oncomplete = () => (open.result.close(), resolve());
      tx.onerror = () => reject(tx.error);
    };
    open.onerror = () => reject(open.error);
  });
}

beforeEach(() => deleteDB(DB));

describe("the provider's consent list", () => {
  it("a stored null ('every model') becomes the local ids of the moment it is read, and stays that list", async () => {
    await storeRaw({ origin: 'https://a.example', state: 'granted', models: null, at: 1 });
    const before = new ConsentStore(indexedDB, ['m1', 'm2']);
    expect((await before.get('https://a.example'))!.models).toEqual(['m1', 'm2']);
    // The provider adds a model later: the site's record does not grow.
    const after = new ConsentStore(indexedDB, ['m1', 'm2', 'm3']);
    const consent = await after.get('https://a.example');
    expect(consent!.models).toEqual(['m1', 'm2']);
    expect(refusal(consent, 'm3')).toBe("this site may not use the model 'm3' of the provider");
    expect(refusal(consent, 'm2')).toBeNull();
    expect((await after.list()).map((c) => [c.origin, c.models])).toEqual([['https://a.example', ['m1', 'm2']]]);
  });

  it('set stores the ids it is given, one by one; a refusal stores none', async () => {
    const store = new ConsentStore(indexedDB, ['m1', 'm2']);
    await store.set('https://a.example', 'granted', ['m2']);
    await store.set('https://b.example', 'refused');
    expect((await store.list()).map((c) => [c.origin, c.state, c.models])).toEqual([
      ['https://a.example', 'granted', ['m2']],
      ['https://b.example', 'refused', []],
    ]);
  });
});
