import { beforeEach, describe, expect, it } from 'vitest';
import { deleteDB } from 'idb';
import { DB_NAME, closeDatabase } from '../../src/keys/db';
import { createKey, deleteKey, listKeys, recordKeyUse, revokeKey, verifyKey } from '../../src/keys/key-store';
import { hashKey } from '../../src/keys/key-format';
import { registerWorkspace } from '../../src/keys/workspace';

beforeEach(async () => {
  await closeDatabase();
  await deleteDB(DB_NAME);
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
