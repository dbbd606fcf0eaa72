// /v1/responses: converted onto the chat path (one engine call through runAnswer), answered as a `response`
// object or typed events, and stored per key unless `store` is false.
import { ApiError } from '#shared/protocol/errors';
import { recordNow } from '#shared/record-time';
import { parseResponsesRequest, referencedIds, toChatRequest, renameParam } from './request';
import type { ConversationItem } from './items';
import { ResponseBuilder, initialResponse, sseEvent } from './events';
import { findItems, getResponse, saveResponse, type PageOptions } from './store';
import type { EngineLink } from '#shared/wire/engine-link';
import type { Caller } from '../access';
import { readJsonBody } from '../body';
import { runAnswer, type AnswerFormat } from '../answer';

export async function createResponse(link: EngineLink, raw: Request, caller: Caller): Promise<Response> {
  const { key } = caller;
  const request = parseResponsesRequest(await readJsonBody(raw));
  let previous: ConversationItem[] = [];
  if (request.previous_response_id !== undefined) {
    try {
      previous = (await getResponse(key.id, request.previous_response_id)).context;
    } catch (err) {
      if (err instanceof ApiError) throw new ApiError(err.code, err.message, { param: 'previous_response_id' });
      throw err;
    }
  }
  const referenced = await findItems(key.id, referencedIds(request));
  const { chat, inputItems, origins } = toChatRequest(request, previous, referenced, caller.catalog);
  caller.useModel(chat.model);
  const builder = new ResponseBuilder(initialResponse(request), { logprobs: chat.logprobs === true });
  const store = request.store !== false;
  const keep = async () => {
    if (!store) return;
    const response = builder.response;
    await saveResponse({
      id: response.id,
      keyId: key.id,
      createdAt: recordNow(),
      response: structuredClone(response),
      inputItems,
      context: [...previous, ...inputItems, ...response.output],
    });
  };
  const stream = request.stream === true;
  const format: AnswerFormat = {
    stream,
    open: () => (stream ? builder.start().map(sseEvent) : []),
    event: (event) => {
      const events = builder.next(event);
      return stream ? events.map(sseEvent) : [];
    },
    // Stored before the last event goes out, so a client that reads it can retrieve the response at once.
    close: async () => {
      await keep();
      return stream ? builder.end().map(sseEvent) : [JSON.stringify(builder.response)];
    },
    fail: (error) => builder.fail(error).map(sseEvent),
  };
  try {
    return await runAnswer(link, chat, raw.signal, caller.accounting, () => format);
  } catch (err) {
    // Refusals by the engine name chat fields; name the Responses ones.
    throw renameParam(err, origins);
  }
}

/** `order`, `after`, `limit` of GET /v1/responses/{id}/input_items. */
export function pageOptions(query: URLSearchParams): PageOptions {
  const options: PageOptions = {};
  const order = query.get('order');
  if (order !== null) {
    if (order !== 'asc' && order !== 'desc')
      throw new ApiError('invalid_value', `Invalid 'order': expected 'asc' or 'desc', but got '${order}'.`, { param: 'order' });
    options.order = order;
  }
  const after = query.get('after');
  if (after !== null && after !== '') options.after = after;
  const limit = query.get('limit');
  if (limit !== null) {
    const n = Number(limit);
    if (!Number.isInteger(n) || n < 1 || n > 100) {
      throw new ApiError('invalid_value', `Invalid 'limit': expected an integer from 1 to 100, but got '${limit}'.`, { param: 'limit' });
    }
    options.limit = n;
  }
  return options;
}
