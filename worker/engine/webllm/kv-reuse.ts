// KV-cache reuse across the turns of a conversation. web-llm 0.2.86 keeps its KV cache for a new request only
// when the request's earlier messages equal the conversation it holds and its last reply ended "stop"
// (MLCEngine.preparePrefillInput / compareConversationObject); otherwise it resets and prefills everything.
// It holds each reply as generated: Qwen3's thinking block (or the empty one web-llm puts first when thinking
// is off) included, cut where a stop sequence of its own matched. Clients send back only the `content` they
// were given, so the histories never match by themselves.
//
// This module remembers, for the loaded model, the conversation web-llm holds after the last turn twice: as
// web-llm holds it (`sent`, with the raw replies) and as the client saw it (`seen`, with the content it was
// given). A request whose history is `seen` plus one new message continues that conversation: web-llm gets
// `sent` plus the new message, so it keeps its cache and prefills only the new turn. Any other request is sent
// as the client wrote it (earlier thinking dropped, as Qwen3's own template does), and web-llm resets.
import type { ChatCompletionContentPart, ChatCompletionMessageParam } from '@mlc-ai/web-llm';
import { EMPTY_THINK_BLOCK } from './models';

type Message = ChatCompletionMessageParam;

interface Held {
  modelId: string;
  /** The conversation as web-llm holds it: the messages it was sent, then its raw reply. */
  sent: Message[];
  /** The same conversation as the client sees it: its messages, then the content it was given. */
  seen: Message[];
}

function sameContent(a: Message['content'], b: Message['content']): boolean {
  if (typeof a === 'string' || typeof b === 'string' || a == null || b == null) return a === b;
  if (a.length !== b.length) return false;
  return a.every((part, i) => samePart(part as ChatCompletionContentPart, b[i] as ChatCompletionContentPart));
}

function samePart(a: ChatCompletionContentPart, b: ChatCompletionContentPart): boolean {
  if (a.type === 'text' && b.type === 'text') return a.text === b.text;
  if (a.type === 'image_url' && b.type === 'image_url') return a.image_url.url === b.image_url.url && a.image_url.detail === b.image_url.detail;
  return false;
}

/** Whether two web-llm messages render the same (role, name, content): what compareConversationObject checks. */
export function sameMessage(a: Message, b: Message): boolean {
  const nameA = 'name' in a ? a.name : undefined;
  const nameB = 'name' in b ? b.name : undefined;
  return a.role === b.role && nameA === nameB && sameContent(a.content, b.content);
}

export interface Plan {
  /** What to send web-llm. */
  messages: Message[];
  /** The request continues the conversation web-llm holds (its earlier replies replaced by the raw ones). */
  continues: boolean;
}

export class KvMemory {
  private held: Held | null = null;

  /**
   * The messages to send for a request to `modelId` whose translated messages are `messages`: when they are
   * the conversation web-llm holds (as the client saw it) plus one new message, that conversation as web-llm
   * holds it plus the new message; else `messages` as they are.
   */
  plan(modelId: string, messages: readonly Message[]): Plan {
    const held = this.held;
    if (!held || held.modelId !== modelId || messages.length !== held.seen.length + 1) return { messages: [...messages], continues: false };
    for (let i = 0; i < held.seen.length; i++) {
      if (!sameMessage(held.seen[i]!, messages[i]!)) return { messages: [...messages], continues: false };
    }
    return { messages: [...held.sent, messages.at(-1)!], continues: true };
  }

  /**
   * After a turn web-llm can continue (its reply ended "stop"): `sent` and `seen` are the request's messages as
   * sent to web-llm and as the client wrote them; `raw` is the reply web-llm holds, `content` the text the
   * client was given.
   */
  remember(modelId: string, turn: { sent: readonly Message[]; seen: readonly Message[]; raw: string; content: string }): void {
    this.held = {
      modelId,
      sent: [...turn.sent, { role: 'assistant', content: turn.raw }],
      seen: [...turn.seen, { role: 'assistant', content: turn.content }],
    };
  }

  /** web-llm will not (or may not) continue what it holds: a reload, a failure, an interrupted reply. */
  forget(): void {
    this.held = null;
  }
}

/**
 * The stop sequences web-llm may apply itself to a Qwen3 answer without thinking: web-llm matches `stop`
 * against its whole output, which begins with the empty thinking block, so a sequence is safe only when no
 * match can begin inside that block. When the model thinks, none is safe (the thinking is free text).
 * A stop web-llm applies ends the reply "stop", which keeps the KV cache; one inpage applies interrupts
 * web-llm ("abort"), and web-llm resets on the next request.
 */
export function nativeStops(stops: readonly string[], thinking: boolean): string[] {
  if (thinking) return [];
  return stops.filter((stop) => !canBeginInside(EMPTY_THINK_BLOCK, stop));
}

/** Whether a match of `stop` in `prefix + anything` can begin inside `prefix`. */
function canBeginInside(prefix: string, stop: string): boolean {
  for (let at = 0; at < prefix.length; at++) {
    const rest = prefix.slice(at);
    if (stop.length <= rest.length ? rest.startsWith(stop) : stop.startsWith(rest)) return true;
  }
  return false;
}
