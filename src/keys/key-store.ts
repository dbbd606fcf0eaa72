// API keys: create, list, revoke, verify. Only hashes are stored; the full key is returned once, at creation.
import { openDatabase, type KeyRecord } from './db';
import { displayForm, generateKey, hashKey, isWellFormedKey } from './key-format';
import { VARIANT_IDS, isVariantId, type VariantId } from '../variants';
import { requireWorkspace } from './workspace';

/** Tabs listen here to refresh their key lists; the service worker needs no signal (it reads per request). */
export const KEYS_CHANNEL = 'inpage-keys';

function announce(): void {
  if (typeof BroadcastChannel === 'undefined') return;
  const channel = new BroadcastChannel(KEYS_CHANNEL);
  channel.postMessage({ type: 'keys-changed' });
  channel.close();
}

export interface CreatedKey {
  /** The full key: shown once, never stored. */
  key: string;
  record: KeyRecord;
}

export async function createKey(options: { name: string; models?: readonly VariantId[] }): Promise<CreatedKey> {
  await requireWorkspace();
  const name = options.name.trim();
  if (!name) throw new Error('A key needs a name.');
  const models = [...new Set(options.models ?? VARIANT_IDS)];
  if (models.length === 0 || !models.every(isVariantId)) throw new Error('A key must reach at least one known model.');
  const key = generateKey();
  const record: KeyRecord = {
    id: `key_${crypto.randomUUID()}`,
    name,
    hash: await hashKey(key),
    display: displayForm(key),
    models,
    createdAt: Date.now(),
    lastUsedAt: null,
    revokedAt: null,
    tokensUsed: 0,
  };
  const db = await openDatabase();
  await db.add('keys', record);
  announce();
  return { key, record };
}

export async function listKeys(): Promise<KeyRecord[]> {
  const db = await openDatabase();
  const keys = await db.getAll('keys');
  return keys.sort((a, b) => b.createdAt - a.createdAt);
}

export async function revokeKey(id: string): Promise<void> {
  const db = await openDatabase();
  const tx = db.transaction('keys', 'readwrite');
  const record = await tx.store.get(id);
  if (!record) throw new Error(`No key with id ${id}.`);
  if (record.revokedAt === null) await tx.store.put({ ...record, revokedAt: Date.now() });
  await tx.done;
  announce();
}

export type Verdict = { ok: true; record: KeyRecord } | { ok: false; reason: 'unknown' | 'revoked' };

export async function verifyKey(key: string): Promise<Verdict> {
  if (!isWellFormedKey(key)) return { ok: false, reason: 'unknown' };
  const db = await openDatabase();
  const record = await db.getFromIndex('keys', 'hash', await hashKey(key));
  if (!record) return { ok: false, reason: 'unknown' };
  if (record.revokedAt !== null) return { ok: false, reason: 'revoked' };
  return { ok: true, record };
}

/** Marks a key used now and adds the tokens a completion cost it. */
export async function recordKeyUse(id: string, tokens = 0): Promise<void> {
  const db = await openDatabase();
  const tx = db.transaction('keys', 'readwrite');
  const record = await tx.store.get(id);
  if (record) await tx.store.put({ ...record, lastUsedAt: Date.now(), tokensUsed: record.tokensUsed + tokens });
  await tx.done;
}
