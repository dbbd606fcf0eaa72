// Turns engine events into OpenAI objects: chunks for a stream, one chat.completion for JSON.
import type { EngineEvent } from '../engine-protocol';
import type { ChatCompletion, ChatCompletionChunk, ChoiceLogprobs, ChunkDelta, FinishReason, Usage } from './types';

export function completionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `chatcmpl-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export function unixSeconds(ms: number = Date.now()): number {
  return Math.floor(ms / 1000);
}

interface Meta {
  id: string;
  created: number;
  model: string;
  system_fingerprint: string;
}

/** Builds the chunks of one streamed completion (CONTRACT.md "Streaming"). */
export class ChunkWriter {
  private readonly meta: Meta;
  private readonly includeUsage: boolean;

  constructor(model: string, fingerprint: string, includeUsage: boolean) {
    this.meta = { id: completionId(), created: unixSeconds(), model, system_fingerprint: fingerprint };
    this.includeUsage = includeUsage;
  }

  private chunk(delta: ChunkDelta, finish: FinishReason | null, logprobs: ChoiceLogprobs | null = null): ChatCompletionChunk {
    const chunk: ChatCompletionChunk = {
      ...this.meta,
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta, logprobs, finish_reason: finish }],
    };
    if (this.includeUsage) chunk.usage = null;
    return chunk;
  }

  first(): ChatCompletionChunk {
    return this.chunk({ role: 'assistant', content: '' }, null);
  }

  /** The chunks for one engine event; empty deltas produce none. */
  next(event: EngineEvent): ChatCompletionChunk[] {
    if (event.type === 'delta') {
      const delta: ChunkDelta = {};
      if (event.reasoning) {
        delta.reasoning_content = event.reasoning;
        delta.reasoning = event.reasoning;
      }
      if (event.content) delta.content = event.content;
      if (!delta.content && !delta.reasoning_content) return [];
      const logprobs = event.logprobs ? { content: event.logprobs, refusal: null } : null;
      return [this.chunk(delta, null, logprobs)];
    }
    const out = [this.chunk({}, event.finish_reason)];
    if (this.includeUsage) {
      out.push({ ...this.meta, object: 'chat.completion.chunk', choices: [], usage: event.usage });
    }
    return out;
  }
}

/** Gathers engine events into one chat.completion (CONTRACT.md "Non-streaming"). */
export class CompletionCollector {
  private content = '';
  private reasoning = '';
  private logprobs: NonNullable<ChoiceLogprobs['content']> | null = null;
  private finish: { reason: FinishReason; usage: Usage } | null = null;

  add(event: EngineEvent): void {
    if (event.type === 'finish') {
      this.finish = { reason: event.finish_reason, usage: event.usage };
      return;
    }
    if (event.content) this.content += event.content;
    if (event.reasoning) this.reasoning += event.reasoning;
    if (event.logprobs) (this.logprobs ??= []).push(...event.logprobs);
  }

  get finished(): boolean {
    return this.finish !== null;
  }

  build(model: string, fingerprint: string): ChatCompletion {
    if (!this.finish) throw new Error('The engine ended without a finish event.');
    const message: ChatCompletion['choices'][number]['message'] = { role: 'assistant', content: this.content, refusal: null };
    if (this.reasoning) {
      message.reasoning_content = this.reasoning;
      message.reasoning = this.reasoning;
    }
    return {
      id: completionId(),
      object: 'chat.completion',
      created: unixSeconds(),
      model,
      system_fingerprint: fingerprint,
      choices: [
        {
          index: 0,
          message,
          logprobs: this.logprobs ? { content: this.logprobs, refusal: null } : null,
          finish_reason: this.finish.reason,
        },
      ],
      usage: this.finish.usage,
    };
  }
}
