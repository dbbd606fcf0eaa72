// The Playground's chat state (chat.ts and chat-run.ts act on it): the list, the one on screen, the answer
// streaming, repainting and saving (IndexedDB through conversation-db.ts; the streaming answer throttled, and
// synchronously as the page goes away, so a reload keeps everything that had arrived).
import { useEffect, useState } from 'preact/hooks';
import { putConversation, type Conversation, type Turn } from './conversation-db';

interface ChatState {
  orgId: string | null;
  /** Most recently changed first. */
  list: Conversation[];
  currentId: string | null;
  /** The conversation whose answer is streaming, if any. */
  streamingId: string | null;
  /** Why the last send failed (its text is back in the composer); cleared by the next send. */
  error: { conversationId: string; text: string; code: string | null } | null;
}

/** The chat module's state, shared by its parts (chat.ts, chat-run.ts); `state` is replaced on change. */
export const chat: {
  state: ChatState;
  /** The request streaming now, if any. */
  controller: AbortController | null;
  /** The answer streaming now, if any. */
  streaming: { conversation: Conversation; answer: Turn } | null;
  /** The page is going away (pagehide): a stream that ends now was interrupted, not stopped. */
  unloading: boolean;
} = { state: { orgId: null, list: [], currentId: null, streamingId: null, error: null }, controller: null, streaming: null, unloading: false };
const listeners = new Set<() => void>();

/** How often the screen follows a fast stream; the text itself is never dropped. */
const PAINT_MS = 40;
/** Typing in the composer or a field is saved this long after the last keystroke. */
const SAVE_MS = 300;

let paintTimer: ReturnType<typeof setTimeout> | null = null;
export function notify(): void {
  if (paintTimer) clearTimeout(paintTimer);
  paintTimer = null;
  chat.state = { ...chat.state };
  for (const listener of listeners) listener();
}
export function notifySoon(): void {
  paintTimer ??= setTimeout(notify, PAINT_MS);
}

const saveTimers = new Map<string, ReturnType<typeof setTimeout>>();
export function save(conversation: Conversation, soon = false): void {
  const pending = saveTimers.get(conversation.id);
  if (pending) clearTimeout(pending);
  saveTimers.delete(conversation.id);
  const write = () => {
    saveTimers.delete(conversation.id);
    // Only a conversation still in the list is written (a deleted one stays deleted).
    if (!chat.state.list.includes(conversation)) return;
    putConversation(conversation).catch((err: unknown) => console.error('inpage: a conversation could not be saved:', err));
  };
  if (soon) saveTimers.set(conversation.id, setTimeout(write, SAVE_MS));
  else write();
}

/** How often a streaming answer is written to IndexedDB while it arrives (the screen follows faster). */
const STREAM_SAVE_MS = 1000;
let streamTimer: ReturnType<typeof setTimeout> | null = null;

/** Writes the streaming conversation at most every STREAM_SAVE_MS: a reload keeps what had arrived. */
export function saveStreaming(conversation: Conversation): void {
  streamTimer ??= setTimeout(() => {
    streamTimer = null;
    save(conversation);
  }, STREAM_SAVE_MS);
}

function snapshotSlot(conversationId: string): string {
  return `inpage:streaming:${conversationId}`;
}

/**
 * The streaming answer as the page goes away, written synchronously (localStorage): an IndexedDB write begun
 * in pagehide may not finish before the page is gone, this one has.
 */
function snapshotStreaming(): void {
  if (!chat.streaming) return;
  const { conversation, answer } = chat.streaming;
  try {
    localStorage.setItem(
      snapshotSlot(conversation.id),
      JSON.stringify({ turnId: answer.id, text: answer.text, reasoning: answer.reasoning ?? '', toolCalls: answer.toolCalls }),
    );
  } catch {
    // No room: the last IndexedDB write (at most STREAM_SAVE_MS old) is what stays.
  }
}

/** The snapshot of an answer that was streaming when the page went away (removed once read). */
export function takeSnapshot(conversationId: string, turnId: string): Pick<Turn, 'text' | 'reasoning' | 'toolCalls'> | null {
  try {
    const raw = localStorage.getItem(snapshotSlot(conversationId));
    localStorage.removeItem(snapshotSlot(conversationId));
    const kept = raw ? (JSON.parse(raw) as { turnId: string; text: string; reasoning: string; toolCalls?: Turn['toolCalls'] }) : null;
    return kept && kept.turnId === turnId ? { text: kept.text, reasoning: kept.reasoning, ...(kept.toolCalls ? { toolCalls: kept.toolCalls } : {}) } : null;
  } catch {
    return null;
  }
}

/** Writes every pending change now: when the page is hidden or goes away, nothing typed or streamed is lost. */
function flushSaves(): void {
  if (chat.streaming && !saveTimers.has(chat.streaming.conversation.id)) save(chat.streaming.conversation);
  for (const conversation of chat.state.list) if (saveTimers.has(conversation.id)) save(conversation);
}
if (typeof window !== 'undefined') {
  window.addEventListener('pagehide', () => {
    chat.unloading = true;
    snapshotStreaming();
    flushSaves();
  });
  // Back from the back/forward cache: the page lives on.
  window.addEventListener('pageshow', () => void (chat.unloading = false));
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') flushSaves();
  });
}

export function newId(prefix: string): string {
  return `${prefix}_${crypto.randomUUID()}`;
}

export function current(): Conversation | null {
  return chat.state.list.find((c) => c.id === chat.state.currentId) ?? null;
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
  return chat.state;
}
