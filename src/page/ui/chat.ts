// The playground's conversation: sends it to /v1/chat/completions as a stream, keeps the turns, measures speed.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ChatMessage, ContentPart, FinishReason } from '../../protocol/types';
import { ApiCallError, streamChat } from './api';

export interface TurnStats {
  /** Completion tokens (reasoning included): from `usage`, or counted deltas when the answer was stopped. */
  tokens: number;
  exact: boolean;
  tokensPerSecond: number | null;
  /** Milliseconds from sending to the first token. */
  firstTokenMs: number | null;
  finish: FinishReason | null;
}

export interface Turn {
  id: number;
  role: 'user' | 'assistant';
  text: string;
  /** A data: URL the person attached (user turns, svc-vision). */
  image?: string;
  reasoning?: string;
  model?: string;
  status?: 'streaming' | 'done' | 'stopped' | 'failed';
  error?: string;
  stats?: TurnStats;
}

export interface SendOptions {
  key: string;
  model: string;
  system: string;
  text: string;
  image?: string;
}

/** How often the screen follows a fast stream; the text itself is never dropped. */
const PAINT_MS = 40;

function toMessages(system: string, turns: readonly Turn[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (system.trim()) messages.push({ role: 'system', content: system });
  for (const turn of turns) {
    if (turn.role === 'user') {
      const content: string | ContentPart[] = turn.image
        ? [
            { type: 'text', text: turn.text },
            { type: 'image_url', image_url: { url: turn.image } },
          ]
        : turn.text;
      messages.push({ role: 'user', content });
    } else if (turn.status !== 'failed' && turn.text) {
      messages.push({ role: 'assistant', content: turn.text });
    }
  }
  return messages;
}

function describe(err: unknown): string {
  if (err instanceof ApiCallError) {
    const code = err.code ? ` ${err.code}` : '';
    return `${err.status}${code}: ${err.message}`;
  }
  return err instanceof Error ? err.message : String(err);
}

export function useChat(onAnswered: (error: ApiCallError | null) => void) {
  const turns = useRef<Turn[]>([]);
  const controller = useRef<AbortController | null>(null);
  const [, setTick] = useState(0);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const nextId = useRef(1);

  const paintNow = () => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
    setTick((t) => t + 1);
  };
  const paintSoon = () => {
    timer.current ??= setTimeout(paintNow, PAINT_MS);
  };
  useEffect(
    () => () => {
      controller.current?.abort();
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  const send = async (options: SendOptions) => {
    if (controller.current) return;
    const history = turns.current.filter((t) => t.status !== 'streaming');
    const user: Turn = { id: nextId.current++, role: 'user', text: options.text, image: options.image };
    const answer: Turn = { id: nextId.current++, role: 'assistant', text: '', reasoning: '', model: options.model, status: 'streaming' };
    turns.current = [...history, user, answer];
    const messages = toMessages(options.system, [...history, user]);
    const abort = new AbortController();
    controller.current = abort;
    paintNow();

    const started = performance.now();
    let firstAt: number | null = null;
    let deltas = 0;
    let usageTokens: number | null = null;
    let finish: FinishReason | null = null;
    let failure: ApiCallError | null = null;
    try {
      for await (const chunk of streamChat(options.key, { model: options.model, messages }, abort.signal)) {
        if (chunk.usage) usageTokens = chunk.usage.completion_tokens;
        const choice = chunk.choices[0];
        if (!choice) continue;
        const { content, reasoning_content: reasoning } = choice.delta;
        if (content || reasoning) {
          firstAt ??= performance.now();
          deltas++;
          if (content) answer.text += content;
          if (reasoning) answer.reasoning += reasoning;
          paintSoon();
        }
        if (choice.finish_reason) finish = choice.finish_reason;
      }
      answer.status = 'done';
    } catch (err) {
      if (abort.signal.aborted) {
        answer.status = 'stopped';
      } else {
        answer.status = 'failed';
        answer.error = describe(err);
        if (err instanceof ApiCallError) failure = err;
      }
    } finally {
      controller.current = null;
    }
    const endedAt = performance.now();
    const tokens = usageTokens ?? deltas;
    const span = firstAt !== null ? (endedAt - firstAt) / 1000 : 0;
    if (answer.status !== 'failed') {
      answer.stats = {
        tokens,
        exact: usageTokens !== null,
        tokensPerSecond: tokens > 0 && span > 0 ? tokens / span : null,
        firstTokenMs: firstAt !== null ? firstAt - started : null,
        finish,
      };
    }
    paintNow();
    onAnswered(failure);
  };

  return {
    turns: turns.current,
    busy: controller.current !== null,
    send,
    stop: () => controller.current?.abort(),
    clear: () => {
      controller.current?.abort();
      turns.current = [];
      paintNow();
    },
  };
}
