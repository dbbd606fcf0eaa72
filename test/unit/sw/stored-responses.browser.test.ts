// Stored responses on real IndexedDB: per-key isolation, delete, input-item pagination.
import { beforeEach, describe, expect, it } from 'vitest';
import { deleteDB, openDB } from 'idb';
import { RESPONSES_DB_NAME, closeResponsesDatabase, countResponses, deleteAllResponses } from '#shared/responses-db';
import { deleteResponse, findItems, getResponse, listInputItems, saveResponse, type StoredResponse } from '../../../worker/sw/responses/store';
import { initialResponse } from '../../../worker/sw/responses/events';
import { parseResponsesRequest } from '../../../worker/sw/responses/request';
import type { ConversationItem } from '../../../worker/sw/responses/items';
import { ApiError } from '#shared/protocol/errors';

beforeEach(async () => {
  await closeResponsesDatabase();
  await deleteDB(RESPONSES_DB_NAME);
});

const item = (n: number): ConversationItem => ({
  id: `msg_${n}`,
  type: 'message',
  role: 'user',
  content: [{ type: 'input_text', text: `m${n}` }],
  status: 'completed',
});

function record(id: string, keyId: string, items = 3): StoredResponse {
  const response = { ...initialResponse(parseResponsesRequest({ model: 'svc-model-5.2-fast', input: 'x' }), id), status: 'completed' as const };
  const inputItems = Array.from({ length: items }, (_, i) => item(i + 1));
  return { id, keyId, createdAt: Date.now(), response, inputItems, context: inputItems };
}

async function code(p: Promise<unknown>): Promise<string | null> {
  try {
    await p;
    return null;
  } catch (err) {
    return err instanceof ApiError ? `${err.status} ${err.code}` : String(err);
  }
}

describe('stored responses', () => {
  it('finds a response only with the key that made it; deleted ones are gone', async () => {
    await saveResponse(record('resp_a', 'key_1'));
    await saveResponse(record('resp_b', 'key_2'));
    expect((await getResponse('key_1', 'resp_a')).response.id).toBe('resp_a');
    expect(await code(getResponse('key_2', 'resp_a'))).toBe('404 response_not_found');
    expect(await code(getResponse('key_1', 'resp_nope'))).toBe('404 response_not_found');
    expect(await code(deleteResponse('key_2', 'resp_a'))).toBe('404 response_not_found');
    expect(await countResponses()).toBe(2);
    await deleteResponse('key_1', 'resp_a');
    expect(await code(getResponse('key_1', 'resp_a'))).toBe('404 response_not_found');
    expect(await code(deleteResponse('key_1', 'resp_a'))).toBe('404 response_not_found');
    expect(await countResponses()).toBe(1);
    await deleteAllResponses();
    expect(await countResponses()).toBe(0);
  });

  it('pages input items newest first by default, with order, after and limit', async () => {
    await saveResponse(record('resp_p', 'key_1', 5));
    const first = await listInputItems('key_1', 'resp_p', { limit: 2 });
    expect(first).toEqual({ object: 'list', data: [item(5), item(4)], first_id: 'msg_5', last_id: 'msg_4', has_more: true });
    const second = await listInputItems('key_1', 'resp_p', { limit: 2, after: first.last_id! });
    expect(second.data.map((i) => i.id)).toEqual(['msg_3', 'msg_2']);
    expect(second.has_more).toBe(true);
    const last = await listInputItems('key_1', 'resp_p', { limit: 2, after: second.last_id! });
    expect(last).toMatchObject({ data: [item(1)], has_more: false, first_id: 'msg_1', last_id: 'msg_1' });
    const asc = await listInputItems('key_1', 'resp_p', { order: 'asc' });
    expect(asc.data.map((i) => i.id)).toEqual(['msg_1', 'msg_2', 'msg_3', 'msg_4', 'msg_5']);
    expect(asc.has_more).toBe(false);
    expect(await code(listInputItems('key_1', 'resp_p', { after: 'msg_x' }))).toBe('400 invalid_value');
    expect(await code(listInputItems('key_2', 'resp_p'))).toBe('404 response_not_found');
  });

  it("finds the input and output items of a key's responses by id, and nothing of another key's or a deleted one", async () => {
    const answered = record('resp_i', 'key_1', 2);
    const reasoning: ConversationItem = { id: 'rs_i', type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'hmm' }], status: 'completed' };
    const call: ConversationItem = { id: 'fc_i', type: 'function_call', call_id: 'call_i', name: 'f', arguments: '{}', status: 'completed' };
    answered.response = { ...answered.response, output: [reasoning, call] };
    await saveResponse(answered);
    await saveResponse(record('resp_other', 'key_2', 1));
    const found = await findItems('key_1', ['msg_1', 'rs_i', 'fc_i', 'msg_2', 'rs_nope']);
    expect(Object.fromEntries(found)).toEqual({ msg_1: item(1), rs_i: reasoning, fc_i: call, msg_2: item(2) });
    // key_2's response holds an item msg_1 too: each key sees its own only.
    expect(Object.fromEntries(await findItems('key_2', ['msg_1', 'rs_i']))).toEqual({ msg_1: item(1) });
    await deleteResponse('key_1', 'resp_i');
    expect((await findItems('key_1', ['msg_1', 'rs_i'])).size).toBe(0);
  });

  it('indexes the items of responses kept before the index existed (version 1 → 2)', async () => {
    await closeResponsesDatabase();
    await deleteDB(RESPONSES_DB_NAME);
    const old = await openDB(RESPONSES_DB_NAME, 1, {
      upgrade(db) {
        db.createObjectStore('responses', { keyPath: 'id' }).createIndex('keyId', 'keyId');
      },
    });
    await old.put('responses', record('resp_v1', 'key_1', 2));
    old.close();
    expect(Object.fromEntries(await findItems('key_1', ['msg_2', 'msg_9']))).toEqual({ msg_2: item(2) });
    expect((await getResponse('key_1', 'resp_v1')).inputItems).toHaveLength(2);
  });

  it('survives closing and reopening the database', async () => {
    await saveResponse(record('resp_r', 'key_1'));
    await closeResponsesDatabase();
    expect((await getResponse('key_1', 'resp_r')).inputItems).toHaveLength(3);
  });
});
