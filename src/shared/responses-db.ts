// The stored responses' IndexedDB database (POST /v1/responses with `store` true keeps its answers there): its
// name, its versions and the two operations the workspace needs without reading a response (how many there are,
// delete them all). The service worker's store (worker/sw/responses/store.ts) reads and writes the records; the
// record's shape is the Responses API's, declared there, so this module knows only what the index needs: the ids
// of the items a record holds.
import type { DBSchema, IDBPDatabase } from 'idb';
import { connection } from './idb-connection';

/** What this module needs of a record: its key's id, and the items it holds (input, then output). */
export interface ResponseRecordBase {
  id: string;
  keyId: string;
  createdAt: number;
  inputItems: readonly { id: string }[];
  response: { output: readonly { id: string }[] };
  /** The ids of the items it holds, for the `itemIds` index (derived on every write). */
  itemIds: string[];
}

export interface ResponsesDB<Record extends ResponseRecordBase = ResponseRecordBase> extends DBSchema {
  responses: { key: string; value: Record; indexes: { keyId: string; itemIds: string } };
}

export const RESPONSES_DB_NAME = 'inpage-responses';

/** The ids of the items a stored response holds: its input, then its output (what `item_reference` can name). */
export const itemIdsOf = (record: Omit<ResponseRecordBase, 'itemIds'>): string[] => [...record.inputItems, ...record.response.output].map((item) => item.id);

// Version 1: the responses by id and by key. Version 2: the index over item ids, filled for the records kept.
const responsesDb = connection<ResponsesDB>(RESPONSES_DB_NAME, 2, async (db, oldVersion, _newVersion, tx) => {
  if (oldVersion < 1) db.createObjectStore('responses', { keyPath: 'id' }).createIndex('keyId', 'keyId');
  if (oldVersion < 2) {
    const store = tx.objectStore('responses');
    store.createIndex('itemIds', 'itemIds', { multiEntry: true });
    for (let cursor = await store.openCursor(); cursor; cursor = await cursor.continue()) {
      await cursor.update({ ...cursor.value, itemIds: itemIdsOf(cursor.value) });
    }
  }
});

/** This realm's connection, typed by the caller's record. */
export const responsesDatabase = <Record extends ResponseRecordBase>() => responsesDb.get() as unknown as Promise<IDBPDatabase<ResponsesDB<Record>>>;

/** Closes this realm's connection, e.g. before deleting the database in tests. */
export const closeResponsesDatabase = responsesDb.close;

/** How many responses are stored, for the workspace. */
export async function countResponses(): Promise<number> {
  const db = await responsesDb.get();
  return db.count('responses');
}

/** Deletes every stored response of every key. */
export async function deleteAllResponses(): Promise<void> {
  const db = await responsesDb.get();
  await db.clear('responses');
}
