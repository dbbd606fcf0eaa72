// /v1/responses: converted onto the chat path (one engine call through runAnswer), answered as a `response`
// object or typed events, and stored per key unless `store` is false.
import { ApiError } from '#shared/protocol/errors';
import { recordNow } from '#shared/record-time';
import type { InpageConfig } from '#shared/config';
import { parseResponsesRequest, referencedIds, toChatRequest, renameParam, type McpTurn, type ResponsesRequest } from './request';
import { itemId, mcpToolInfo, type ConversationItem, type McpApprovalRequestItem, type McpCallItem, type McpListToolsItem } from './items';
import { ResponseBuilder, initialResponse, type StreamEvent } from './events';
import { McpSession, checkMcpTools, needsApproval, newCall } from './mcp';
import { deleteResponse, findItems, getResponse, listInputItems, saveResponse, type PageOptions } from './store';
import type { KeyRecord } from '#shared/keys/db';
import type { EngineLink } from '#shared/wire/engine-link';
import type { Caller } from '../access';
import { readJsonBody } from '../body';
import { runAnswer, type AnswerFormat } from '../answer';
import { sseEvent } from '../sse';
import { jsonResponse } from '../respond';
import { touchKey } from '../usage-book';

/** A stream event as SSE text, named by its type. */
const sseText = (event: StreamEvent): string => sseEvent(event.data, event.type);

export async function createResponse(link: EngineLink, raw: Request, caller: Caller, settings: () => Promise<InpageConfig>): Promise<Response> {
  const { key } = caller;
  const request = parseResponsesRequest(await readJsonBody(raw));
  // Remote MCP (mcp.ts): the servers are checked against the deployment's list before anything is reached.
  const config = request.tools?.some((t) => t.type === 'mcp') ? await settings() : null;
  if (config) checkMcpTools(request, config.mcpServers);
  let previous: ConversationItem[] = [];
  if (request.previous_response_id !== undefined) {
    try {
      previous = (await getResponse(key.id, request.previous_response_id)).context;
    } catch (err) {
      if (err instanceof ApiError) throw new ApiError(err.code, err.message, { param: 'previous_response_id' });
      throw err;
    }
  }
  const session = config ? new McpSession(config, new URL(raw.url).origin) : null;
  try {
    return await answerResponse(link, raw, caller, request, previous, session, config);
  } catch (err) {
    // Refused before the answer began: its connections go with it.
    void session?.close();
    throw err;
  }
}

/** The answer once the request and the conversation it continues are read: the MCP listing, the approvals, the engine turns. */
async function answerResponse(
  link: EngineLink,
  raw: Request,
  caller: Caller,
  request: ResponsesRequest,
  previous: ConversationItem[],
  session: McpSession | null,
  config: InpageConfig | null,
): Promise<Response> {
  const { key } = caller;
  const referenced = await findItems(key.id, referencedIds(request));
  // The servers' tools (or the conversation's listing of them), before any status goes out: a failure is a 424.
  // A listing may come back in the input too (a client that keeps the conversation itself, as the Agents SDK does).
  if (session) await session.list(request, [...previous, ...inputListings(request)], raw.signal);
  const turn = (output: readonly ConversationItem[], toolChoice?: unknown): McpTurn | undefined =>
    session ? { tools: session.chatTools(), nameOf: (label, name) => session.modelNameOf(label, name), output, toolChoice } : undefined;
  const first = session ? firstToolChoice(request, session) : undefined;
  const converted = toChatRequest(request, previous, referenced, caller.catalog, turn([], first));
  const { inputItems, origins } = converted;
  const answer = inputItems.findIndex((item) => item.type === 'mcp_approval_response');
  if (!session && answer >= 0) {
    throw new ApiError('invalid_value', `Invalid 'input[${answer}]': an MCP approval needs the request's 'tools' to hold that server's 'mcp' tool again.`, {
      param: `input[${answer}]`,
    });
  }
  // Approved calls run before the model's turn (it reads their results); denied ones tell it so.
  const approved = session ? await runApprovals(session, inputItems, [...previous, ...inputItems], raw.signal) : [];
  const chat = approved.length > 0 ? toChatRequest(request, previous, referenced, caller.catalog, turn(approved, first)).chat : converted.chat;
  caller.useVariant(chat.variant);
  const builder = new ResponseBuilder(initialResponse(request), { logprobs: chat.logprobs === true, isMcp: (name) => session?.offered.has(name) === true });
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
  const out = (events: StreamEvent[]) => (stream ? events.map(sseText) : []);
  const format: AnswerFormat = {
    stream,
    open: () =>
      out([
        ...builder.start(),
        ...(session?.newListings() ?? []).flatMap((listing) => builder.listedTools(listing)),
        ...approved.flatMap((call) => [...builder.callStarted(call), ...builder.callEnded(call)]),
      ]),
    event: (event) => {
      const events = builder.next(event);
      return stream ? events.map(sseText) : [];
    },
    // Stored before the last event goes out, so a client that reads it can retrieve the response at once.
    close: async () => {
      void session?.close();
      await keep();
      return stream ? builder.end().map(sseText) : [JSON.stringify(builder.response)];
    },
    fail: (error) => {
      void session?.close();
      return builder.fail(error).map(sseText);
    },
  };
  if (session) {
    // The tool loop: the model's MCP calls run here, then it reads their results (mcpMaxCalls bounds the calls).
    format.next = async (write, signal) => {
      const { calls, functionCalls } = builder.takeMcpCalls();
      if (calls.length === 0) return null;
      let asked = false;
      for (const pending of calls) {
        const offered = session.offered.get(pending.name)!;
        if (needsApproval(offered.server.tool, offered.info)) {
          const item: McpApprovalRequestItem = {
            id: itemId('mcpr'),
            type: 'mcp_approval_request',
            server_label: offered.server.tool.server_label,
            name: offered.info.name,
            arguments: pending.arguments,
          };
          write(out(builder.approvalRequest(item)));
          asked = true;
          continue;
        }
        const item = newCall(offered, pending.arguments);
        write(out(builder.callStarted(item)));
        if (session.calls >= config!.mcpMaxCalls) {
          item.status = 'failed';
          item.error = `Not run: this response made ${session.calls} MCP calls already, the most this deployment allows (mcpMaxCalls).`;
        } else {
          await session.call(offered, item, signal);
        }
        write(out(builder.callEnded(item)));
      }
      // Approvals asked, or functions for the client to run: the response ends here, as OpenAI's does.
      if (asked || functionCalls) {
        builder.complete();
        return null;
      }
      const toolChoice = session.calls >= config!.mcpMaxCalls ? 'none' : 'auto';
      return toChatRequest(request, previous, referenced, caller.catalog, turn(builder.response.output, toolChoice)).chat;
    };
  }
  try {
    return await runAnswer(link, chat, raw.signal, caller.accounting, () => format);
  } catch (err) {
    // Refusals by the engine name chat fields; name the Responses ones.
    throw renameParam(err, origins);
  }
}

/** The `mcp_list_tools` items of the request's input, as listings to reuse. */
function inputListings(request: ResponsesRequest): McpListToolsItem[] {
  if (typeof request.input === 'string') return [];
  return request.input.flatMap((item) =>
    item.type !== 'mcp_list_tools' || (item.error !== undefined && item.error !== null)
      ? []
      : [
          {
            id: item.id,
            type: 'mcp_list_tools' as const,
            server_label: item.server_label,
            tools: item.tools.map(mcpToolInfo),
            error: null,
          },
        ],
  );
}

/** The first turn's chat `tool_choice` where the request names an MCP tool (`{type: "mcp", server_label, name}`). */
function firstToolChoice(request: ResponsesRequest, session: McpSession): unknown {
  const choice = request.tool_choice;
  if (typeof choice !== 'object' || choice.type !== 'mcp') return undefined;
  if (choice.name === undefined || choice.name === null) return 'required';
  const name = session.modelNameOf(choice.server_label, choice.name);
  if (name === undefined) {
    throw new ApiError(
      'invalid_value',
      `Invalid 'tool_choice.name': the MCP server '${choice.server_label}' offers no tool '${choice.name}' to this request.`,
      {
        param: 'tool_choice.name',
      },
    );
  }
  return { type: 'function', function: { name } };
}

/**
 * The input's `mcp_approval_response` items: each names an `mcp_approval_request` of the conversation (else 400);
 * an approved one's call runs now (an `mcp_call` with its `approval_request_id`); a denied one runs nothing.
 */
async function runApprovals(
  session: McpSession,
  input: readonly ConversationItem[],
  conversation: readonly ConversationItem[],
  signal: AbortSignal,
): Promise<McpCallItem[]> {
  const calls: McpCallItem[] = [];
  for (const [i, item] of input.entries()) {
    if (item.type !== 'mcp_approval_response') continue;
    const asked = conversation.find((p): p is McpApprovalRequestItem => p.type === 'mcp_approval_request' && p.id === item.approval_request_id);
    if (!asked) {
      throw new ApiError(
        'invalid_value',
        `Invalid 'input[${i}].approval_request_id': no MCP approval request '${item.approval_request_id}' in the conversation (the input, or the one 'previous_response_id' continues).`,
        {
          param: `input[${i}].approval_request_id`,
        },
      );
    }
    if (!item.approve) continue;
    const offered = session.find(asked.server_label, asked.name);
    if (!offered) {
      throw new ApiError(
        'invalid_value',
        `Invalid 'input[${i}]': the approved call is of '${asked.name}' on the MCP server '${asked.server_label}', which this request's 'tools' do not offer.`,
        {
          param: `input[${i}]`,
        },
      );
    }
    const call = newCall(offered, asked.arguments, asked.id);
    await session.call(offered, call, signal);
    calls.push(call);
  }
  return calls;
}

/** `order`, `after`, `limit` of GET /v1/responses/{id}/input_items. */
function pageOptions(query: URLSearchParams): PageOptions {
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

/** Who asks a stored-response route: the key alone (no model is named), and the fetch event's waitUntil. */
export interface KeyUse {
  readonly key: KeyRecord;
  keepAlive(until: Promise<unknown>): void;
}

/** GET /v1/responses/{id}: a response this key stored. */
export async function retrieveResponse(use: KeyUse, id: string): Promise<Response> {
  const record = await getResponse(use.key.id, id);
  use.keepAlive(touchKey(use.key.id));
  return jsonResponse(record.response);
}

/** DELETE /v1/responses/{id}. */
export async function removeResponse(use: KeyUse, id: string): Promise<Response> {
  await deleteResponse(use.key.id, id);
  use.keepAlive(touchKey(use.key.id));
  return jsonResponse({ id, object: 'response', deleted: true });
}

/** GET /v1/responses/{id}/input_items: a page of the items its request gave. */
export async function inputItems(use: KeyUse, id: string, query: URLSearchParams): Promise<Response> {
  const page = await listInputItems(use.key.id, id, pageOptions(query));
  use.keepAlive(touchKey(use.key.id));
  return jsonResponse(page);
}
