// Turns engine events into OpenAI objects: chunks for a stream, one chat.completion for JSON.
import { TextDelta, type EngineEvent } from '../wire/engine-port';
import type { ChatCompletion, ChatCompletionChunk, ChoiceLogprobs, ChunkDelta, EngineFinishReason, FinishReason, Timings, ToolCall, Usage } from './types';

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A tool call's id, as OpenAI makes them: `call_` and 24 letters and digits. Engines name their calls with it. */
export function toolCallId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return `call_${Array.from(bytes, (b) => ID_ALPHABET[b % ID_ALPHABET.length]).join('')}`;
}

/** The wire's finish reason: a request that used the legacy `functions` says `function_call` for tool calls. */
function wireFinish(reason: EngineFinishReason, legacyFunctions: boolean): FinishReason {
  return reason === 'tool_calls' && legacyFunctions ? 'function_call' : reason;
}

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

/** Builds the chunks of one streamed completion (docs/contract.md "Answers", streaming). */
export class ChunkWriter {
  private readonly meta: Meta;
  private readonly includeUsage: boolean;

  /** `legacyFunctions`: the request used `functions`, so calls stream as `delta.function_call`. */
  constructor(
    model: string,
    fingerprint: string,
    includeUsage: boolean,
    private readonly legacyFunctions = false,
  ) {
    this.meta = { id: completionId(), created: unixSeconds(), model, system_fingerprint: fingerprint };
    this.includeUsage = includeUsage;
    // The text of every chunk around its delta, as JSON.stringify writes `chunk()`'s object (same keys, same order).
    const head = JSON.stringify({ ...this.meta, object: 'chat.completion.chunk' });
    this.deltaHead = `data: ${head.slice(0, -1)},"choices":[{"index":0,"delta":`;
    this.deltaTail = `,"logprobs":null,"finish_reason":null}]${includeUsage ? ',"usage":null' : ''}}\n\n`;
  }

  private readonly deltaHead: string;
  private readonly deltaTail: string;

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

  /**
   * `next(event)` as server-sent-event text (`sseEvent` of each chunk, worker/sw/sse.ts). A text or reasoning delta without
   * logprobs, nearly every event of a stream, is written around its delta alone, not built as an object and
   * stringified whole: the same bytes, at a fraction of the cost per token. A TextDelta's JSON goes in as it
   * came from the engine worker, never parsed.
   */
  nextSse(event: EngineEvent): string {
    if (event instanceof TextDelta) return event.hasText ? `${this.deltaHead}{"content":${event.json}}${this.deltaTail}` : '';
    if (event.type === 'delta' && !event.logprobs) {
      const { content, reasoning } = event;
      if (reasoning) {
        const r = JSON.stringify(reasoning);
        const c = content ? `,"content":${JSON.stringify(content)}` : '';
        return `${this.deltaHead}{"reasoning_content":${r},"reasoning":${r}${c}}${this.deltaTail}`;
      }
      return content ? `${this.deltaHead}{"content":${JSON.stringify(content)}}${this.deltaTail}` : '';
    }
    let text = '';
    for (const chunk of this.next(event)) text += `data: ${JSON.stringify(chunk)}\n\n`;
    return text;
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
    if (event.type === 'tool_call') {
      // The first delta of a call names it; its arguments follow in later deltas.
      const delta: ChunkDelta = this.legacyFunctions
        ? { function_call: { name: event.name, arguments: '' } }
        : { tool_calls: [{ index: event.index, id: event.id, type: 'function', function: { name: event.name, arguments: '' } }] };
      return [this.chunk(delta, null)];
    }
    if (event.type === 'tool_arguments') {
      if (!event.arguments) return [];
      const delta: ChunkDelta = this.legacyFunctions
        ? { function_call: { arguments: event.arguments } }
        : { tool_calls: [{ index: event.index, function: { arguments: event.arguments } }] };
      return [this.chunk(delta, null)];
    }
    if (event.type === 'embedding') return []; // never part of a chat answer
    const last = this.chunk({}, wireFinish(event.finish_reason, this.legacyFunctions));
    // The engine's own timings ride on the finish chunk, where llama.cpp's server puts them.
    if (event.timings) last.timings = event.timings;
    const out = [last];
    if (this.includeUsage) {
      out.push({ ...this.meta, object: 'chat.completion.chunk', choices: [], usage: event.usage });
    }
    return out;
  }
}

/** Gathers engine events into one chat.completion (docs/contract.md "Answers", non-streaming). */
export class CompletionCollector {
  private content = '';
  private reasoning = '';
  private logprobs: NonNullable<ChoiceLogprobs['content']> | null = null;
  private readonly calls: ToolCall[] = [];
  private finish: { reason: EngineFinishReason; usage: Usage; timings?: Timings } | null = null;

  /** `legacyFunctions`: the request used `functions`, so the call is answered as `message.function_call`. */
  constructor(private readonly legacyFunctions = false) {}

  add(event: EngineEvent): void {
    if (event.type === 'finish') {
      this.finish = { reason: event.finish_reason, usage: event.usage, timings: event.timings };
      return;
    }
    if (event.type === 'tool_call') {
      this.calls[event.index] = { id: event.id, type: 'function', function: { name: event.name, arguments: '' } };
      return;
    }
    if (event.type === 'tool_arguments') {
      const call = this.calls[event.index];
      if (!call) throw new Error(`Arguments for tool call ${event.index}, which never began.`);
      call.function.arguments += event.arguments;
      return;
    }
    if (event.type === 'embedding') return; // never part of a chat answer
    if (event.content) this.content += event.content;
    if (event.reasoning) this.reasoning += event.reasoning;
    if (event.logprobs) (this.logprobs ??= []).push(...event.logprobs);
  }

  get finished(): boolean {
    return this.finish !== null;
  }

  build(model: string, fingerprint: string): ChatCompletion {
    if (!this.finish) throw new Error('The engine ended without a finish event.');
    const calls = this.calls.filter(Boolean);
    // An answer that is only tool calls has no content: null, as OpenAI sends it.
    const content = calls.length > 0 && !this.content ? null : this.content;
    const message: ChatCompletion['choices'][number]['message'] = { role: 'assistant', content, refusal: null };
    if (this.reasoning) {
      message.reasoning_content = this.reasoning;
      message.reasoning = this.reasoning;
    }
    if (calls.length > 0 && this.legacyFunctions) message.function_call = { ...calls[0]!.function };
    else if (calls.length > 0) message.tool_calls = calls;
    const completion: ChatCompletion = {
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
          finish_reason: wireFinish(this.finish.reason, this.legacyFunctions),
        },
      ],
      usage: this.finish.usage,
    };
    if (this.finish.timings) completion.timings = this.finish.timings;
    return completion;
  }
}
