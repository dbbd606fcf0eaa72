// The Playground's conversations: the list, the one on screen, and sending it to /v1/chat/completions as a
// stream. Module state, not a component's: an answer keeps streaming (and is saved) while the person looks
// at another area, and everything is kept in IndexedDB (conversation-db.ts) across reloads and restarts.
import { useEffect, useState } from 'preact/hooks';
import type { FinishReason } from '../../protocol/types';
import { modelIds, variantOf } from '../../catalog';
import type { ModelId } from '../../variants';
import { ApiCallError, streamChat } from './api';
import { DEFAULT_PARAMS, deleteConversation, listConversations, putConversation, type AnswerVersion, type Conversation, type Turn } from './conversation-db';
import { requestBody, toMessages } from './conversation-request';
import { getState } from './store';
import type { ModelStatus } from '../../engine-protocol';

export type { Conversation, Turn } from './conversation-db';

export interface ChatState {
  orgId: string | null;
  /** Most recently changed first. */
  list: Conversation[];
  currentId: string | null;
  /** The conversation whose answer is streaming, if any. */
  streamingId: string | null;
  /** Why the last send failed (its text is back in the composer); cleared by the next send. */
  error: { conversationId: string; text: string; code: string | null } | null;
}

let state: ChatState = { orgId: null, list: [], currentId: null, streamingId: null, error: null };
const listeners = new Set<() => void>();
let controller: AbortController | null = null;

/** How often the screen follows a fast stream; the text itself is never dropped. */
const PAINT_MS = 40;
/** Typing in the composer or a field is saved this long after the last keystroke. */
const SAVE_MS = 300;
const defaultModel = (): ModelId => preferredModel();

/**
 * The model a chat starts with: svc-model-5.2-fast (the deployment's first chat model if it hides that one),
 * unless this device cannot run it (the engine says `unavailable`: too large for a CPU device, say); then the
 * first this device can run, one that answers directly (no thinking, no images) first. `allowed`: the models
 * the key in use reaches.
 */
/**
 * Whether a chat on this variant gets answers: it runs on this device, or (hybrid) an upstream answers it now. A
 * variant too large for the device whose id an upstream serves is not "cannot run here".
 */
export function answerable(status: ModelStatus | undefined): boolean {
  return status?.state !== 'unavailable' || status.serving?.engine === 'upstream';
}

export function preferredModel(allowed: (id: ModelId) => boolean = () => true): ModelId {
  const chatModels = modelIds().filter((id) => !variantOf(id)?.embeddings);
  const first = chatModels.includes('svc-model-5.2-fast') ? 'svc-model-5.2-fast' : (chatModels[0] ?? modelIds()[0]!);
  const statuses = getState().models;
  const runs = (id: ModelId) => answerable(statuses?.find((m) => m.id === id));
  const candidates = chatModels.filter((id) => runs(id) && allowed(id));
  if (candidates.includes(first)) return first;
  return candidates.find((id) => !variantOf(id)!.thinks && !variantOf(id)!.vision) ?? candidates[0] ?? first;
}

let paintTimer: ReturnType<typeof setTimeout> | null = null;
function notify(): void {
  if (paintTimer) clearTimeout(paintTimer);
  paintTimer = null;
  state = { ...state };
  for (const listener of listeners) listener();
}
function notifySoon(): void {
  paintTimer ??= setTimeout(notify, PAINT_MS);
}

const saveTimers = new Map<string, ReturnType<typeof setTimeout>>();
function save(conversation: Conversation, soon = false): void {
  const pending = saveTimers.get(conversation.id);
  if (pending) clearTimeout(pending);
  saveTimers.delete(conversation.id);
  const write = () => {
    saveTimers.delete(conversation.id);
    // Only a conversation still in the list is written (a deleted one stays deleted).
    if (!state.list.includes(conversation)) return;
    putConversation(conversation).catch((err: unknown) => console.error('inpage: a conversation could not be saved:', err));
  };
  if (soon) saveTimers.set(conversation.id, setTimeout(write, SAVE_MS));
  else write();
}

/** Writes every pending change now: when the page is hidden or goes away, nothing typed is lost. */
function flushSaves(): void {
  for (const conversation of state.list) if (saveTimers.has(conversation.id)) save(conversation);
}
if (typeof window !== 'undefined') {
  window.addEventListener('pagehide', flushSaves);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') flushSaves();
  });
}

function currentSlot(orgId: string): string {
  return `inpage:conversation:${orgId}`;
}

function remember(id: string): void {
  if (!state.orgId) return;
  try {
    localStorage.setItem(currentSlot(state.orgId), id);
  } catch {
    // Not remembered: the most recent one opens next time.
  }
}

function newId(prefix: string): string {
  return `${prefix}_${crypto.randomUUID()}`;
}

/** A new chat: the model of `from` (the one on screen), the default system prompt and parameters. */
function blank(orgId: string, from?: Conversation): Conversation {
  const now = Date.now();
  return {
    id: newId('conv'),
    orgId,
    title: 'New chat',
    named: false,
    createdAt: now,
    updatedAt: now,
    model: from?.model ?? defaultModel(),
    ...(from?.modelChosen ? { modelChosen: true } : {}),
    system: '',
    params: { ...DEFAULT_PARAMS },
    turns: [],
    draft: '',
    imagesNoted: false,
  };
}

export function getChat(): ChatState {
  return state;
}

export function current(): Conversation | null {
  return state.list.find((c) => c.id === state.currentId) ?? null;
}

/** Reads the workspace's conversations (once per workspace); opens the one last on screen. */
export async function loadConversations(orgId: string): Promise<void> {
  if (state.orgId === orgId) return;
  state.orgId = orgId;
  let list: Conversation[] = [];
  try {
    list = await listConversations(orgId);
  } catch (err) {
    console.error('inpage: the conversations could not be read:', err);
  }
  for (const conversation of list) {
    if (!modelIds().includes(conversation.model) || variantOf(conversation.model)?.embeddings) conversation.model = defaultModel();
    // Parameters added since the chat was saved start at their defaults.
    conversation.params = { ...DEFAULT_PARAMS, ...conversation.params };
    // A tab closed in the middle of an answer: what came is kept, as stopped.
    for (const turn of conversation.turns) if (turn.status === 'streaming') turn.status = 'stopped';
  }
  let wanted: string | null = null;
  try {
    wanted = localStorage.getItem(currentSlot(orgId));
  } catch {
    // None remembered.
  }
  if (list.length === 0) {
    const first = blank(orgId);
    list = [first];
    state = { ...state, list };
    save(first);
  }
  state = { ...state, list, currentId: list.find((c) => c.id === wanted)?.id ?? list[0]!.id };
  notify();
}

/** A copy of the current conversation (turns, model, system prompt, parameters), opened. */
export function duplicateConversation(): void {
  const now = current();
  if (!state.orgId || !now) return;
  const copy: Conversation = {
    ...structuredClone(now),
    id: newId('conv'),
    title: `${now.title} (copy)`.slice(0, 120),
    named: true,
    createdAt: Date.now(),
    updatedAt: Date.now(),
    draft: '',
  };
  for (const turn of copy.turns) {
    turn.id = newId('turn');
    if (turn.status === 'streaming') turn.status = 'stopped';
  }
  state = { ...state, list: [copy, ...state.list], currentId: copy.id, error: null };
  save(copy);
  remember(copy.id);
  notify();
}

/** Starts a new conversation with the model of the current one and default settings (an empty current one is reused). */
export function newConversation(): void {
  if (!state.orgId) return;
  const now = current();
  if (now && now.turns.length === 0) return selectConversation(now.id);
  const fresh = blank(state.orgId, now ?? undefined);
  state = { ...state, list: [fresh, ...state.list], currentId: fresh.id, error: null };
  save(fresh);
  remember(fresh.id);
  notify();
}

export function selectConversation(id: string): void {
  if (!state.list.some((c) => c.id === id)) return;
  state = { ...state, currentId: id, error: state.error?.conversationId === id ? state.error : null };
  remember(id);
  notify();
}

export function renameConversation(id: string, title: string): void {
  const conversation = state.list.find((c) => c.id === id);
  const name = title.trim();
  if (!conversation || !name) return;
  conversation.title = name.slice(0, 120);
  conversation.named = true;
  conversation.updatedAt = Date.now();
  save(conversation);
  notify();
}

export async function removeConversation(id: string): Promise<void> {
  if (state.streamingId === id) controller?.abort();
  const list = state.list.filter((c) => c.id !== id);
  state = { ...state, list };
  await deleteConversation(id).catch((err: unknown) => console.error('inpage: a conversation could not be deleted:', err));
  if (state.currentId === id) {
    if (list.length > 0) selectConversation(list[0]!.id);
    else {
      state = { ...state, currentId: null };
      newConversation();
    }
  }
  notify();
}

/** Model, system prompt, parameters or draft of the current conversation; saved shortly after. */
export function updateCurrent(patch: Partial<Pick<Conversation, 'model' | 'modelChosen' | 'system' | 'params' | 'draft'>>): void {
  const conversation = current();
  if (!conversation) return;
  Object.assign(conversation, patch);
  save(conversation, true);
  notify();
}

export function stop(): void {
  controller?.abort();
}

function describe(err: unknown): string {
  if (err instanceof ApiCallError) {
    const code = err.code ? ` (${err.code})` : '';
    return `${err.message}${code}`;
  }
  return err instanceof Error ? err.message : String(err);
}

/**
 * Sends `history` plus a user turn and streams the answer into the conversation. On failure both turns are
 * taken out again and the text goes back to the composer: the history never holds a message with no answer.
 */
async function run(
  conversation: Conversation,
  key: string,
  history: Turn[],
  user: Turn | null,
  onAnswered: (error: ApiCallError | null) => void,
  again?: { turns: Turn[]; versions: AnswerVersion[] },
): Promise<void> {
  if (controller) return;
  const model = conversation.model;
  const { messages, imagesLeftOut } = toMessages(conversation.system, user ? [...history, user] : history, model);
  const turns: Turn[] = [...history];
  if (imagesLeftOut > 0 && !conversation.imagesNoted) {
    turns.push({
      id: newId('turn'),
      role: 'note',
      text: `Images are left out from here on: ${model} reads text only, so the earlier image${imagesLeftOut === 1 ? ' is' : 's are'} not sent (the text of those messages is). Switch to svc-vision to send them again.`,
    });
  }
  const title = conversation.title;
  const answer: Turn = { id: newId('turn'), role: 'assistant', text: '', reasoning: '', model, status: 'streaming' };
  // Asked again: the earlier versions stay with it, this one after them.
  if (again) {
    answer.versions = again.versions;
    answer.version = again.versions.length;
  }
  if (user) turns.push(user);
  turns.push(answer);
  conversation.turns = turns;
  conversation.updatedAt = Date.now();
  if (user && !conversation.named && !history.some((t) => t.role === 'user')) conversation.title = user.text.replace(/\s+/g, ' ').slice(0, 60) || 'Image';
  const abort = new AbortController();
  controller = abort;
  state = { ...state, streamingId: conversation.id, error: null, list: [conversation, ...state.list.filter((c) => c !== conversation)] };
  notify();

  const started = performance.now();
  let firstAt: number | null = null;
  let thinkingFrom: number | null = null;
  let deltas = 0;
  let usage: { completion_tokens: number; completion_tokens_details?: { reasoning_tokens?: number } } | null = null;
  let finish: FinishReason | null = null;
  let failure: unknown = null;
  let servedBy: string | null = null;
  try {
    const body = requestBody(model, messages, conversation.params);
    for await (const chunk of streamChat(key, body, abort.signal, (by) => (servedBy = by))) {
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices[0];
      if (!choice) continue;
      const { content, reasoning_content: reasoning, tool_calls: calls } = choice.delta;
      for (const call of calls ?? []) {
        // A call's first piece names it; later pieces add to its arguments.
        answer.toolCalls ??= [];
        const made = (answer.toolCalls[call.index] ??= { id: call.id ?? `call_${call.index}`, name: '', arguments: '' });
        if (call.id) made.id = call.id;
        if (call.function.name) made.name += call.function.name;
        made.arguments += call.function.arguments;
        firstAt ??= performance.now();
        notifySoon();
      }
      if (content || reasoning) {
        const now = performance.now();
        firstAt ??= now;
        deltas++;
        if (reasoning) {
          thinkingFrom ??= now;
          answer.reasoning += reasoning;
        }
        if (content) {
          if (thinkingFrom !== null && answer.thoughtMs === undefined) answer.thoughtMs = now - thinkingFrom;
          answer.text += content;
        }
        notifySoon();
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
    answer.status = 'done';
  } catch (err) {
    if (abort.signal.aborted) answer.status = 'stopped';
    else failure = err;
  } finally {
    controller = null;
  }
  const endedAt = performance.now();
  if (thinkingFrom !== null && answer.thoughtMs === undefined) answer.thoughtMs = endedAt - thinkingFrom;
  if (failure !== null && (answer.text || answer.reasoning || answer.toolCalls)) {
    // Broke off after it began: what came stays, with the error beside it.
    answer.status = 'failed';
    answer.error = describe(failure);
    failure = null;
  }
  if (failure !== null) {
    // Nothing of the failed exchange stays: the text goes back to the composer, the error beside it. A failed
    // regenerate leaves the answer there was.
    conversation.turns = again ? again.turns : [...history];
    if (!again && user) conversation.draft = user.text;
    // Named after a message that was not sent: the name it had.
    conversation.title = title;
    state = {
      ...state,
      streamingId: null,
      error: { conversationId: conversation.id, text: describe(failure), code: failure instanceof ApiCallError ? failure.code : null },
    };
    save(conversation);
    notify();
    onAnswered(failure instanceof ApiCallError ? failure : null);
    return;
  }
  if (turns.some((t) => t.role === 'note') && imagesLeftOut > 0) conversation.imagesNoted = true;
  const tokens = usage?.completion_tokens ?? deltas;
  const span = firstAt !== null ? (endedAt - firstAt) / 1000 : 0;
  answer.stats = {
    tokens,
    reasoningTokens: usage?.completion_tokens_details?.reasoning_tokens ?? null,
    exact: usage !== null,
    tokensPerSecond: tokens > 0 && span > 0 ? tokens / span : null,
    firstTokenMs: firstAt !== null ? firstAt - started : null,
    finish,
    servedBy,
  };
  if (answer.versions) answer.versions = [...answer.versions, versionOf(answer)];
  conversation.updatedAt = Date.now();
  state = { ...state, streamingId: null };
  save(conversation);
  notify();
  onAnswered(null);
}

function versionOf(turn: Turn): AnswerVersion {
  const { text, reasoning, thoughtMs, model, status, error, stats, toolCalls } = turn;
  return { text, reasoning, thoughtMs, model, status, error, stats, toolCalls };
}

/** Shows another version of a regenerated answer (the later turns stay as they are). */
export function showVersion(turnId: string, index: number): void {
  const conversation = current();
  const turn = conversation?.turns.find((t) => t.id === turnId);
  if (!conversation || !turn?.versions || controller) return;
  const chosen = turn.versions[index];
  if (!chosen) return;
  Object.assign(turn, { reasoning: undefined, thoughtMs: undefined, error: undefined, stats: undefined, toolCalls: undefined }, chosen, { version: index });
  conversation.turns = [...conversation.turns];
  save(conversation);
  notify();
}

export interface Sender {
  key: string;
  onAnswered: (error: ApiCallError | null) => void;
}

/** Sends the composer's text (and image) as the next user message of the current conversation. */
export function send(sender: Sender, text: string, image?: string): void {
  const conversation = current();
  if (!conversation || controller) return;
  const user: Turn = { id: newId('turn'), role: 'user', text, image };
  conversation.draft = '';
  void run(conversation, sender.key, [...conversation.turns], user, sender.onAnswered);
}

/**
 * Sends the results the person typed for the calls of the last answer (by call id) and streams the answer that
 * continues from them. If that fails before it begins, the chat is as it was.
 */
export function sendToolResults(sender: Sender, results: Record<string, string>): void {
  const conversation = current();
  const last = conversation?.turns[conversation.turns.length - 1];
  if (!conversation || controller || last?.role !== 'assistant' || !last.toolCalls?.length) return;
  const tools: Turn[] = last.toolCalls.map((call) => ({ id: newId('turn'), role: 'tool', text: results[call.id] ?? '', toolCallId: call.id, name: call.name }));
  void run(conversation, sender.key, [...conversation.turns, ...tools], null, sender.onAnswered, { turns: [...conversation.turns], versions: [] });
}

/** Asks again for the last answer: the turns from the last user message on are replaced. */
export function regenerate(sender: Sender): void {
  const conversation = current();
  if (!conversation || controller) return;
  // The answer to function results: asked again from those results.
  const lastAnswer = conversation.turns.map((t) => t.role).lastIndexOf('assistant');
  if (lastAnswer > 0 && conversation.turns[lastAnswer - 1]!.role === 'tool') {
    const previous = conversation.turns[lastAnswer]!;
    void run(conversation, sender.key, conversation.turns.slice(0, lastAnswer), null, sender.onAnswered, { turns: [...conversation.turns], versions: previous.versions ?? [versionOf(previous)] });
    return;
  }
  const at = conversation.turns.map((t) => t.role).lastIndexOf('user');
  if (at < 0) return;
  const user = conversation.turns[at]!;
  // The answer there was stays as a version (‹ 1/2 ›) of the new one.
  const previous = conversation.turns.slice(at + 1).find((t) => t.role === 'assistant');
  const versions = previous ? (previous.versions ?? [versionOf(previous)]) : [];
  void run(conversation, sender.key, conversation.turns.slice(0, at), { ...user, id: newId('turn') }, sender.onAnswered, { turns: [...conversation.turns], versions });
}

/** Replaces a user message with new text and sends it again; every later turn goes. */
export function editAndResend(sender: Sender, turnId: string, text: string): void {
  const conversation = current();
  if (!conversation || controller) return;
  const at = conversation.turns.findIndex((t) => t.id === turnId);
  const user = conversation.turns[at];
  if (!user || user.role !== 'user' || !text.trim()) return;
  void run(conversation, sender.key, conversation.turns.slice(0, at), { ...user, id: newId('turn'), text: text.trim() }, sender.onAnswered);
}

/** The chat state; the component re-renders on every change. */
export function useChat(): ChatState {
  const [, setVersion] = useState(0);
  useEffect(() => {
    const listener = () => setVersion((v) => v + 1);
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }, []);
  return state;
}

/** Whether `model` reads images (the composer offers an attachment). */
export function readsImages(model: ModelId): boolean {
  return variantOf(model)!.vision;
}
