// Stored responses (POST /v1/responses with `store` true, the default): the answer, its input items and the
// conversation they continue, per API key, in their own IndexedDB database. A response is found only with
// the key that made it; a revoked key cannot authenticate, so its responses are unreadable. Each item a record
// holds (its input items and its output items) can be named by an `item_reference`, found through an index
// over their ids, by the same key only.
import { itemIdsOf, responsesDatabase, type ResponseRecordBase } from '#shared/responses-db';
import { ApiError } from '#shared/protocol/errors';
import type { ConversationItem } from './items';
import type { ResponseObject } from './events';

export interface StoredResponse {
  id: string;
  /** The id of the key that made it (KeyRecord.id). */
  keyId: string;
  createdAt: number;
  response: ResponseObject;
  /** This request's input, as listed by /input_items (in input order). */
  inputItems: ConversationItem[];
  /** The whole conversation up to and including this response's output: what `previous_response_id` continues. */
  context: ConversationItem[];
}

/** As kept: with the ids of the items it holds, for the `itemIds` index (derived on every write). */
interface ResponseRecord extends StoredResponse {
  itemIds: string[];
}

/** The items a stored response holds: its input, then its output (what `item_reference` can name). */
const itemsOf = (record: StoredResponse): ConversationItem[] => [...record.inputItems, ...record.response.output];

const withItemIds = (record: StoredResponse): ResponseRecord => ({ ...record, itemIds: itemIdsOf(record) });

// The record satisfies what the shared database module needs of one (checked here, at compile time).
const database = () => responsesDatabase<ResponseRecord & ResponseRecordBase>();

export const notFound = (id: string) => new ApiError('response_not_found', `No response found with id '${id}'.`, { param: 'response_id' });

export async function saveResponse(record: StoredResponse): Promise<void> {
  const db = await database();
  await db.put('responses', withItemIds(record));
}

/** The stored response `id` if `keyId` made it; otherwise 404 `response_not_found`. */
export async function getResponse(keyId: string, id: string): Promise<StoredResponse> {
  const db = await database();
  const record = await db.get('responses', id);
  if (!record || record.keyId !== keyId) throw notFound(id);
  return record;
}

/**
 * The stored items `ids` name that `keyId` can read, by id; an id it cannot read (unknown, another key's, from a
 * deleted response) is absent. An id held by several of the key's responses (an item referenced again is kept
 * again) is the same item; the newest holder's copy is taken.
 */
export async function findItems(keyId: string, ids: readonly string[]): Promise<Map<string, ConversationItem>> {
  const found = new Map<string, ConversationItem>();
  if (ids.length === 0) return found;
  const db = await database();
  const index = db.transaction('responses').store.index('itemIds');
  for (const id of new Set(ids)) {
    const holders = (await index.getAll(id)).filter((record) => record.keyId === keyId);
    const newest = holders.sort((a, b) => b.createdAt - a.createdAt)[0];
    const item = newest && itemsOf(newest).find((candidate) => candidate.id === id);
    if (item) found.set(id, item);
  }
  return found;
}

export async function deleteResponse(keyId: string, id: string): Promise<void> {
  const db = await database();
  const tx = db.transaction('responses', 'readwrite');
  const record = await tx.store.get(id);
  if (!record || record.keyId !== keyId) {
    tx.abort();
    await tx.done.catch(() => undefined);
    throw notFound(id);
  }
  await tx.store.delete(id);
  await tx.done;
}

export interface ItemPage {
  object: 'list';
  data: ConversationItem[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

export interface PageOptions {
  order?: 'asc' | 'desc';
  after?: string;
  limit?: number;
}

/** A page of a list, as OpenAI's cursor lists do it: `order` (default newest first), `after` an id, `limit`. */
export function pageOf(items: readonly ConversationItem[], options: PageOptions = {}): ItemPage {
  const ordered = options.order === 'asc' ? [...items] : [...items].reverse();
  let start = 0;
  if (options.after !== undefined) {
    const at = ordered.findIndex((item) => item.id === options.after);
    if (at < 0) throw new ApiError('invalid_value', `Invalid 'after': no item '${options.after}' in this list.`, { param: 'after' });
    start = at + 1;
  }
  const limit = options.limit ?? 20;
  const data = ordered.slice(start, start + limit);
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? null,
    last_id: data[data.length - 1]?.id ?? null,
    has_more: start + limit < ordered.length,
  };
}

export async function listInputItems(keyId: string, id: string, options: PageOptions = {}): Promise<ItemPage> {
  const record = await getResponse(keyId, id);
  return pageOf(record.inputItems, options);
}
