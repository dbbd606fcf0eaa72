// The Playground's conversations: the list, the one on screen, and the actions on them (the state is
// chat-state.ts's, the sending chat-run.ts's). Module state, not a component's: an answer keeps streaming (and is
// saved) while the person looks at another area, and everything is kept in IndexedDB (conversation-db.ts) across
// reloads and restarts.
import { modelIds, variantOf } from '#shared/catalog';
import { recordNow } from '#shared/record-time';
import type { ModelId } from '#shared/variants';
import { DEFAULT_PARAMS, deleteConversation, listConversations, type Conversation, type Params, type Turn, type UserBranch } from './conversation-db';
import { preferredModel } from '../../../kit/model-state';
import { chat, current, newId, notify, save, takeSnapshot } from './chat-state';
import { ApiCallError } from '../../../kit/api';
import { CONTINUE_PROMPT, run, versionOf } from './chat-run';
import { sentFrom } from './context-budget';
import { loadMcpServers } from './mcp-servers';

export { current, useChat } from './chat-state';
export { CONTINUE_PROMPT };

export type { Conversation, Turn } from './conversation-db';

const defaultModel = (): ModelId => preferredModel();

function currentSlot(orgId: string): string {
  return `inpage:conversation:${orgId}`;
}

function remember(id: string): void {
  if (!chat.state.orgId) return;
  try {
    localStorage.setItem(currentSlot(chat.state.orgId), id);
  } catch {
    // Not remembered: the most recent one opens next time.
  }
}

/** The system prompt and parameters new chats of a workspace start from (Make these the default), if any. */
interface ChatDefaults {
  system: string;
  params: Partial<Params>;
}

function defaultsSlot(orgId: string): string {
  return `inpage:chat-defaults:${orgId}`;
}

/** The defaults the person saved for new chats in this workspace (this browser's `localStorage`), or null. */
export function chatDefaults(orgId: string | null = chat.state.orgId): ChatDefaults | null {
  if (!orgId) return null;
  try {
    const raw = localStorage.getItem(defaultsSlot(orgId));
    const kept = raw ? (JSON.parse(raw) as Partial<ChatDefaults>) : null;
    return kept && typeof kept === 'object' ? { system: typeof kept.system === 'string' ? kept.system : '', params: { ...kept.params } } : null;
  } catch {
    return null;
  }
}

/**
 * The current chat's system prompt and parameters become what new chats start from (null: back to the built-in
 * ones). Either way new chats no longer start from the preset applied last: the choice made last wins.
 */
export function setChatDefaults(from: Conversation | null): void {
  const orgId = chat.state.orgId;
  if (!orgId) return;
  rememberPreset(orgId, null);
  try {
    if (from) localStorage.setItem(defaultsSlot(orgId), JSON.stringify({ system: from.system, params: from.params }));
    else localStorage.removeItem(defaultsSlot(orgId));
  } catch {
    // Not kept (no room, or storage off): new chats start from the built-in defaults.
  }
  notify();
}

/** A named preset: a system prompt and parameters saved under a name, to apply to any chat of the workspace. */
export interface ChatPreset extends ChatDefaults {
  name: string;
}

function presetsSlot(orgId: string): string {
  return `inpage:chat-presets:${orgId}`;
}

/** The workspace's presets (this browser's `localStorage`), by name. */
export function chatPresets(orgId: string | null = chat.state.orgId): ChatPreset[] {
  if (!orgId) return [];
  try {
    const raw = localStorage.getItem(presetsSlot(orgId));
    const kept = raw ? (JSON.parse(raw) as unknown) : [];
    if (!Array.isArray(kept)) return [];
    return (kept as Partial<ChatPreset>[])
      .filter((p) => p && typeof p.name === 'string' && p.name.trim())
      .map((p) => ({ name: p.name!, system: typeof p.system === 'string' ? p.system : '', params: { ...p.params } }))
      .sort((a, b) => a.name.localeCompare(b.name));
  } catch {
    return [];
  }
}

/** Whether the presets could be written (no room, or storage off: not). */
function writePresets(orgId: string, presets: ChatPreset[]): boolean {
  try {
    localStorage.setItem(presetsSlot(orgId), JSON.stringify(presets));
    return true;
  } catch {
    return false;
  } finally {
    notify();
  }
}

/** Saves the chat's system prompt and parameters as the preset `name` (one of that name is replaced); false when not kept. */
export function savePreset(name: string, from: Conversation): boolean {
  const orgId = chat.state.orgId;
  const named = name.trim().slice(0, 80);
  if (!orgId || !named) return false;
  const others = chatPresets(orgId).filter((p) => p.name !== named);
  return writePresets(orgId, [...others, { name: named, system: from.system, params: structuredClone(from.params) }]);
}

export function deletePreset(name: string): void {
  const orgId = chat.state.orgId;
  // New chats start from the defaults again when the preset they started from is deleted.
  if (orgId && lastPreset(orgId) === name) rememberPreset(orgId, null);
  if (orgId)
    writePresets(
      orgId,
      chatPresets(orgId).filter((p) => p.name !== name),
    );
}

function lastPresetSlot(orgId: string): string {
  return `inpage:chat-last-preset:${orgId}`;
}

/** The name of the preset applied to a chat most recently in this workspace (this browser's `localStorage`), or null. */
export function lastPreset(orgId: string | null = chat.state.orgId): string | null {
  if (!orgId) return null;
  try {
    return localStorage.getItem(lastPresetSlot(orgId));
  } catch {
    return null;
  }
}

function rememberPreset(orgId: string, name: string | null): void {
  try {
    if (name) localStorage.setItem(lastPresetSlot(orgId), name);
    else localStorage.removeItem(lastPresetSlot(orgId));
  } catch {
    // Not remembered (storage off): new chats start from the defaults.
  }
}

/** The preset's system prompt and parameters become the current chat's (parameters it does not name at their defaults); new chats start from it. */
export function applyPreset(name: string): boolean {
  const preset = chatPresets().find((p) => p.name === name);
  const orgId = chat.state.orgId;
  if (!preset || !orgId) return false;
  rememberPreset(orgId, preset.name);
  updateCurrent({ system: preset.system, params: { ...DEFAULT_PARAMS, ...structuredClone(preset.params) } });
  return true;
}

/** What a new chat starts from: its system prompt and parameters, and the preset they are (null: the defaults). */
export interface NewChatStart {
  system: string;
  params: Params;
  /** The preset applied last, while it exists. */
  preset: string | null;
  /** Whether, with no such preset, they are the defaults the person saved (else the built-in ones). */
  saved: boolean;
}

/** The preset applied to a chat most recently, while it exists; else the saved defaults; else the built-in ones. */
export function newChatStart(orgId: string | null = chat.state.orgId): NewChatStart {
  const name = lastPreset(orgId);
  const preset = name === null ? undefined : chatPresets(orgId).find((p) => p.name === name);
  if (preset) return { system: preset.system, params: { ...DEFAULT_PARAMS, ...structuredClone(preset.params) }, preset: preset.name, saved: false };
  const defaults = chatDefaults(orgId);
  return { system: defaults?.system ?? '', params: { ...DEFAULT_PARAMS, ...defaults?.params }, preset: null, saved: defaults !== null };
}

function sameSettings(a: Pick<Conversation, 'system' | 'params'>, b: Pick<Conversation, 'system' | 'params'>): boolean {
  return a.system === b.system && JSON.stringify({ ...DEFAULT_PARAMS, ...a.params }) === JSON.stringify({ ...DEFAULT_PARAMS, ...b.params });
}

/** Whether the chat's settings are those new chats start from now. */
export function startsNewChats(conversation: Conversation): boolean {
  return sameSettings(conversation, newChatStart());
}

/**
 * An empty chat opened again by New chat takes what new chats start from now, unless its settings were changed
 * since it was made (they are still the built-in ones, the saved defaults, or its preset's).
 */
function refreshStart(conversation: Conversation): void {
  const orgId = conversation.orgId;
  const start = newChatStart(orgId);
  if (sameSettings(conversation, start) && (conversation.startedFrom ?? null) === start.preset) return;
  const defaults = chatDefaults(orgId);
  const preset = conversation.startedFrom ? chatPresets(orgId).find((p) => p.name === conversation.startedFrom) : undefined;
  const untouched =
    sameSettings(conversation, { system: '', params: DEFAULT_PARAMS }) ||
    (defaults !== null && sameSettings(conversation, { system: defaults.system, params: { ...DEFAULT_PARAMS, ...defaults.params } })) ||
    (preset !== undefined && sameSettings(conversation, { system: preset.system, params: { ...DEFAULT_PARAMS, ...preset.params } }));
  if (!untouched) return;
  conversation.system = start.system;
  conversation.params = start.params;
  if (start.preset) conversation.startedFrom = start.preset;
  else delete conversation.startedFrom;
  save(conversation);
}

/** A new chat: the model of `from` (the one on screen), the system prompt and parameters new chats start from (newChatStart). */
function blank(orgId: string, from?: Conversation): Conversation {
  const now = recordNow();
  const start = newChatStart(orgId);
  return {
    id: newId('conv'),
    orgId,
    title: 'New chat',
    named: false,
    createdAt: now,
    updatedAt: now,
    model: from?.model ?? defaultModel(),
    ...(from?.modelChosen ? { modelChosen: true } : {}),
    system: start.system,
    params: start.params,
    ...(start.preset ? { startedFrom: start.preset } : {}),
    turns: [],
    draft: '',
    imagesNoted: false,
  };
}

/** Reads the workspace's conversations (once per workspace); opens the one last on screen. */
export async function loadConversations(orgId: string): Promise<void> {
  if (chat.state.orgId === orgId) return;
  chat.state.orgId = orgId;
  void loadMcpServers();
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
    // A tab reloaded or closed in the middle of an answer: everything that had arrived is kept (the last text
    // is in the snapshot written as the page went away), as interrupted.
    for (const turn of conversation.turns) {
      if (turn.status !== 'streaming') continue;
      const kept = takeSnapshot(conversation.id, turn.id);
      if (kept && kept.text.length >= turn.text.length) Object.assign(turn, kept);
      turn.status = 'interrupted';
      // A regeneration the reload interrupted is one of the answer's versions, as a finished one is.
      if (turn.versions && (turn.version ?? 0) >= turn.versions.length) turn.versions = [...turn.versions, versionOf(turn)];
    }
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
    chat.state = { ...chat.state, list };
    save(first);
  }
  chat.state = { ...chat.state, list, currentId: list.find((c) => c.id === wanted)?.id ?? list[0]!.id };
  notify();
}

/** A copy of the current conversation (turns, model, system prompt, parameters), opened. */
export function duplicateConversation(): void {
  const now = current();
  if (!chat.state.orgId || !now) return;
  const copy: Conversation = {
    ...structuredClone(now),
    id: newId('conv'),
    title: `${now.title} (copy)`.slice(0, 120),
    named: true,
    createdAt: recordNow(),
    updatedAt: recordNow(),
    draft: '',
  };
  for (const turn of copy.turns) {
    turn.id = newId('turn');
    if (turn.status === 'streaming') turn.status = 'stopped';
  }
  chat.state = { ...chat.state, list: [copy, ...chat.state.list], currentId: copy.id, error: null };
  save(copy);
  remember(copy.id);
  notify();
}

/** Starts a new conversation with the model of the current one and default settings (an empty current one is reused). */
export function newConversation(): void {
  if (!chat.state.orgId) return;
  const now = current();
  if (now && now.turns.length === 0) {
    refreshStart(now);
    return selectConversation(now.id);
  }
  // An empty chat already in the list (nothing sent, nothing typed, never renamed) opens instead: they do not pile up.
  const unused = chat.state.list.find((c) => c.turns.length === 0 && !c.draft.trim() && !c.draftImage && !c.draftDocuments?.length && !c.named);
  if (unused) {
    refreshStart(unused);
    return selectConversation(unused.id);
  }
  const fresh = blank(chat.state.orgId, now ?? undefined);
  chat.state = { ...chat.state, list: [fresh, ...chat.state.list], currentId: fresh.id, error: null };
  save(fresh);
  remember(fresh.id);
  notify();
}

export function selectConversation(id: string): void {
  if (!chat.state.list.some((c) => c.id === id)) return;
  chat.state = { ...chat.state, currentId: id, error: chat.state.error?.conversationId === id ? chat.state.error : null };
  remember(id);
  notify();
}

export function renameConversation(id: string, title: string): void {
  const conversation = chat.state.list.find((c) => c.id === id);
  const name = title.trim();
  if (!conversation || !name) return;
  conversation.title = name.slice(0, 120);
  conversation.named = true;
  conversation.updatedAt = recordNow();
  save(conversation);
  notify();
}

export async function removeConversation(id: string): Promise<void> {
  if (chat.state.streamingId === id) chat.controller?.abort();
  const list = chat.state.list.filter((c) => c.id !== id);
  chat.state = { ...chat.state, list };
  await deleteConversation(id).catch((err: unknown) => console.error('inpage: a conversation could not be deleted:', err));
  if (chat.state.currentId === id) {
    if (list.length > 0) selectConversation(list[0]!.id);
    else {
      chat.state = { ...chat.state, currentId: null };
      newConversation();
    }
  }
  notify();
}

/** Model, system prompt, parameters or draft of the current conversation; saved shortly after. */
export function updateCurrent(
  patch: Partial<Pick<Conversation, 'model' | 'modelChosen' | 'system' | 'params' | 'draft' | 'draftImage' | 'draftDocuments'>>,
): void {
  const conversation = current();
  if (!conversation) return;
  // Another model: the error of a send to the one before is no longer this chat's.
  if (patch.model && patch.model !== conversation.model && chat.state.error?.conversationId === conversation.id) chat.state = { ...chat.state, error: null };
  Object.assign(conversation, patch);
  save(conversation, true);
  notify();
}

export function stop(): void {
  chat.controller?.abort();
}

/** Shows another version of a regenerated answer (the later turns stay as they are). */
export function showVersion(turnId: string, index: number): void {
  const conversation = current();
  const turn = conversation?.turns.find((t) => t.id === turnId);
  if (!conversation || !turn?.versions || chat.controller) return;
  const chosen = turn.versions[index];
  if (!chosen) return;
  // The one on screen not among them yet (a regeneration interrupted before it was added): it stays one.
  if ((turn.version ?? 0) >= turn.versions.length) turn.versions = [...turn.versions, versionOf(turn)];
  Object.assign(
    turn,
    { reasoning: undefined, thoughtMs: undefined, error: undefined, stats: undefined, toolCalls: undefined, mcp: undefined, responseId: undefined },
    chosen,
    { version: index },
  );
  conversation.turns = [...conversation.turns];
  save(conversation);
  notify();
}

export interface Sender {
  key: string;
  onAnswered: (error: ApiCallError | null) => void;
}

/** Sends the composer's text (and attached image and documents) as the next user message of the current conversation. */
export function send(sender: Sender, text: string): void {
  const conversation = current();
  if (!conversation || chat.controller) return;
  const image = conversation.draftImage && variantOf(conversation.model)?.vision ? conversation.draftImage : null;
  const documents = conversation.draftDocuments ?? [];
  const user: Turn = {
    id: newId('turn'),
    role: 'user',
    text,
    ...(image ? { image: image.url, imageName: image.name } : {}),
    ...(documents.length ? { documents } : {}),
  };
  conversation.draft = '';
  conversation.draftDocuments = [];
  // An image the model cannot read stays with the draft (the composer says so), for a model that can.
  if (image) conversation.draftImage = null;
  void run(conversation, sender.key, [...conversation.turns], user, sender.onAnswered);
}

/** Whether the last answer can be continued: it was cut at the length limit, or interrupted by a reload. */
export function continuable(conversation: Conversation): boolean {
  const last = conversation.turns[conversation.turns.length - 1];
  return (
    last?.role === 'assistant' && !last.toolCalls?.length && (last.status === 'interrupted' || (last.status === 'done' && last.stats?.finish === 'length'))
  );
}

/** Continues the last answer where it stopped: the new text is added to it. */
export function continueAnswer(sender: Sender): void {
  const conversation = current();
  if (!conversation || chat.controller || !continuable(conversation)) return;
  const last = conversation.turns[conversation.turns.length - 1]!;
  void run(conversation, sender.key, [...conversation.turns], null, sender.onAnswered, { extend: last });
}

/**
 * Sends the results the person typed for the calls of the last answer (by call id) and streams the answer that
 * continues from them. If that fails before it begins, the chat is as it was.
 */
export function sendToolResults(sender: Sender, results: Record<string, string>): void {
  const conversation = current();
  const last = conversation?.turns[conversation.turns.length - 1];
  if (!conversation || chat.controller || last?.role !== 'assistant' || !last.toolCalls?.length) return;
  const tools: Turn[] = last.toolCalls.map((call) => ({ id: newId('turn'), role: 'tool', text: results[call.id] ?? '', toolCallId: call.id, name: call.name }));
  void run(conversation, sender.key, [...conversation.turns, ...tools], null, sender.onAnswered, { again: { turns: [...conversation.turns], versions: [] } });
}

/** Turns an MCP server (mcp-servers.ts) on or off for the current chat: its next sends go through /v1/responses. */
export function setMcpOn(serverId: string, on: boolean): void {
  const conversation = current();
  if (!conversation) return;
  const ids = (conversation.mcp ?? []).filter((id) => id !== serverId);
  conversation.mcp = on ? [...ids, serverId] : ids;
  save(conversation);
  notify();
}

/**
 * The person's answer to an MCP approval request of the last answer. An answer that asks several (two calls in one
 * turn) is answered in one request: each choice is kept on its card until every request has one, then all go with
 * `previous_response_id`, an `mcp_approval_response` each, and what follows (the calls, their results, the model's
 * words) is added to that answer. If that fails before it begins, the requests wait again (the choices kept).
 */
export function answerApproval(sender: Sender, turnId: string, requestId: string, approve: boolean): void {
  const conversation = current();
  const last = conversation?.turns[conversation.turns.length - 1];
  if (!conversation || chat.controller || last?.id !== turnId || last.role !== 'assistant' || !last.responseId) return;
  if (!last.mcp?.some((i) => i.id === requestId && i.type === 'mcp_approval_request' && !i.answer)) return;
  last.mcp = last.mcp.map((i) => (i.id === requestId ? { ...i, choice: approve ? 'approved' : 'denied' } : i));
  const open = last.mcp.filter((i) => i.type === 'mcp_approval_request' && !i.answer);
  if (open.some((i) => !i.choice)) {
    save(conversation);
    notify();
    return;
  }
  const approvals = open.map((i) => ({ id: i.id, approve: i.choice === 'approved' }));
  void run(conversation, sender.key, [...conversation.turns], null, sender.onAnswered, { extend: last, approvals });
}

/** Asks again for the last answer: the turns from the last user message on are replaced. */
export function regenerate(sender: Sender): void {
  const conversation = current();
  if (!conversation || chat.controller) return;
  // The answer to function results: asked again from those results.
  const lastAnswer = conversation.turns.map((t) => t.role).lastIndexOf('assistant');
  if (lastAnswer > 0 && conversation.turns[lastAnswer - 1]!.role === 'tool') {
    const previous = conversation.turns[lastAnswer]!;
    void run(conversation, sender.key, conversation.turns.slice(0, lastAnswer), null, sender.onAnswered, {
      again: { turns: [...conversation.turns], versions: previous.versions ?? [versionOf(previous)] },
    });
    return;
  }
  const at = conversation.turns.map((t) => t.role).lastIndexOf('user');
  if (at < 0) return;
  const user = conversation.turns[at]!;
  // The answer there was stays as a version (‹ 1/2 ›) of the new one.
  const previous = conversation.turns.slice(at + 1).find((t) => t.role === 'assistant');
  const versions = previous ? (previous.versions ?? [versionOf(previous)]) : [];
  void run(conversation, sender.key, conversation.turns.slice(0, at), { ...user, id: newId('turn') }, sender.onAnswered, {
    again: { turns: [...conversation.turns], versions },
  });
}

/** The branch on screen of the user turn at `at`, as its entry: its text and image and the turns after it. */
function branchOf(turns: readonly Turn[], at: number): UserBranch {
  const user = turns[at]!;
  return {
    text: user.text,
    ...(user.image ? { image: user.image, imageName: user.imageName } : {}),
    ...(user.documents?.length ? { documents: user.documents } : {}),
    after: turns.slice(at + 1),
  };
}

/**
 * Sends a user message again with new text: a new branch. The message before and every turn after it stay as
 * the other version (‹ 1/2 › on the message, showBranch); if the send fails before it begins, the chat is as it was.
 */
export function editAndResend(sender: Sender, turnId: string, text: string): void {
  const conversation = current();
  if (!conversation || chat.controller) return;
  const at = conversation.turns.findIndex((t) => t.id === turnId);
  const user = conversation.turns[at];
  if (!user || user.role !== 'user' || !text.trim()) return;
  const earlier = (user.branches ?? [{ text: user.text, after: [] }]).map((b, i) => (i === (user.branch ?? 0) ? branchOf(conversation.turns, at) : b));
  const edited: Turn = {
    ...user,
    id: newId('turn'),
    text: text.trim(),
    branches: [...earlier, { ...branchOf([user], 0), text: text.trim(), after: [] }],
    branch: earlier.length,
  };
  void run(conversation, sender.key, conversation.turns.slice(0, at), edited, sender.onAnswered, { again: { turns: [...conversation.turns], versions: [] } });
}

/** Shows another version of an edited message, with the turns that followed it in its branch. */
export function showBranch(turnId: string, index: number): void {
  const conversation = current();
  if (!conversation || chat.controller) return;
  const at = conversation.turns.findIndex((t) => t.id === turnId);
  const user = conversation.turns[at];
  const chosen = user?.branches?.[index];
  if (!user || !chosen || index === (user.branch ?? 0)) return;
  const branches = user.branches!.map((b, i) => (i === (user.branch ?? 0) ? branchOf(conversation.turns, at) : i === index ? { ...b, after: [] } : b));
  const shown: Turn = { ...user, text: chosen.text, image: chosen.image, imageName: chosen.imageName, documents: chosen.documents, branches, branch: index };
  if (!chosen.image) {
    delete shown.image;
    delete shown.imageName;
  }
  if (!chosen.documents) delete shown.documents;
  conversation.turns = [...conversation.turns.slice(0, at), shown, ...chosen.after];
  conversation.updatedAt = recordNow();
  save(conversation);
  notify();
}

/**
 * The person's choice when the next message would not fit: the `count` oldest turns (after any earlier cut) are
 * no longer sent. They stay on screen, above a note that says so; the system prompt is always sent.
 */
export function leaveOutOldest(count: number): void {
  const conversation = current();
  if (!conversation || chat.controller || count < 1) return;
  const from = sentFrom(conversation.turns);
  const at = Math.min(conversation.turns.length, from + count);
  const note: Turn = {
    id: newId('turn'),
    role: 'note',
    cut: true,
    text: `The ${count === 1 ? 'turn' : `${count} turns`} above ${count === 1 ? 'is' : 'are'} no longer sent, to fit this device's context (you chose this; the system prompt is still sent).`,
  };
  conversation.turns = [...conversation.turns.slice(0, at), note, ...conversation.turns.slice(at)];
  conversation.updatedAt = recordNow();
  save(conversation);
  notify();
}

/**
 * The other choice: a new chat with the same model, settings and unsent message, whose system prompt carries the
 * summary of this one (`summary`, which the model wrote); a note in it says where it came from.
 */
export function continueInNewChat(summary: string): void {
  const from = current();
  if (!chat.state.orgId || !from || chat.controller) return;
  const fresh = blank(chat.state.orgId, from);
  fresh.system = `${from.system.trim() ? `${from.system.trim()}\n\n` : ''}Summary of the conversation so far:\n${summary.trim()}`;
  fresh.params = structuredClone(from.params);
  if (from.startedFrom) fresh.startedFrom = from.startedFrom;
  else delete fresh.startedFrom;
  fresh.draft = from.draft;
  fresh.draftImage = from.draftImage ?? null;
  fresh.draftDocuments = from.draftDocuments ?? [];
  fresh.title = `${from.title} (continued)`.slice(0, 120);
  fresh.named = true;
  fresh.turns = [{ id: newId('turn'), role: 'note', text: `Continued from “${from.title}”: its summary is in this chat's system prompt (Settings).` }];
  from.draft = '';
  from.draftImage = null;
  from.draftDocuments = [];
  save(from);
  chat.state = { ...chat.state, list: [fresh, ...chat.state.list], currentId: fresh.id, error: null };
  save(fresh);
  remember(fresh.id);
  notify();
}

/** Turns made elsewhere, each given an id of this browser (the turns of their branches too). */
function withIds(turns: readonly Omit<Turn, 'id'>[]): Turn[] {
  return turns.map((turn) => ({
    ...turn,
    id: newId('turn'),
    ...(turn.branches ? { branches: turn.branches.map((b) => ({ ...b, after: withIds(b.after) })) } : {}),
  }));
}

/** A chat made elsewhere (an imported export): given its own ids and this workspace, listed first and opened. */
export function adoptConversation(made: Pick<Conversation, 'title' | 'model' | 'system' | 'params'> & { turns: Omit<Turn, 'id'>[] }): void {
  if (!chat.state.orgId) return;
  const now = recordNow();
  // Its settings are the export's, from no preset of this workspace.
  const base = blank(chat.state.orgId);
  delete base.startedFrom;
  const conversation: Conversation = {
    ...base,
    ...made,
    named: true,
    modelChosen: true,
    createdAt: now,
    updatedAt: now,
    turns: withIds(made.turns),
  };
  chat.state = { ...chat.state, list: [conversation, ...chat.state.list], currentId: conversation.id, error: null };
  save(conversation);
  remember(conversation.id);
  notify();
}
