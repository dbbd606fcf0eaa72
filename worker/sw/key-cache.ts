// The service worker's short memory of verified keys: it spares each request a SHA-256 digest and an
// IndexedDB read (an IPC round trip to the browser's storage backend) on the hot path.
//
// Revocation still takes effect for the next request in every tab (docs/contract.md "Authentication"):
//  - every change to the keys store goes through src/shared/keys/key-store.ts, which commits, then tells the
//    service worker (KEYS_CHANGED, acknowledged) before `revokeKey` resolves, and posts on the
//    `inpage-keys` BroadcastChannel; either message empties this memory;
//  - a verification that was reading IndexedDB while the memory was emptied does not store its verdict
//    (the generation check), so a record read before a revocation is never remembered after it;
//  - only good verdicts are remembered, so a new key works at once; and each is kept at most TTL_MS, so
//    even a change made behind the app's back (DevTools) is seen within seconds.
// The memory lives only in this worker's heap: nothing is written anywhere. Its time limit runs on the
// monotonic clock (performance.now()), so a wall clock set back (or forward) neither stretches nor cuts it.
//
// A worker that just started also reads every key record once (`primeKeys`, at script start): its first request
// then needs only the digest, not a database read after it. That read obeys the same rules: taken as of the
// start, dropped by a change message or after TTL_MS, and trusted only for good keys.
import { openDatabase, type KeyRecord } from '#shared/keys/db';
import { hashKey, isWellFormedKey } from '#shared/keys/key-format';
import { KEYS_CHANNEL, KEYS_CHANGED, verdictOf, verifyKey, verifyKeyHash, type Verdict } from '#shared/keys/key-store';
import { isMessage } from '#shared/wire/page-messages';

const TTL_MS = 5_000;
const MAX_ENTRIES = 256;

interface Entry {
  record: KeyRecord;
  at: number;
}

let entries = new Map<string, Entry>();
let generation = 0;

/** Every key record, by hash, as read when the worker started (see primeKeys). */
let primed: { generation: number; at: number; byHash: Promise<Map<string, KeyRecord> | null> } | null = null;

/** Forgets every remembered key. */
export function forgetKeys(): void {
  entries = new Map();
  primed = null;
  generation++;
}

/** Reads every key record now (a worker starting: its first request is on its way). */
export function primeKeys(): void {
  const byHash = openDatabase()
    .then((db) => db.getAll('keys'))
    .then((records) => new Map(records.map((r) => [r.hash, r])))
    .catch(() => null);
  primed = { generation, at: performance.now(), byHash };
}

/**
 * The verdict through the start-up read: a good key found in it is trusted; any other answer is the database's,
 * asked with the digest already made. Null when there is no read to use (then verifyKey does it all).
 */
async function primedVerdict(presented: string, now: number): Promise<Verdict | null> {
  const read = primed;
  if (!read || read.generation !== generation || now - read.at >= TTL_MS) {
    primed = null;
    return null;
  }
  if (!isWellFormedKey(presented)) return null;
  const [byHash, hash] = await Promise.all([read.byHash, hashKey(presented)]);
  // A change message while the digest ran makes the read stale.
  const verdict = read.generation === generation ? verdictOf(byHash?.get(hash)) : null;
  return verdict?.ok ? verdict : verifyKeyHash(hash);
}

/** verifyKey, answered from memory when this key was verified good less than TTL_MS ago. */
export async function verifyKeyCached(presented: string): Promise<Verdict> {
  const now = performance.now();
  const hit = entries.get(presented);
  if (hit && now - hit.at < TTL_MS) return { ok: true, record: hit.record };
  const before = generation;
  const verdict = (await primedVerdict(presented, now)) ?? (await verifyKey(presented));
  if (verdict.ok && generation === before) {
    if (entries.size >= MAX_ENTRIES) entries = new Map();
    entries.set(presented, { record: verdict.record, at: now });
  } else {
    entries.delete(presented);
  }
  return verdict;
}

/** In the service worker: listen for the key store's change messages (a no-op in other realms). */
export function listenForKeyChanges(scope: typeof globalThis): void {
  if (typeof ServiceWorkerGlobalScope === 'undefined' || !(scope instanceof ServiceWorkerGlobalScope)) return;
  scope.addEventListener('message', (event) => {
    if (!isMessage(event.data, KEYS_CHANGED)) return;
    forgetKeys();
    event.ports[0]?.postMessage(event.data);
  });
  if (typeof BroadcastChannel !== 'undefined') new BroadcastChannel(KEYS_CHANNEL).addEventListener('message', forgetKeys);
}
