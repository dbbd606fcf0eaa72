// Books each key's use (last used time, tokens) so that no token delivered to a client is lost:
//
// 1. Journal: every use is written to a small database of its own (`inpage-usage`) before the answer closes,
//    so a service worker stopped right after answering loses nothing, and the workspace database being blocked
//    (a version change held open in another tab) does not stop it.
// 2. Book: once uses pause (coalesced: one transaction for all the uses since the last booking), the journal is
//    booked to the keys in the workspace database and cleared. A failed booking is retried with backoff while
//    the worker lives, and at its next start; each key remembers the last journal entry it booked, so an entry
//    is never booked twice.
//
// Booking waits for a pause so that it does not run beside the next request: a client sending one request
// after another (a chat at human pace, a script's loop) would otherwise meet a booking (three IndexedDB
// transactions, over two databases) at the start of nearly every request, and pay for it in time to first byte.
// A steady flow of requests with no pause is still booked every BOOK_AT_MOST_MS.
import type { DBSchema } from 'idb';
import { connection } from '#shared/idb-connection';
import { bookJournal, type JournalEntry } from '#shared/keys/key-store';
import { recordNow } from '#shared/record-time';

export const JOURNAL_DB = 'inpage-usage';
/** A booking waits until no use has been added for this long... */
const QUIET_MS = 1000;
/** ...but not longer than this after the first use it books. */
const BOOK_AT_MOST_MS = 5000;
/** How long an answer waits for its journal entry before closing anyway (the entry is still written, or kept). */
const JOURNAL_WAIT_MS = 2000;
/** Pauses between attempts to book while the workspace database refuses (about 30 s in all). */
const RETRY_MS = [250, 500, 1000, 2000, 4000, 8000, 15_000];

interface JournalDB extends DBSchema {
  journal: { key: number; value: Omit<JournalEntry, 'seq'> & { seq?: number } };
  meta: { key: string; value: string };
}

const journalConnection = connection<JournalDB>(JOURNAL_DB, 1, (db, _old, _new, tx) => {
  db.createObjectStore('journal', { keyPath: 'seq', autoIncrement: true });
  db.createObjectStore('meta');
  // Which journal this is: a new one (site data cleared) starts its numbering afresh.
  void tx.objectStore('meta').put(crypto.randomUUID(), 'epoch');
});
const journalDb = journalConnection.get;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Uses the journal could not take (its database failed): kept here and journaled again before each booking. */
let unjournaled: Omit<JournalEntry, 'seq'>[] = [];
let dirty = false;
let running: Promise<void> | null = null;
/** When the latest use was added (performance.now()). */
let lastUseAt = -Infinity;

/** Resolves once uses have paused for QUIET_MS, or BOOK_AT_MOST_MS after it was called. */
async function pause(): Promise<void> {
  const deadline = performance.now() + BOOK_AT_MOST_MS;
  for (;;) {
    const now = performance.now();
    const wait = Math.min(lastUseAt + QUIET_MS, deadline) - now;
    if (wait <= 0) return;
    await sleep(wait);
  }
}

async function journal(uses: Omit<JournalEntry, 'seq'>[]): Promise<void> {
  const db = await journalDb();
  const tx = db.transaction('journal', 'readwrite');
  await Promise.all([...uses.map((use) => tx.store.add({ ...use })), tx.done]);
}

/** Books the whole journal to the keys, then clears what was booked. */
async function bookAll(): Promise<void> {
  if (unjournaled.length > 0) {
    const retry = unjournaled;
    unjournaled = [];
    await journal(retry).catch((err: unknown) => {
      unjournaled.unshift(...retry);
      throw err;
    });
  }
  const db = await journalDb();
  const [epoch, entries] = await Promise.all([db.get('meta', 'epoch'), db.getAll('journal')]);
  if (entries.length === 0) return;
  await bookJournal(epoch ?? 'none', entries as JournalEntry[]);
  const last = Math.max(...entries.map((e) => e.seq!));
  await db.delete('journal', IDBKeyRange.upperBound(last));
}

/**
 * Books once uses pause, until nothing new is due; retried with backoff while the workspace database refuses.
 * The promise is held open with waitUntil, so the worker lives until it settles.
 */
export function drainUsage(): Promise<void> {
  dirty = true;
  lastUseAt = performance.now();
  running ??= (async () => {
    while (dirty) {
      await pause();
      dirty = false;
      for (let attempt = 0; ; attempt++) {
        try {
          await bookAll();
          break;
        } catch {
          // Kept in the journal: the next booking, or the next start of the worker, tries again.
          if (attempt >= RETRY_MS.length) return;
          await sleep(RETRY_MS[attempt]!);
        }
      }
    }
  })().finally(() => {
    running = null;
  });
  return running;
}

export interface Booking {
  /** Settles once the use is in the journal (or after JOURNAL_WAIT_MS): await it before the answer closes. */
  journaled: Promise<void>;
  /**
   * Settles once the use is booked to the key (or booking gave up for now), or once a later use's booking holds
   * the worker instead: keep the worker alive with it (waitUntil).
   */
  booked: Promise<void>;
}

/** Lets go of the fetch event that holds the worker alive for the pending booking, if any. */
let letGo: (() => void) | null = null;

/**
 * Settles when `booked` does, or when a later use takes over holding the worker alive for the booking. One
 * fetch event waiting is enough to keep the worker running until the booking is done; each waiting event
 * also keeps its request and its answer's state in memory (about 1.3 KB each: 1,000 back-to-back requests
 * held 1.3 MB until their booking, up to BOOK_AT_MOST_MS). A use that is only journaled is not lost if the
 * worker stops anyway: the next start books it (drainUsage).
 */
function heldUntilBooked(booked: Promise<void>): Promise<void> {
  letGo?.();
  return new Promise<void>((resolve) => {
    const done = () => {
      if (letGo === done) letGo = null;
      resolve();
    };
    letGo = done;
    booked.then(done, done);
  });
}

/** Adds a use of key `id` costing `tokens`. Never rejects: a failed booking never fails an answer. */
export function bookUse(id: string, tokens = 0): Booking {
  const use = { keyId: id, tokens, at: recordNow() };
  const written = journal([use]).catch(() => {
    unjournaled.push(use);
  });
  const journaled = Promise.race([written, sleep(JOURNAL_WAIT_MS)]);
  return { journaled, booked: heldUntilBooked(written.then(() => drainUsage())) };
}

/** Books a use of key `id` with no tokens (a route that runs no model); settles once it is on the key. */
export const touchKey = (id: string): Promise<void> => bookUse(id).booked;
