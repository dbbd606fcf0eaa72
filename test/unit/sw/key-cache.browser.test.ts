// The service worker's memory of verified keys (worker/sw/key-cache.ts) on real IndexedDB: it answers from
// memory only what it verified good, forgets on demand, and never stores a verdict read before a forget.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deleteDB } from 'idb';
import { DB_NAME, closeDatabase, openDatabase } from '#shared/keys/db';
import { createKey, revokeKey } from '#shared/keys/key-store';
import { registerWorkspace } from '#shared/keys/workspace';
import { forgetKeys, primeKeys, verifyKeyCached } from '../../../worker/sw/key-cache';

beforeEach(async () => {
  forgetKeys();
  await closeDatabase();
  await deleteDB(DB_NAME);
  await registerWorkspace('Acme');
});

/** Revokes behind the key store's back (no change message), as DevTools could. */
async function revokeQuietly(id: string): Promise<void> {
  const db = await openDatabase();
  const record = (await db.get('keys', id))!;
  await db.put('keys', { ...record, revokedAt: Date.now() });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('key memory of the service worker', () => {
  it('remembers a good key until told the keys changed', async () => {
    const { key, record } = await createKey({ name: 'k' });
    expect(await verifyKeyCached(key)).toMatchObject({ ok: true, record: { id: record.id } });
    await revokeQuietly(record.id);
    // Remembered: no read of IndexedDB for this key within the time limit ...
    expect((await verifyKeyCached(key)).ok).toBe(true);
    // ... until the key store's change message empties the memory (revokeKey waits for it).
    forgetKeys();
    expect(await verifyKeyCached(key)).toEqual({ ok: false, reason: 'revoked' });
  });

  it('never remembers a bad verdict: a key made after a miss works at once', async () => {
    expect(await verifyKeyCached('sk-svc-' + 'A'.repeat(43))).toEqual({ ok: false, reason: 'unknown' });
    const { key } = await createKey({ name: 'new' });
    expect((await verifyKeyCached(key)).ok).toBe(true);
  });

  it('does not store a verdict whose read began before the memory was emptied', async () => {
    const { key, record } = await createKey({ name: 'racing' });
    const reading = verifyKeyCached(key); // reads the key as good ...
    forgetKeys(); // ... while a revocation is announced
    expect((await reading).ok).toBe(true);
    await revokeQuietly(record.id);
    expect(await verifyKeyCached(key)).toEqual({ ok: false, reason: 'revoked' });
  });

  it('expires on the monotonic clock: a wall clock set an hour back does not keep a revoked key alive', async () => {
    const { key, record } = await createKey({ name: 'skewed' });
    let mono = 1_000_000;
    const wall = Date.now();
    vi.spyOn(performance, 'now').mockImplementation(() => mono);
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => wall);
    expect((await verifyKeyCached(key)).ok).toBe(true);
    await revokeQuietly(record.id);
    // The wall clock goes an hour back while 4.9 s pass: still remembered (within the limit) ...
    clock.mockImplementation(() => wall - 3_600_000);
    mono += 4_900;
    expect((await verifyKeyCached(key)).ok).toBe(true);
    // ... and 5 s after it was verified it is read again, however far back the wall clock is.
    mono += 200;
    expect(await verifyKeyCached(key)).toEqual({ ok: false, reason: 'revoked' });
  });

  it('revokeKey resolves with nothing to wait for when no service worker is registered', async () => {
    const { key, record } = await createKey({ name: 'plain' });
    await revokeKey(record.id);
    forgetKeys();
    expect(await verifyKeyCached(key)).toEqual({ ok: false, reason: 'revoked' });
  });

  it('a starting worker reads the keys once: its first request needs no database read, and only good keys count', async () => {
    const good = await createKey({ name: 'good' });
    const revoked = await createKey({ name: 'revoked' });
    await revokeQuietly(revoked.record.id);
    primeKeys();
    const made = await createKey({ name: 'made after the start' });
    const reads = vi.spyOn(IDBIndex.prototype, 'get');
    expect(await verifyKeyCached(good.key)).toMatchObject({ ok: true, record: { id: good.record.id } });
    expect(reads).not.toHaveBeenCalled();
    // Not good in the start-up read: the database decides.
    expect(await verifyKeyCached(revoked.key)).toEqual({ ok: false, reason: 'revoked' });
    expect((await verifyKeyCached(made.key)).ok).toBe(true);
    expect(reads).toHaveBeenCalledTimes(2);
  });

  it('the start-up read is dropped by a change message, and after the time limit', async () => {
    const a = await createKey({ name: 'a' });
    const b = await createKey({ name: 'b' });
    let mono = 1_000_000;
    vi.spyOn(performance, 'now').mockImplementation(() => mono);
    primeKeys();
    await revokeQuietly(a.record.id);
    forgetKeys(); // the revocation's message
    expect(await verifyKeyCached(a.key)).toEqual({ ok: false, reason: 'revoked' });
    primeKeys();
    await revokeQuietly(b.record.id); // behind the app's back: no message
    mono += 5_000;
    expect(await verifyKeyCached(b.key)).toEqual({ ok: false, reason: 'revoked' });
  });
});
