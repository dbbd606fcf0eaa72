// The origin's IndexedDB: workspace, API keys and settings. Weights live in web-llm's own databases.
import type { DBSchema, IDBPDatabase } from 'idb';
import { connection } from '../idb-connection';
import type { ModelId } from '../variants';

export interface WorkspaceRecord {
  /** Always "current": one local workspace per origin. */
  id: 'current';
  name: string;
  /** `org-…`, the `owned_by` of every model. */
  orgId: string;
  createdAt: number;
}

export interface KeyRecord {
  id: string;
  name: string;
  /** Hex SHA-256 of the full key; the key itself is never stored. */
  hash: string;
  /** `sk-svc-abcd…wxyz` */
  display: string;
  models: ModelId[];
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
  tokensUsed: number;
  /**
   * The last entry of the service worker's usage journal (worker/sw/usage-book.ts) booked to this key: entries
   * up to it are never booked twice, even if the journal could not be cleared after booking.
   */
  journal?: { epoch: string; seq: number };
}

interface InpageDB extends DBSchema {
  workspace: { key: string; value: WorkspaceRecord };
  keys: { key: string; value: KeyRecord; indexes: { hash: string } };
  settings: { key: string; value: unknown };
}

export const DB_NAME = 'inpage';
export type Database = IDBPDatabase<InpageDB>;

/**
 * How long opening may take. An open waits behind any other connection's version change (an upgrade held
 * open in another tab, or a tab that will not close its connection for one): without a bound, every /v1
 * request would hang with it. Past this it fails, and the next call tries again.
 */
export const OPEN_TIMEOUT_MS = 5000;

function bounded(open: Promise<Database>): Promise<Database> {
  return new Promise<Database>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Whatever the stuck open brings later is not ours any more.
      void open.then(
        (db) => db.close(),
        () => undefined,
      );
      reject(
        new Error(
          `IndexedDB did not open the "${DB_NAME}" database within ${OPEN_TIMEOUT_MS / 1000} s: another connection is blocking it (a version change held open in another tab?).`,
        ),
      );
    }, OPEN_TIMEOUT_MS);
    open.then(
      (db) => {
        clearTimeout(timer);
        resolve(db);
      },
      (err: unknown) => {
        clearTimeout(timer);
        const why = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
        reject(new Error(`IndexedDB could not open the "${DB_NAME}" database: ${why}`));
      },
    );
  });
}

const inpageDb = connection<InpageDB>(
  DB_NAME,
  1,
  (db) => {
    db.createObjectStore('workspace', { keyPath: 'id' });
    const keys = db.createObjectStore('keys', { keyPath: 'id' });
    keys.createIndex('hash', 'hash', { unique: true });
    db.createObjectStore('settings');
  },
  bounded,
);

/** One connection per realm; it closes itself when a newer version needs the database. */
export const openDatabase: () => Promise<Database> = inpageDb.get;

/** Closes this realm's connection (the next call opens a fresh one), e.g. before deleting the database. */
export const closeDatabase: () => Promise<void> = inpageDb.close;
