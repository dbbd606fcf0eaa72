// How much of this device's context a chat takes, and what fits next (pure: the Playground's meter, the default
// max_tokens of a request, and the choice it offers when the next message would not fit). The tokens of the last
// answer's request come from its `usage` (exact); text the service has not counted yet is estimated, on the
// safe side.
import type { Conversation, Turn } from './conversation-db';
import { documentsText, withDocuments } from './documents';

/** Characters per token for text not yet counted: fewer than any of the models' tokenizers average, so an estimate errs high. */
const CHARS_PER_TOKEN = 3;
/** Tokens an attached image is counted at until the model has counted it (svc-vision's image budget, rounded up). */
export const IMAGE_TOKENS = 1024;
/** Tokens a message costs beyond its text (the chat template's role markers), estimated. */
const MESSAGE_OVERHEAD_TOKENS = 8;
/**
 * The least room an answer needs: a next message that leaves less than this (or than the chat's own
 * max_tokens) does not fit, and the Playground offers the choice instead of sending.
 */
export const MIN_ANSWER_TOKENS = 256;
/** The longest summary asked for when a chat continues in a new one. */
export const SUMMARY_MAX_TOKENS = 512;

function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD_TOKENS;
}

/**
 * Tokens the chat template adds around the whole prompt beyond each message's own (the answer's opening, an empty
 * thinking block), for the bound below.
 */
const PROMPT_RESERVE_TOKENS = 32;

/**
 * At most how many tokens a text not counted yet can take: no more than its UTF-8 bytes (every token of a
 * byte-level tokenizer is at least one byte; a word-level one gives fewer still), plus its message's overhead.
 * Used for the max_tokens the Playground sends, so its default is never refused.
 */
function boundTokens(text: string): number {
  return new TextEncoder().encode(text).length + MESSAGE_OVERHEAD_TOKENS;
}

/** Where the turns sent begin: after the last note that dropped the older ones (0: all of them). */
export function sentFrom(turns: readonly Turn[]): number {
  for (let i = turns.length - 1; i >= 0; i--) if (turns[i]!.role === 'note' && turns[i]!.cut) return i + 1;
  return 0;
}

/** The id of the cut in force (the last note that dropped turns), or null. */
export function cutInForce(turns: readonly Turn[]): string | null {
  const from = sentFrom(turns);
  return from > 0 ? turns[from - 1]!.id : null;
}

function turnTokens(turn: Turn, count: (text: string) => number = estimateTokens): number {
  if (turn.role === 'note') return 0;
  // An answer its usage counted: its tokens, less the thinking (which is not sent back).
  const s = turn.stats;
  if (turn.role === 'assistant' && s?.exact && !turn.toolCalls?.length) return s.tokens - (s.reasoningTokens ?? 0) + MESSAGE_OVERHEAD_TOKENS;
  const calls = (turn.toolCalls ?? []).map((c) => c.name + c.arguments).join('');
  return count(withDocuments(turn.text, turn.documents) + calls) + (turn.image ? IMAGE_TOKENS : 0);
}

/**
 * The tokens the chat's messages take now: the last answer's request and answer as its `usage` counted them
 * (when it was asked with the same turns dropped as now), plus the turns after it, estimated.
 */
export function contextUsed(
  conversation: Pick<Conversation, 'system' | 'turns'>,
  count: (text: string) => number = estimateTokens,
): { tokens: number; exact: boolean } {
  const { turns } = conversation;
  const from = sentFrom(turns);
  const cut = cutInForce(turns);
  for (let i = turns.length - 1; i >= from; i--) {
    const s = turns[i]!.stats;
    if (turns[i]!.role === 'assistant' && s?.promptTokens != null && (s.cut ?? null) === cut) {
      const after = turns.slice(i + 1).reduce((sum, t) => sum + turnTokens(t, count), 0);
      return { tokens: s.promptTokens + s.tokens + after, exact: after === 0 };
    }
  }
  const system = conversation.system.trim() ? count(conversation.system) : 0;
  return { tokens: system + turns.slice(from).reduce((sum, t) => sum + turnTokens(t, count), 0), exact: false };
}

interface Fit {
  /** The tokens the next request's messages take (estimated where not yet counted). */
  needed: number;
  /** What is left of the context for the answer. */
  room: number;
  /** Whether the answer has room: at least the chat's max_tokens, or MIN_ANSWER_TOKENS without one. */
  fits: boolean;
  /**
   * The max_tokens to send when the chat sets none: the room left after the most the prompt can take (its
   * counted tokens, and an upper bound for the text not counted yet), so the service never refuses it. When that
   * bound leaves less than MIN_ANSWER_TOKENS (a long text just pasted), the estimated room: should the service count
   * more, its refusal names the prompt's size and the request is asked once more (chat-run.ts).
   */
  maxTokens: number;
  /** Whether the chat's own Max tokens is what does not fit: the room is short of it, but not of MIN_ANSWER_TOKENS. */
  maxTokensTooHigh: boolean;
}

/** The draft's attached documents, counted as the draft's text is, estimated (0 without any). */
export function draftDocumentTokens(conversation: Pick<Conversation, 'draftDocuments'>, count: (text: string) => number = estimateTokens): number {
  const text = documentsText(conversation.draftDocuments);
  return text ? count(text) : 0;
}

/**
 * Whether the next message (`draft`, with an image attached when `draftImage`, and the draft's documents) fits
 * a context of `contextLength` tokens, and the answer's room.
 */
export function nextFit(
  conversation: Pick<Conversation, 'system' | 'turns' | 'params' | 'draftDocuments'>,
  draft: string,
  contextLength: number,
  draftImage = false,
): Fit {
  const image = draftImage ? IMAGE_TOKENS : 0;
  const needed = contextUsed(conversation).tokens + (draft ? estimateTokens(draft) : 0) + image + draftDocumentTokens(conversation, estimateTokens);
  const room = contextLength - needed;
  const own = conversation.params.max_tokens;
  const wanted = own ?? MIN_ANSWER_TOKENS;
  const most =
    contextUsed(conversation, boundTokens).tokens +
    (draft ? boundTokens(draft) : 0) +
    image +
    draftDocumentTokens(conversation, boundTokens) +
    PROMPT_RESERVE_TOKENS;
  const safeRoom = contextLength - most;
  return {
    needed,
    room,
    fits: room >= wanted,
    maxTokens: safeRoom >= MIN_ANSWER_TOKENS ? safeRoom : Math.max(1, room),
    maxTokensTooHigh: own !== null && room < own && room >= MIN_ANSWER_TOKENS,
  };
}

/**
 * How many of the oldest turns (whole exchanges: up to the next message of the person) must be left out for the
 * next message to fit, the system prompt always kept; null when even leaving out every turn leaves no room.
 */
export function turnsToDrop(
  conversation: Pick<Conversation, 'system' | 'turns' | 'params' | 'draftDocuments'>,
  draft: string,
  contextLength: number,
): number | null {
  const { turns } = conversation;
  const from = sentFrom(turns);
  const wanted = conversation.params.max_tokens ?? MIN_ANSWER_TOKENS;
  const system = conversation.system.trim() ? estimateTokens(conversation.system) : 0;
  const draftTokens = (draft ? estimateTokens(draft) : 0) + draftDocumentTokens(conversation, estimateTokens);
  for (let at = from + 1; at <= turns.length; at++) {
    // Only cut before a message of the person (an answer never loses its question).
    if (at < turns.length && turns[at]!.role !== 'user') continue;
    const kept = turns.slice(at).reduce((sum, t) => sum + turnTokens(t), 0);
    if (contextLength - (system + kept + draftTokens) >= wanted) return at - from;
  }
  return null;
}

/**
 * The room for an answer from a context_length_exceeded error (its message names the prompt's tokens: "(N in
 * the messages" or "(N in the prompt"); null when it names none, undefined when there is no room at all. The
 * context is the one the message names where it names one ("maximum context length is N tokens", as OpenAI, vLLM
 * and an upstream's llama.cpp say it): an upstream's may be smaller than the one listed for the id.
 */
export function roomFrom(message: string, context: number): number | null | undefined {
  const prompt = /\((\d+) in the (?:messages|prompt)/.exec(message)?.[1];
  if (prompt === undefined) return null;
  const named = /maximum context length is (\d+) tokens/.exec(message)?.[1];
  const room = Math.min(context, named === undefined ? context : Number(named)) - Number(prompt);
  return room >= 1 ? room : undefined;
}
