// Sending a conversation to /v1/chat/completions as a stream and keeping the answer: one run per answer
// (a new message, regenerate, edit, function results, continue), on the chat state of chat-state.ts.
import type { ChatCompletionChunk, FinishReason } from '#shared/protocol/types';
import type { ModelId } from '#shared/variants';
import { recordNow } from '#shared/record-time';
import { ApiCallError, streamChat, streamResponse, type ResponseEvent } from '../../../kit/api';
import type { AnswerVersion, Conversation, McpItem, Turn, TurnStats } from './conversation-db';
import { mcpTool, requestBody, responsesBody, toMessages } from './conversation-request';
import { mcpErrorText, serversOn, updateMcpServer, type McpServer } from './mcp-servers';
import { cutInForce, nextFit, roomFrom } from './context-budget';
import { getState } from '../../../store';
import { chat, newId, notify, notifySoon, save, saveStreaming } from './chat-state';

function describe(err: unknown, servers: readonly McpServer[] = []): string {
  if (err instanceof ApiCallError) {
    const mcp = mcpErrorText(err, servers);
    if (mcp) return mcp;
    const code = err.code ? ` (${err.code})` : '';
    return `${err.message}${code}`;
  }
  return err instanceof Error ? err.message : String(err);
}

/** What a continued answer asks (Continue after a `length` finish or a reload): sent, never shown as a turn. */
export const CONTINUE_PROMPT = 'Continue exactly where your last answer stopped, without repeating any of it.';

interface RunOptions {
  /** Asked again: the turns there were (restored if it fails before it begins) and the earlier versions. */
  again?: { turns: Turn[]; versions: AnswerVersion[] };
  /** Continued: the answer (the last of `history`) the new text is added to. */
  extend?: Turn;
  /** With `extend`: the person's answers to its MCP approval requests (all it asks), sent by `previous_response_id`. */
  approvals?: { id: string; approve: boolean }[];
}

/** The context of `model` on this device (or its upstream), as the engine reports it; null while unknown. */
function contextOf(model: ModelId): number | null {
  return getState().models?.find((m) => m.id === model)?.context_length ?? null;
}

/** The usage a stream's last chunk reports. */
type Usage = NonNullable<ChatCompletionChunk['usage']>;

/** What a stream brought besides the answer itself: when it began and first spoke, how much, how it ended, who served it. */
interface Received {
  started: number;
  firstAt: number | null;
  thinkingFrom: number | null;
  deltas: number;
  usage: Usage | null;
  finish: FinishReason | null;
  servedBy: string | null;
}

/** The longest title a chat gets from its first message. */
const TITLE_CHARS = 60;

/** A chat's title from its first message: the text on one line, cut after a whole word (with "…") when long. */
function titleFrom(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= TITLE_CHARS) return line;
  const cut = line.slice(0, TITLE_CHARS);
  const space = cut.lastIndexOf(' ');
  // A single word longer than that is cut where it must be.
  return `${(space >= TITLE_CHARS / 2 ? cut.slice(0, space) : cut).replace(/[\s,.;:–-]+$/, '')}…`;
}

/** The turns a run puts on screen before it sends: a note when images are left out, the user's turn, the answer. */
function startRun(
  conversation: Conversation,
  history: Turn[],
  user: Turn | null,
  imagesLeftOut: number,
  options: RunOptions,
): { turns: Turn[]; answer: Turn; before: Turn | null } {
  const { again, extend } = options;
  const model = conversation.model;
  const turns: Turn[] = [...history];
  if (imagesLeftOut > 0 && !conversation.imagesNoted) {
    turns.push({
      id: newId('turn'),
      role: 'note',
      text: `Images are left out from here on: ${model} reads text only, so the earlier image${imagesLeftOut === 1 ? ' is' : 's are'} not sent (the text of those messages is). Switch to svc-vision to send them again.`,
    });
  }
  const answer: Turn = extend ?? { id: newId('turn'), role: 'assistant', text: '', reasoning: '', model, status: 'streaming' };
  const before = extend ? { ...extend } : null;
  if (extend) extend.status = 'streaming';
  // Asked again: the earlier versions stay with it, this one after them.
  if (again) {
    answer.versions = again.versions;
    answer.version = again.versions.length;
  }
  if (user) turns.push(user);
  if (!extend) turns.push(answer);
  return { turns, answer, before };
}

/** One chunk of the stream into the answer: function calls piece by piece, thinking, text; saved as it comes. */
function take(chunk: ChatCompletionChunk, answer: Turn, got: Received, conversation: Conversation): void {
  if (chunk.usage) got.usage = chunk.usage;
  const choice = chunk.choices[0];
  if (!choice) return;
  const { content, reasoning_content: reasoning, tool_calls: calls } = choice.delta;
  for (const call of calls ?? []) {
    // A call's first piece names it; later pieces add to its arguments.
    answer.toolCalls ??= [];
    const made = (answer.toolCalls[call.index] ??= { id: call.id ?? `call_${call.index}`, name: '', arguments: '' });
    if (call.id) made.id = call.id;
    if (call.function.name) made.name += call.function.name;
    made.arguments += call.function.arguments;
    got.firstAt ??= performance.now();
    notifySoon();
    saveStreaming(conversation);
  }
  if (content || reasoning) {
    const now = performance.now();
    got.firstAt ??= now;
    got.deltas++;
    if (reasoning) {
      got.thinkingFrom ??= now;
      answer.reasoning = (answer.reasoning ?? '') + reasoning;
    }
    if (content) {
      if (got.thinkingFrom !== null && answer.thoughtMs === undefined) answer.thoughtMs = now - got.thinkingFrom;
      answer.text += content;
    }
    notifySoon();
    saveStreaming(conversation);
  }
  if (choice.finish_reason) got.finish = choice.finish_reason;
}

/** An MCP item of a /v1/responses stream, as the chat keeps it. */
function mcpItemOf(item: Record<string, unknown> & { type: string }): McpItem | null {
  if (item.type !== 'mcp_list_tools' && item.type !== 'mcp_call' && item.type !== 'mcp_approval_request') return null;
  const kept: McpItem = { id: String(item.id), type: item.type, server_label: String(item.server_label ?? '') };
  if (item.type === 'mcp_list_tools') kept.tools = ((item.tools as { name: string }[] | undefined) ?? []).map((t) => t.name);
  if (typeof item.name === 'string') kept.name = item.name;
  if (typeof item.arguments === 'string') kept.arguments = item.arguments;
  if (item.output !== undefined) kept.output = item.output as string | null;
  if (item.error !== undefined) kept.error = item.error === null ? null : typeof item.error === 'string' ? item.error : JSON.stringify(item.error);
  if (typeof item.status === 'string') kept.status = item.status;
  return kept;
}

/** One event of a /v1/responses stream into the answer: its MCP items (added, then as done), thinking, text, usage. */
function takeEvent(event: ResponseEvent, answer: Turn, got: Received, conversation: Conversation): void {
  const response = event.response as { id?: string; usage?: { input_tokens: number; output_tokens: number; total_tokens: number } } | undefined;
  if (event.type === 'response.created' && response?.id) answer.responseId = response.id;
  if (event.type === 'response.output_item.added' || event.type === 'response.output_item.done') {
    const item = mcpItemOf(event.item as Record<string, unknown> & { type: string });
    if (!item) return;
    got.firstAt ??= performance.now();
    const items = answer.mcp ?? [];
    const at = items.findIndex((i) => i.id === item.id);
    answer.mcp = at < 0 ? [...items, item] : items.map((i, n) => (n === at ? item : i));
  } else if (event.type === 'response.output_text.delta' || event.type === 'response.reasoning_text.delta') {
    const delta = String(event.delta ?? '');
    const now = performance.now();
    got.firstAt ??= now;
    got.deltas++;
    if (event.type === 'response.reasoning_text.delta') {
      got.thinkingFrom ??= now;
      answer.reasoning = (answer.reasoning ?? '') + delta;
    } else {
      if (got.thinkingFrom !== null && answer.thoughtMs === undefined) answer.thoughtMs = now - got.thinkingFrom;
      answer.text += delta;
    }
  } else if (event.type === 'response.completed' || event.type === 'response.incomplete') {
    if (response?.id) answer.responseId = response.id;
    got.finish = event.type === 'response.completed' ? 'stop' : 'length';
    const usage = response?.usage;
    if (usage) got.usage = { prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens, total_tokens: usage.total_tokens } as Usage;
  } else return;
  notifySoon();
  saveStreaming(conversation);
}

/**
 * Streams the answer to `body`. `defaulted`: its max_tokens is ours (the room the context has left), from a prompt
 * that was estimated: if the service counts more than that and refuses it before the first token, it says the
 * prompt's exact size, and the request is asked once more with the room there really is.
 */
async function stream(
  key: string,
  body: Record<string, unknown>,
  signal: AbortSignal,
  answer: Turn,
  conversation: Conversation,
  got: Received,
  defaulted: boolean,
  context: number | null,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      for await (const chunk of streamChat(key, body, signal, (by) => (got.servedBy = by))) take(chunk, answer, got, conversation);
      return;
    } catch (err) {
      const again =
        attempt === 0 && defaulted && got.firstAt === null && err instanceof ApiCallError && err.code === 'context_length_exceeded'
          ? roomFrom(err.message, context!)
          : undefined;
      if (again === undefined) throw err;
      if (again === null) delete body.max_tokens;
      else body.max_tokens = again;
    }
  }
}

/**
 * A run that failed before it began: nothing of the exchange stays. The text and image go back to the composer,
 * the error beside it; a failed regenerate leaves the answer there was; a failed continuation leaves the answer
 * as it was; a chat named after the message that was not sent gets the name it had.
 */
function putBack(
  conversation: Conversation,
  history: Turn[],
  user: Turn | null,
  options: RunOptions,
  before: Turn | null,
  title: string,
  failure: unknown,
  servers: readonly McpServer[],
): void {
  const { again, extend } = options;
  if (extend) Object.assign(extend, before);
  conversation.turns = again ? again.turns : [...history];
  if (!again && user) {
    conversation.draft = user.text;
    conversation.draftImage = user.image ? { url: user.image, name: user.imageName ?? 'image' } : null;
    conversation.draftDocuments = user.documents ?? [];
  }
  conversation.title = title;
  chat.state = {
    ...chat.state,
    streamingId: null,
    error: { conversationId: conversation.id, text: describe(failure, servers), code: failure instanceof ApiCallError ? failure.code : null },
  };
  save(conversation);
  notify();
}

/** The answer's figures: tokens (a continuation's add to the answer's, exact only if both were counted), speed, first token, finish. */
function statsOf(got: Received, endedAt: number, earlier: TurnStats | undefined, extended: boolean, turns: readonly Turn[]): TurnStats {
  const { usage, firstAt } = got;
  const tokens = usage?.completion_tokens ?? got.deltas;
  const span = firstAt !== null ? (endedAt - firstAt) / 1000 : 0;
  return {
    tokens: tokens + (earlier?.tokens ?? 0),
    reasoningTokens: usage?.completion_tokens_details?.reasoning_tokens ?? earlier?.reasoningTokens ?? null,
    exact: usage !== null && (!extended || earlier?.exact === true),
    tokensPerSecond: tokens > 0 && span > 0 ? tokens / span : null,
    firstTokenMs: firstAt !== null ? firstAt - got.started : null,
    finish: got.finish,
    servedBy: got.servedBy,
    // The tokens the context holds after this answer: its request's prompt (the continuation's, which already
    // holds the answer so far) and the tokens it added.
    promptTokens: usage?.prompt_tokens != null ? usage.prompt_tokens - (extended ? (earlier?.tokens ?? 0) : 0) : null,
    cut: cutInForce(turns),
  };
}

/**
 * Sends `history` plus a user turn and streams the answer into the conversation. On failure both turns are
 * taken out again and the text (and image) goes back to the composer: the history never holds a message with no
 * answer. A continued answer (`extend`) gets the new text added, and is as it was if that fails before it begins.
 */
export async function run(
  conversation: Conversation,
  key: string,
  history: Turn[],
  user: Turn | null,
  onAnswered: (error: ApiCallError | null) => void,
  options: RunOptions = {},
): Promise<void> {
  if (chat.controller) return;
  const { extend } = options;
  const model = conversation.model;
  const { messages, imagesLeftOut } = toMessages(conversation.system, user ? [...history, user] : history, model);
  if (extend) messages.push({ role: 'user', content: CONTINUE_PROMPT });
  const title = conversation.title;
  const { turns, answer, before } = startRun(conversation, history, user, imagesLeftOut, options);
  // Without a max_tokens of the chat's own, the answer gets the room the context has left (context-budget.ts).
  const context = contextOf(model);
  const fit =
    context !== null
      ? nextFit(
          { system: conversation.system, turns: user ? [...history, user] : history, params: conversation.params },
          extend ? CONTINUE_PROMPT : '',
          context,
        )
      : null;
  conversation.turns = turns;
  conversation.updatedAt = recordNow();
  if (user && !conversation.named && !history.some((t) => t.role === 'user')) conversation.title = titleFrom(user.text) || 'Image';
  const abort = new AbortController();
  chat.controller = abort;
  chat.state = { ...chat.state, streamingId: conversation.id, error: null, list: [conversation, ...chat.state.list.filter((c) => c !== conversation)] };
  chat.streaming = { conversation, answer };
  notify();
  // Written now, so a reload before the first streaming save finds this exchange (and the snapshot its answer).
  save(conversation);

  // MCP servers on: the answer comes from /v1/responses, with an `mcp` tool per server (an approval continues by
  // previous_response_id); the listings, calls and approval requests are kept with the answer.
  const servers = serversOn(conversation.mcp);
  const approvals = options.approvals;
  if (approvals) {
    const answers = new Map(approvals.map((a) => [a.id, a.approve]));
    answer.mcp = answer.mcp?.map(({ choice: _choice, ...i }) => (answers.has(i.id) ? { ...i, answer: answers.get(i.id) ? 'approved' : 'denied' } : i));
  }
  const got: Received = { started: performance.now(), firstAt: null, thinkingFrom: null, deltas: 0, usage: null, finish: null, servedBy: null };
  let failure: unknown = null;
  try {
    if (servers.length > 0) {
      const tools = servers.map((s) => mcpTool(s));
      const body = approvals
        ? {
            model,
            previous_response_id: before!.responseId,
            input: approvals.map((a) => ({ type: 'mcp_approval_response', approval_request_id: a.id, approve: a.approve })),
            tools,
          }
        : responsesBody(requestBody(model, messages, conversation.params), tools);
      for await (const event of streamResponse(key, body, abort.signal, (by) => (got.servedBy = by))) takeEvent(event, answer, got, conversation);
    } else {
      const body = requestBody(model, messages, conversation.params);
      // The room the context has left, when the chat sets no max_tokens of its own (context-budget.ts).
      const defaulted = conversation.params.max_tokens === null && fit !== null;
      if (defaulted) body.max_tokens = fit.maxTokens;
      await stream(key, body, abort.signal, answer, conversation, got, defaulted, context);
    }
    answer.status = 'done';
  } catch (err) {
    // The page going away (a reload) ends the stream too: that is an interruption, not the person's stop.
    if (chat.unloading) answer.status = 'interrupted';
    else if (abort.signal.aborted) answer.status = 'stopped';
    else failure = err;
  } finally {
    chat.controller = null;
    chat.streaming = null;
  }
  const endedAt = performance.now();
  if (got.thinkingFrom !== null && answer.thoughtMs === undefined) answer.thoughtMs = endedAt - got.thinkingFrom;
  const began = extend
    ? answer.text !== before!.text || answer.reasoning !== before!.reasoning || (answer.mcp?.length ?? 0) !== (before!.mcp?.length ?? 0)
    : answer.text || answer.reasoning || answer.toolCalls || answer.mcp?.length;
  if (failure !== null && began) {
    // Broke off after it began: what came stays, with the error beside it.
    answer.status = 'failed';
    answer.error = describe(failure, servers);
    failure = null;
  }
  if (failure !== null) {
    putBack(conversation, history, user, options, before, title, failure, servers);
    onAnswered(failure instanceof ApiCallError ? failure : null);
    return;
  }
  // A server's tools as this answer listed them are what its row in the settings shows.
  for (const item of answer.mcp ?? []) {
    const server = item.type === 'mcp_list_tools' && !item.error ? servers.find((s) => s.label === item.server_label) : undefined;
    if (server) void updateMcpServer(server, { tools: (item.tools ?? []).map((name) => ({ name, description: '' })), error: null });
  }
  if (turns.some((t) => t.role === 'note') && imagesLeftOut > 0) conversation.imagesNoted = true;
  answer.stats = statsOf(got, endedAt, extend ? before!.stats : undefined, extend !== undefined, conversation.turns);
  if (answer.versions) answer.versions = [...answer.versions, versionOf(answer)];
  conversation.updatedAt = recordNow();
  chat.state = { ...chat.state, streamingId: null };
  save(conversation);
  notify();
  onAnswered(null);
}

export function versionOf(turn: Turn): AnswerVersion {
  const { text, reasoning, thoughtMs, model, status, error, stats, toolCalls, mcp, responseId } = turn;
  return { text, reasoning, thoughtMs, model, status, error, stats, toolCalls, ...(mcp ? { mcp, responseId } : {}) };
}
