// Books each key's use (last used time, tokens) in IndexedDB, coalesced: the requests that finish within
// FLUSH_MS of one another share one write per key, instead of a read-write transaction each on the hot path.
// The caller keeps the worker alive with the returned promise (waitUntil), so a booking is never dropped.
import { recordKeyUse } from '../../src/keys/key-store';

const FLUSH_MS = 100;

interface Due {
  tokens: number;
  at: number;
}

let due = new Map<string, Due>();
let flushing: Promise<void> | null = null;

async function flush(): Promise<void> {
  const batch = due;
  due = new Map();
  flushing = null;
  // A failed booking never fails an answer (and is not retried: the use is what it is).
  await Promise.all([...batch].map(([id, d]) => recordKeyUse(id, d.tokens, d.at).catch(() => undefined)));
}

/** Adds a use of key `id` costing `tokens`; resolves once it is written (or failed to be). */
export function bookUse(id: string, tokens = 0): Promise<void> {
  const entry = due.get(id) ?? { tokens: 0, at: 0 };
  entry.tokens += tokens;
  entry.at = Date.now();
  due.set(id, entry);
  flushing ??= new Promise<void>((resolve) => setTimeout(resolve, FLUSH_MS)).then(flush);
  return flushing;
}
