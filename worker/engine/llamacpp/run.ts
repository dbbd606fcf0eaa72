// One generation's wllama chunk stream → EngineEvents. llama.cpp (llama-server's loop inside wllama) renders
// the chat template, splits thinking into `reasoning_content` and counts tokens; this adds what inpage does
// the same way on every engine: stop sequences on the answer only, reasoning tokens in usage, logprobs with
// the answer's tokens, and a prompt checked against the context before anything is sent.
import type { EngineEvent } from '#shared/wire/engine-port';
import { ApiError } from '#shared/protocol/errors';
import { toolCallId } from '#shared/protocol/completion';
import type { EngineFinishReason, TokenLogprob, Usage } from '#shared/protocol/types';
import { timingsOf } from '#shared/protocol/timings';
import { StopMatcher } from '../common/stop-matcher';
import { CALL_HEAD } from '../common/tool-call-head';
import { generationError } from './errors';
import { spentUsage } from '../usage';

/** The parts of a wllama chat-completion chunk this reads. */
export interface LlamaChunk {
  choices: {
    delta: {
      content?: string | null;
      reasoning_content?: string | null;
      tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[];
    };
    finish_reason: string | null;
    logprobs?: { content: LlamaLogprob[] | null } | null;
  }[];
  usage?: { prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens?: number } } | null;
  /** With `timings_per_token`: llama.cpp's running measures (tokens generated so far, the time they took, …). */
  timings?: { predicted_n?: number } & Record<string, unknown>;
  /** With `return_progress`: the prompt's size, before generation. */
  prompt_progress?: { total: number; cache: number; processed: number };
}

interface LlamaLogprob {
  token: string;
  logprob: number;
  bytes: number[] | null;
  top_logprobs?: { token: string; logprob: number; bytes: number[] | null }[];
}

export interface RunOptions {
  /** Stop sequences, applied here to the answer (llama.cpp would match them against the thinking too). */
  stops: readonly string[];
  /** The request's output limit, for the context check. */
  maxTokens: number | undefined;
  /** The loaded context size. */
  context: number;
  signal: AbortSignal;
  /** Ends llama.cpp's generation (aborts the wllama request). */
  interrupt(): void;
  /** Called once, when the wllama request has ended (so the model is free). */
  settled(): void;
  /** Alternatives per token the client asked for (translate.ts asks llama.cpp for at least one); null: no logprobs. */
  topLogprobs?: number | null;
  /** A forced tool choice: the answer is translate.ts's call object ({"name": …, "arguments": …}), one call. */
  forcedCall?: boolean;
  /** The text of the native exception llama.cpp logged for this request, if any (wllama keeps only a null result). */
  nativeError?: () => string | null;
}

/**
 * A forced choice's answer, held by its schema to {"name": …, "arguments": …} (translate.ts), as one tool call:
 * the call opens when the name is complete, and the arguments stream as they come, less the object's closing
 * brace (held back until more follows; dropped at a complete end, kept when max_tokens cut the call short).
 */
class ForcedCall {
  private text = '';
  private argumentsAt: number | null = null;
  private released = 0;

  get called(): boolean {
    return this.argumentsAt !== null;
  }

  push(content: string): EngineEvent[] {
    this.text += content;
    const events: EngineEvent[] = [];
    if (this.argumentsAt === null) {
      const head = CALL_HEAD.exec(this.text);
      if (!head) return events;
      this.argumentsAt = this.released = head[0].length;
      events.push({ type: 'tool_call', index: 0, id: toolCallId(), name: JSON.parse(head[1]!) as string });
    }
    const held = this.argumentsAt + /\}?\s*$/.exec(this.text.slice(this.argumentsAt))!.index;
    if (held > this.released) {
      events.push({ type: 'tool_arguments', index: 0, arguments: this.text.slice(this.released, held) });
      this.released = held;
    }
    return events;
  }

  /** The held-back end when the call was cut short (`cut`); nothing when the object closed. */
  end(cut: boolean): EngineEvent[] {
    const rest = this.text.slice(this.released);
    return cut && this.called && rest ? [{ type: 'tool_arguments', index: 0, arguments: rest }] : [];
  }
}

function toLogprob(entry: LlamaLogprob, alternatives: number): TokenLogprob {
  return {
    token: entry.token,
    logprob: entry.logprob,
    bytes: entry.bytes,
    top_logprobs: (entry.top_logprobs ?? []).slice(0, alternatives).map((top) => ({ token: top.token, logprob: top.logprob, bytes: top.bytes })),
  };
}

const isAbort = (err: unknown) => err instanceof Error && err.name === 'AbortError';

export class LlamaRun {
  private done = false;
  private promptTokens = 0;
  private generated = 0;
  /** Tokens generated when the first answer text came: what came before it was thinking. */
  private answerStartedAt: number | null = null;
  private sawReasoning = false;
  private usage: NonNullable<LlamaChunk['usage']> | null = null;
  /** llama.cpp's last timings, as it sent them: they go out with the finish, as llama-server sends them. */
  private lastTimings: LlamaChunk['timings'] | null = null;
  /** Prompt tokens llama.cpp found in its KV cache (the start of the last conversation). */
  private cachedTokens = 0;
  private finishReason: string | null = null;
  /** Whether llama.cpp sent anything yet (its first chunk is the prompt's progress, before any token). */
  private answered = false;
  private readonly matcher: StopMatcher;
  /** Leading newlines of the answer are llama.cpp's echo of the template's empty thinking block. */
  private answerBegun = false;
  private reasoningBegun = false;
  private readonly pending: LlamaChunk[] = [];
  /** llama.cpp's index of each tool call → its index in the answer. */
  private readonly calls = new Map<number, number>();
  private readonly forced: ForcedCall | null;
  /** Events of the forced call the last chunk's content carried. */
  private forcedEvents: EngineEvent[] = [];
  private readonly onAbort = () => this.options.interrupt();

  constructor(
    private readonly iterator: AsyncIterator<LlamaChunk>,
    private readonly options: RunOptions,
  ) {
    this.matcher = new StopMatcher(options.stops);
    this.forced = options.forcedCall ? new ForcedCall() : null;
    options.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.options.signal.removeEventListener('abort', this.onAbort);
    this.options.settled();
  }

  private async pull(): Promise<IteratorResult<LlamaChunk>> {
    if (this.done) return { done: true, value: undefined };
    try {
      const result = await this.iterator.next();
      if (result.done) this.finish();
      else this.count(result.value);
      return result;
    } catch (err) {
      this.finish();
      if (isAbort(err)) return { done: true, value: undefined };
      throw generationError(err, {
        logprobs: (this.options.topLogprobs ?? null) !== null,
        native: this.options.nativeError?.() ?? null,
        beforeFirstChunk: !this.answered,
      });
    }
  }

  /** Keeps the counts of every chunk llama.cpp sent, also those read only to end the request (for `spent`). */
  private count(chunk: LlamaChunk): void {
    this.answered = true;
    if (chunk.prompt_progress) {
      this.promptTokens = chunk.prompt_progress.total;
      this.cachedTokens = chunk.prompt_progress.cache;
    }
    if (chunk.timings?.predicted_n !== undefined) this.generated = Math.max(this.generated, chunk.timings.predicted_n);
    if (chunk.timings) this.lastTimings = chunk.timings;
    if (chunk.usage) this.usage = chunk.usage;
  }

  /**
   * What the run cost when it ended without its finish (aborted, failed): once llama.cpp has stopped, the
   * prompt's tokens and the tokens it generated (its usage when it sent one, else its running count).
   */
  async spent(): Promise<Usage | null> {
    if (!this.done) await this.stop().catch(() => undefined);
    const prompt = this.usage?.prompt_tokens ?? this.promptTokens;
    const completion = Math.max(this.usage?.completion_tokens ?? 0, this.generated);
    return spentUsage(prompt, completion, this.usage?.prompt_tokens_details?.cached_tokens ?? this.cachedTokens);
  }

  /** Ends the wllama request and waits until it has (the model is busy until then). */
  private async stop(): Promise<void> {
    this.options.interrupt();
    while (!this.done) await this.pull();
  }

  /**
   * Reads until the prompt's size is known (llama.cpp reports it before it evaluates the prompt) and checks
   * prompt plus requested output against the context; throws an ApiError before anything is sent.
   */
  async start(): Promise<void> {
    try {
      for (;;) {
        const next = await this.pull();
        if (next.done) return;
        const chunk = next.value;
        this.pending.push(chunk);
        // `count` has taken the prompt's size from this chunk.
        if (chunk.prompt_progress) {
          const completion = this.options.maxTokens ?? 0;
          if (this.promptTokens + completion > this.options.context) {
            await this.stop();
            throw new ApiError(
              'context_length_exceeded',
              `This model's maximum context length is ${this.options.context} tokens. However, you requested ${this.promptTokens + completion} tokens (${this.promptTokens} in the messages, ${completion} in the completion). Please reduce the length of the messages or completion.`,
              { param: 'messages' },
            );
          }
          return;
        }
        const delta = chunk.choices[0]?.delta;
        if (delta && (delta.content || delta.reasoning_content || delta.tool_calls?.length)) return;
      }
    } catch (err) {
      if (!this.done) await this.stop().catch(() => undefined);
      throw err;
    }
  }

  async *events(): AsyncGenerator<EngineEvent> {
    try {
      for (;;) {
        let chunk = this.pending.shift();
        if (!chunk) {
          if (this.options.signal.aborted) return;
          const next = await this.pull();
          if (next.done) break;
          chunk = next.value;
        }
        yield* this.take(chunk);
        if (this.matcher.matched) {
          await this.stop();
          break;
        }
      }
      if (this.options.signal.aborted) return;
      const rest = this.matcher.end();
      if (rest) yield { type: 'delta', content: rest };
      if (this.forced) yield* this.forced.end(this.finishReason === 'length');
      const finish: EngineEvent = { type: 'finish', finish_reason: this.finishReasonOf(), usage: this.usageOf() };
      const timings = timingsOf(this.lastTimings);
      if (timings) finish.timings = timings;
      yield finish;
    } finally {
      if (!this.done) await this.stop().catch(() => undefined);
    }
  }

  /** Folds one chunk in; returns the events it carries. */
  private take(chunk: LlamaChunk): EngineEvent[] {
    const events: EngineEvent[] = [];
    const delta = this.textOf(chunk);
    if (delta) events.push(delta);
    events.push(...this.forcedEvents.splice(0));
    for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
      // llama.cpp numbers its calls; inpage names them (OpenAI's id shape) the first time one appears.
      let index = this.calls.get(call.index);
      if (index === undefined) {
        index = this.calls.size;
        this.calls.set(call.index, index);
        events.push({ type: 'tool_call', index, id: toolCallId(), name: call.function?.name ?? '' });
      }
      if (call.function?.arguments) events.push({ type: 'tool_arguments', index, arguments: call.function.arguments });
    }
    return events;
  }

  /** One chunk's text as a delta event (its counts were taken by `count` when it was pulled). */
  private textOf(chunk: LlamaChunk): EngineEvent | null {
    const choice = chunk.choices[0];
    if (!choice) return null;
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    const event: EngineEvent & { type: 'delta' } = { type: 'delta' };
    let reasoning = choice.delta.reasoning_content ?? '';
    if (reasoning) this.sawReasoning = true;
    // Whitespace that opens the thinking is dropped, as on web-llm.
    if (reasoning && !this.reasoningBegun) {
      reasoning = reasoning.replace(/^\s+/, '');
      if (reasoning) this.reasoningBegun = true;
    }
    if (reasoning) event.reasoning = reasoning;
    let content = choice.delta.content ?? '';
    if (content && !this.answerBegun) {
      content = content.replace(/^\n+/, '');
      if (content) {
        this.answerBegun = true;
        this.answerStartedAt ??= this.generated;
      }
    }
    if (content && this.forced) {
      this.forcedEvents.push(...this.forced.push(content));
    } else if (content) {
      const released = this.matcher.push(content);
      if (released) event.content = released;
      const logprobs = choice.logprobs?.content;
      if (logprobs && logprobs.length > 0) event.logprobs = logprobs.map((entry) => toLogprob(entry, this.options.topLogprobs ?? 0));
    }
    return event.content !== undefined || event.reasoning !== undefined ? event : null;
  }

  private finishReasonOf(): EngineFinishReason {
    if (this.matcher.matched) return 'stop';
    if (this.finishReason === 'length') return 'length';
    return this.calls.size > 0 || this.forced?.called ? 'tool_calls' : 'stop';
  }

  private usageOf(): Usage {
    const completion = this.matcher.matched ? this.generated : (this.usage?.completion_tokens ?? this.generated);
    const prompt = this.usage?.prompt_tokens ?? this.promptTokens;
    // The token that began the answer is not thinking; every token before it was.
    const reasoning = !this.sawReasoning ? 0 : this.answerStartedAt === null ? completion : Math.max(0, this.answerStartedAt - 1);
    return {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: this.usage?.prompt_tokens_details?.cached_tokens ?? this.cachedTokens },
      completion_tokens_details: { reasoning_tokens: Math.min(reasoning, completion) },
    };
  }
}
