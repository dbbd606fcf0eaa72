// API keys: create, list, revoke, verify. Only hashes are stored; the full key is returned once, at creation.
import { openDatabase, type KeyRecord } from './db';
import { displayForm, generateKey, hashKey, isWellFormedKey } from './key-format';
import { modelIds } from '../catalog';
import type { ModelId } from '../variants';
import { requireWorkspace } from './workspace';
import { recordNow, recordTime } from '../record-time';

/** Tabs listen here to refresh their key lists; the service worker empties its memory of verified keys. */
export const KEYS_CHANNEL = 'inpage-keys';

/** Page → service worker after a change to the keys store; the worker answers on the message's port. */
export const KEYS_CHANGED = { type: 'inpage:keys-changed' } as const;

/** How long a change waits for the service worker's acknowledgment before going on without it. */
const ACK_TIMEOUT_MS = 2000;

function tell(worker: ServiceWorker): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    const done = () => {
      clearTimeout(timer);
      channel.port1.close();
      resolve();
    };
    const timer = setTimeout(done, ACK_TIMEOUT_MS);
    channel.port1.onmessage = done;
    worker.postMessage(KEYS_CHANGED, [channel.port2]);
  });
}

/**
 * Tells every tab and the service worker that the keys changed. Resolves once the service worker (which
 * remembers verified keys for a few seconds, worker/sw/key-cache.ts) has forgotten them, so a request
 * sent after a revocation resolved, from any tab, is checked against the new state.
 */
async function announce(): Promise<void> {
  if (typeof BroadcastChannel !== 'undefined') {
    const channel = new BroadcastChannel(KEYS_CHANNEL);
    channel.postMessage({ type: 'keys-changed' });
    channel.close();
  }
  if (typeof window === 'undefined' || !('serviceWorker' in navigator)) return;
  const container = navigator.serviceWorker;
  const registration = await container.getRegistration().catch(() => undefined);
  const workers = new Set([container.controller, registration?.active, registration?.waiting].filter((w): w is ServiceWorker => !!w));
  await Promise.all([...workers].map(tell));
}

export interface CreatedKey {
  /** The full key: shown once, never stored. */
  key: string;
  record: KeyRecord;
}

export async function createKey(options: { name: string; models?: readonly ModelId[] }): Promise<CreatedKey> {
  await requireWorkspace();
  const name = options.name.trim();
  if (!name) throw new Error('A key needs a name.');
  // The models the deployment offers (src/shared/catalog.ts): the five, less hidden ones, plus its own.
  const offered = modelIds();
  const models = [...new Set(options.models ?? offered)];
  if (models.length === 0 || !models.every((id) => offered.includes(id))) throw new Error('A key must reach at least one known model.');
  const key = generateKey();
  const createdAt = await recordTime();
  const record: KeyRecord = {
    id: `key_${crypto.randomUUID()}`,
    name,
    hash: await hashKey(key),
    display: displayForm(key),
    models,
    createdAt,
    lastUsedAt: null,
    revokedAt: null,
    tokensUsed: 0,
  };
  const db = await openDatabase();
  await db.add('keys', record);
  void announce();
  return { key, record };
}

export async function listKeys(): Promise<KeyRecord[]> {
  const db = await openDatabase();
  const keys = await db.getAll('keys');
  return keys.sort((a, b) => b.createdAt - a.createdAt);
}

export async function revokeKey(id: string): Promise<void> {
  // Before the transaction, which would end while the time is asked for.
  const at = await recordTime();
  const db = await openDatabase();
  const tx = db.transaction('keys', 'readwrite');
  const record = await tx.store.get(id);
  if (!record) throw new Error(`No key with id ${id}.`);
  if (record.revokedAt === null) await tx.store.put({ ...record, ...inOrder(record, at), revokedAt: at });
  await tx.done;
  await announce();
}

/** Removes a revoked key from the list for good; a live key must be revoked first. */
export async function deleteKey(id: string): Promise<void> {
  const db = await openDatabase();
  const tx = db.transaction('keys', 'readwrite');
  const record = await tx.store.get(id);
  if (!record) throw new Error(`No key with id ${id}.`);
  if (record.revokedAt === null) throw new Error(`Key ${record.display} is live: revoke it before deleting it.`);
  await tx.store.delete(id);
  await tx.done;
  await announce();
}

export type Verdict = { ok: true; record: KeyRecord } | { ok: false; reason: 'unknown' | 'revoked' };

/** The verdict on a key whose record (by the key's hash) is `record`: none, revoked, or good. */
export function verdictOf(record: KeyRecord | undefined): Verdict {
  if (!record) return { ok: false, reason: 'unknown' };
  if (record.revokedAt !== null) return { ok: false, reason: 'revoked' };
  return { ok: true, record };
}

export async function verifyKey(key: string): Promise<Verdict> {
  if (!isWellFormedKey(key)) return { ok: false, reason: 'unknown' };
  // The digest and the database's opening side by side (a restarted service worker opens it as it starts; the
  // connection is kept, so verifyKeyHash finds it open).
  const [, hash] = await Promise.all([openDatabase(), hashKey(key)]);
  return verifyKeyHash(hash);
}

/** verifyKey for a well-formed key already digested (`hash` is hashKey's). */
export async function verifyKeyHash(hash: string): Promise<Verdict> {
  const db = await openDatabase();
  return verdictOf(await db.getFromIndex('keys', 'hash', hash));
}

/**
 * A key's times before it takes a new one, `at` (a use, its revocation), on the one clock of records
 * (src/shared/record-time.ts): none is left after `at`. So they stay in order (`createdAt` ≤ `lastUsedAt`, and ≤
 * `revokedAt`) however the clock moved, and a time written while the clock ran ahead comes back to the corrected
 * clock at the next write instead of staying in the future. A later use replaces an earlier one even if its clock
 * reads earlier.
 */
function inOrder(record: KeyRecord, at: number): Pick<KeyRecord, 'createdAt' | 'lastUsedAt' | 'revokedAt'> {
  const upTo = (t: number | null) => (t === null ? null : Math.min(t, at));
  return { createdAt: Math.min(record.createdAt, at), lastUsedAt: upTo(record.lastUsedAt), revokedAt: upTo(record.revokedAt) };
}

/** Marks a key used (at `at`, default now) and adds the tokens a completion cost it. */
export async function recordKeyUse(id: string, tokens = 0, at = recordNow()): Promise<void> {
  const db = await openDatabase();
  const tx = db.transaction('keys', 'readwrite');
  const record = await tx.store.get(id);
  if (record) await tx.store.put({ ...record, ...inOrder(record, at), lastUsedAt: at, tokensUsed: record.tokensUsed + tokens });
  await tx.done;
}

/** One use of a key in the service worker's usage journal, numbered in the order it was written. */
export interface JournalEntry {
  seq: number;
  keyId: string;
  tokens: number;
  at: number;
}

/**
 * Books journal entries (of journal `epoch`) to their keys in one transaction: each key adds the tokens of its
 * entries past the last it booked, and takes the time of the latest as `lastUsedAt`. Booking the same entries
 * twice changes nothing.
 */
export async function bookJournal(epoch: string, entries: readonly JournalEntry[]): Promise<void> {
  const byKey = new Map<string, JournalEntry[]>();
  for (const entry of entries) byKey.set(entry.keyId, [...(byKey.get(entry.keyId) ?? []), entry]);
  const db = await openDatabase();
  const tx = db.transaction('keys', 'readwrite');
  await Promise.all(
    [...byKey].map(async ([id, uses]) => {
      const record = await tx.store.get(id);
      if (!record) return; // deleted since: nothing to book to
      const after = record.journal?.epoch === epoch ? record.journal.seq : 0;
      const fresh = uses.filter((u) => u.seq > after).sort((a, b) => a.seq - b.seq);
      if (fresh.length === 0) return;
      const last = fresh[fresh.length - 1]!;
      await tx.store.put({
        ...record,
        ...inOrder(record, last.at),
        lastUsedAt: last.at,
        tokensUsed: record.tokensUsed + fresh.reduce((sum, u) => sum + u.tokens, 0),
        journal: { epoch, seq: last.seq },
      });
    }),
  );
  await tx.done;
}
