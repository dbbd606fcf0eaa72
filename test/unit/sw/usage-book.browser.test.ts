import { describe, expect, it } from 'vitest';
import { deleteDB } from 'idb';
import { DB_NAME, closeDatabase } from '#shared/keys/db';
import { createKey, listKeys } from '#shared/keys/key-store';
import { registerWorkspace } from '#shared/keys/workspace';
import { bookUse } from '../../../worker/sw/usage-book';

describe('usage book: which answer holds the worker alive until its use is booked', () => {
  it('lets each earlier use go as soon as a later one takes over, and the last settles once all are on the key', async () => {
    await closeDatabase();
    await deleteDB(DB_NAME);
    await registerWorkspace('Acme');
    const { record } = await createKey({ name: 'held' });
    const settled: number[] = [];
    const bookings = [1, 2, 3].map((tokens) => bookUse(record.id, tokens));
    bookings.forEach((b, i) => void b.booked.then(() => settled.push(i)));
    await Promise.all(bookings.map((b) => b.journaled));
    // The two earlier uses no longer hold anything; booking waits for a pause in use (1 s), so nothing is booked yet.
    await new Promise((r) => setTimeout(r, 50));
    expect(settled).toEqual([0, 1]);
    expect((await listKeys())[0]!.tokensUsed).toBe(0);
    await bookings[2]!.booked;
    expect(settled).toEqual([0, 1, 2]);
    // All three uses are booked by the time the last one lets the worker go.
    expect((await listKeys())[0]!.tokensUsed).toBe(6);
  });
});
