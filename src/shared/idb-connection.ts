// One IndexedDB connection per realm and database: opened on first use, and dropped (the next use opens it
// afresh) when a newer version elsewhere needs the database, when the browser terminates it, or when opening
// fails. The keys, the conversations, the stored responses and the usage journal each hold one.
import { openDB, type DBSchema, type IDBPDatabase, type OpenDBCallbacks } from 'idb';

export interface Connection<S extends DBSchema> {
  /** The open connection, opened now if there is none. */
  get(): Promise<IDBPDatabase<S>>;
  /** Closes it (the next `get` opens a fresh one), e.g. before deleting the database. */
  close(): Promise<void>;
}

export function connection<S extends DBSchema>(
  name: string,
  version: number,
  upgrade: OpenDBCallbacks<S>['upgrade'],
  /** Wraps each open, e.g. to bound how long it may take. */
  wrap: (open: Promise<IDBPDatabase<S>>) => Promise<IDBPDatabase<S>> = (open) => open,
): Connection<S> {
  let opening: Promise<IDBPDatabase<S>> | null = null;
  return {
    get() {
      opening ??= wrap(
        openDB<S>(name, version, {
          upgrade,
          blocking() {
            void opening?.then((db) => db.close());
            opening = null;
          },
          terminated() {
            opening = null;
          },
        }),
      ).catch((err: unknown) => {
        opening = null;
        throw err;
      });
      return opening;
    },
    async close() {
      const pending = opening;
      opening = null;
      if (pending) (await pending.catch(() => null))?.close();
    },
  };
}
