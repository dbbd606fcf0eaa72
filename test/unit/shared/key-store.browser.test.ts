import { beforeEach, describe, expect, it } from 'vitest';
import { deleteDB } from 'idb';
import { DB_NAME, closeDatabase } from '#shared/keys/db';
import { bookJournal, createKey, deleteKey, listKeys, recordKeyUse, revokeKey, verifyKey } from '#shared/keys/key-store';
import { hashKey } from '#shared/keys/key-format';
import { registerWorkspace } from '#shared/keys/workspace';

beforeEach(async () => {
  await closeDatabase();
  await deleteDB(DB_NAME);
});

describe('booking uses: clocks and the journal', () => {
  it('lastUsedAt is never before createdAt, and a clock corrected after running ahead does not leave it in the future', async () => {
    await registerWorkspace('Acme');
    const { record } = await createKey({ name: 'clocks' });
    // A use an hour before the key was made: the clock that made it ran an hour ahead and was put right since.
    // Both times come back to the corrected clock, in order (issue 51: createdAt stayed in the future before).
    await recordKeyUse(record.id, 1, record.createdAt - 3_600_000);
    expect((await listKeys())[0]!).toMatchObject({ createdAt: record.createdAt - 3_600_000, lastUsedAt: record.createdAt - 3_600_000 });
    await recordKeyUse(record.id, 1, record.createdAt + 365 * 86_400_000); // a clock a year ahead ...
    await recordKeyUse(record.id, 1, record.createdAt + 60_000); // ... then corrected
    const after = (await listKeys())[0]!;
    expect(after.lastUsedAt).toBe(record.createdAt + 60_000);
    expect(after.tokensUsed).toBe(3);
  });

  it('a revocation on a clock put right since the last use brings the earlier times back to it, in order', async () => {
    await registerWorkspace('Acme');
    const { record } = await createKey({ name: 'revoked' });
    await recordKeyUse(record.id, 1, record.createdAt + 86_400_000); // a clock a day ahead
    await revokeKey(record.id); // then put right: revoked now
    const after = (await listKeys())[0]!;
    expect(after.revokedAt).not.toBeNull();
    expect(after.createdAt).toBe(record.createdAt);
    expect(after.lastUsedAt!).toBeGreaterThanOrEqual(after.createdAt);
    expect(after.lastUsedAt!).toBeLessThanOrEqual(after.revokedAt!);
    expect(after.revokedAt! - Date.now()).toBeLessThan(60_000);
  });

  it('books each journal entry once, even when the same entries come again (the journal not yet cleared)', async () => {
    await registerWorkspace('Acme');
    const a = (await createKey({ name: 'a' })).record;
    const b = (await createKey({ name: 'b' })).record;
    const at = a.createdAt + 1000;
    const entries = [
      { seq: 1, keyId: a.id, tokens: 10, at },
      { seq: 2, keyId: b.id, tokens: 5, at },
      { seq: 3, keyId: a.id, tokens: 7, at: at + 5 },
      { seq: 4, keyId: 'key_deleted', tokens: 99, at },
    ];
    await bookJournal('e1', entries);
    await bookJournal('e1', entries);
    await bookJournal('e1', [...entries, { seq: 5, keyId: b.id, tokens: 1, at: at + 9 }]);
    const byName = Object.fromEntries((await listKeys()).map((k) => [k.name, k]));
    expect(byName.a).toMatchObject({ tokensUsed: 17, lastUsedAt: at + 5, journal: { epoch: 'e1', seq: 3 } });
    expect(byName.b).toMatchObject({ tokensUsed: 6, lastUsedAt: at + 9, journal: { epoch: 'e1', seq: 5 } });
    // A new journal (site data cleared) numbers from 1 again: its entries are booked.
    await bookJournal('e2', [{ seq: 1, keyId: a.id, tokens: 2, at: at + 20 }]);
    expect((await listKeys()).find((k) => k.name === 'a')!.tokensUsed).toBe(19);
  });
});

describe('key store on real IndexedDB', () => {
  it('refuses keys before the workspace is registered', async () => {
    await expect(createKey({ name: 'early' })).rejects.toThrow(/Register the workspace/);
  });

  it('stores only the hash and a display form, and verifies the full key', async () => {
    await registerWorkspace('Acme');
    const { key, record } = await createKey({ name: 'ci', models: ['svc-model-5.2-fast'] });
    expect(key).toMatch(/^sk-svc-[A-Za-z0-9_-]{43}$/);
    expect(record.hash).toBe(await hashKey(key));
    expect(record.display).toBe(`sk-svc-${key.slice(7, 11)}…${key.slice(-4)}`);
    const stored = JSON.stringify(await listKeys());
    expect(stored).not.toContain(key.slice(7));
    const verdict = await verifyKey(key);
    expect(verdict).toMatchObject({ ok: true, record: { name: 'ci', models: ['svc-model-5.2-fast'] } });
  });

  it('rejects unknown and revoked keys with the reason', async () => {
    await registerWorkspace('Acme');
    const { key, record } = await createKey({ name: 'temp' });
    expect(await verifyKey(key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A'))).toEqual({ ok: false, reason: 'unknown' });
    expect(await verifyKey('not-a-key')).toEqual({ ok: false, reason: 'unknown' });
    await revokeKey(record.id);
    expect(await verifyKey(key)).toEqual({ ok: false, reason: 'revoked' });
    const [listed] = await listKeys();
    expect(listed!.revokedAt).toBeTypeOf('number');
  });

  it('deletes a revoked key from the list, and refuses to delete a live one', async () => {
    await registerWorkspace('Acme');
    const live = await createKey({ name: 'live' });
    const old = await createKey({ name: 'old' });
    await expect(deleteKey(live.record.id)).rejects.toThrow(/revoke it before deleting it/);
    await revokeKey(old.record.id);
    await deleteKey(old.record.id);
    expect((await listKeys()).map((k) => k.name)).toEqual(['live']);
    expect(await verifyKey(old.key)).toEqual({ ok: false, reason: 'unknown' });
    await expect(deleteKey(old.record.id)).rejects.toThrow(/No key with id/);
  });

  it('books last use and tokens', async () => {
    await registerWorkspace('Acme');
    const { record } = await createKey({ name: 'metered' });
    await recordKeyUse(record.id, 12);
    await recordKeyUse(record.id, 30);
    const [listed] = await listKeys();
    expect(listed!.tokensUsed).toBe(42);
    expect(listed!.lastUsedAt).toBeGreaterThanOrEqual(record.createdAt);
  });

  it('keeps one workspace and its org id across registrations', async () => {
    const first = await registerWorkspace('Acme');
    const second = await registerWorkspace('Other');
    expect(first.orgId).toMatch(/^org-[a-z0-9]{24}$/);
    expect(second).toEqual(first);
  });
});
