// One generation's web-llm chunk stream → EngineEvents: thinking split from the answer, logprobs kept with
// the answer's tokens, usage with reasoning tokens counted, web-llm's `abort` finish never passed on.
// web-llm holds its model lock until its stream has run to the end, so the stream is always drained, whether
// the consumer reads it to the end, stops early, or the client aborts.
import type { ChatCompletionChunk, ChatCompletionTokenLogprob } from '@mlc-ai/web-llm';
import type { EngineEvent } from '#shared/wire/engine-port';
import { ApiError, clientAborted } from '#shared/protocol/errors';
import type { EngineFinishReason, TokenLogprob, Usage } from '#shared/protocol/types';
import { generationError } from './errors';
import { StopMatcher } from '../common/stop-matcher';
import { ThinkSplitter } from './thinking';
import type { ParsedPiece, ToolCallStream, ToolFormat } from './tool-formats/registry';
import { toolCallId } from '#shared/protocol/completion';
import { spentUsage } from '../usage';

export interface RunOptions {
  /** The model thinks for this request: text inside `<think>` counts as reasoning tokens. */
  thinking: boolean;
  /** The model writes `<think>` blocks (Qwen3), so its text goes through the splitter. */
  splitThinking: boolean;
  /** Stop sequences inpage applies to the answer itself. */
  stops: readonly string[];
  /** Tools were offered in this format: the calls the answer writes in it become tool-call events. */
  toolFormat?: ToolFormat | null;
  /** Alternatives per token the client asked for (web-llm may have been asked for more); null: no logprobs. */
  topLogprobs?: number | null;
  /** web-llm was given (some of) them too: text held as a possible stop is released only if web-llm kept it. */
  nativeStops?: boolean;
  /**
   * The prompt's tokens as counted before generation (full conversation); else web-llm's prefill count. The
   * difference from web-llm's prefill count is what its KV cache served (`cached_tokens`).
   */
  promptTokens?: number;
  /** The reply web-llm holds once its stream has ended (MLCEngine.getMessage). */
  heldReply?(): Promise<string>;
  /**
   * Called once web-llm's stream has ended, before `settled`: the raw reply web-llm holds and the content the
   * client was given, when web-llm can continue the conversation (it ended "stop", not interrupted); else null.
   */
  turnEnded?(turn: { raw: string; content: string } | null): void;
  signal: AbortSignal;
  /** Stops web-llm's decoding (MLCEngine.interruptGenerate). */
  interrupt(): void;
  /** A failure that ended the run from outside (a lost GPU device), if any. */
  failure(): ApiError | null;
  /** Called once, when web-llm's stream has ended (so its lock is free). */
  settled(): void;
}

function toLogprob(entry: ChatCompletionTokenLogprob, alternatives: number): TokenLogprob {
  return {
    token: entry.token,
    logprob: entry.logprob,
    bytes: entry.bytes,
    top_logprobs: entry.top_logprobs.slice(0, alternatives).map((top) => ({ token: top.token, logprob: top.logprob, bytes: top.bytes })),
  };
}

type Delta = Extract<EngineEvent, { type: 'delta' }>;

/** Answer text → the text to stream and the tool-call events, through the parser when tools were offered. */
class Answer {
  private readonly parser: ToolCallStream | null;
  private readonly calls: { id: string; name: string; args: string }[] = [];
  constructor(private readonly format: ToolFormat | null) {
    this.parser = format ? format.parser() : null;
  }

  push(text: string): { text: string; events: EngineEvent[] } {
    return this.take(this.parser ? this.parser.push(text) : [{ type: 'text', text }]);
  }

  end(): { text: string; events: EngineEvent[] } {
    return this.take(this.parser?.end() ?? []);
  }

  get called(): boolean {
    return this.calls.length > 0;
  }

  /** The reply as a client sends it back (content, then its calls), as the translator renders it. */
  echo(content: string): string {
    if (!this.called || !this.format) return content;
    return this.format.assistantText(
      content,
      this.calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.args } })),
    );
  }

  private take(pieces: ParsedPiece[]): { text: string; events: EngineEvent[] } {
    let text = '';
    const events: EngineEvent[] = [];
    for (const piece of pieces) {
      if (piece.type === 'text') text += piece.text;
      else if (piece.type === 'call') {
        const id = toolCallId();
        this.calls[piece.index] = { id, name: piece.name, args: '' };
        events.push({ type: 'tool_call', index: piece.index, id, name: piece.name });
      } else {
        this.calls[piece.index]!.args += piece.arguments;
        events.push({ type: 'tool_arguments', index: piece.index, arguments: piece.arguments });
      }
    }
    return { text, events };
  }
}

export class WebLlmRun {
  private done = false;
  /** events() is reading: when the stream ends it settles the run itself, after asking what web-llm holds. */
  private reading = false;
  private ended = false;
  private reported = false;
  private first: IteratorResult<ChatCompletionChunk> | null = null;
  /** web-llm's decode steps seen (one token each), and the usage it reported, for `spent()`. */
  private steps = 0;
  private lastUsage: ChatCompletionChunk['usage'];
  private draining: Promise<void> | null = null;
  private readonly onAbort = () => {
    this.options.interrupt();
    void this.drain();
  };

  constructor(
    private readonly iterator: AsyncIterator<ChatCompletionChunk>,
    private readonly options: RunOptions,
  ) {
    options.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.report(null);
    this.options.signal.removeEventListener('abort', this.onAbort);
    this.options.settled();
  }

  private report(turn: { raw: string; content: string } | null): void {
    if (this.reported) return;
    this.reported = true;
    this.options.turnEnded?.(turn);
  }

  private async pull(): Promise<IteratorResult<ChatCompletionChunk>> {
    if (this.done) return { done: true, value: undefined };
    try {
      const result = await this.iterator.next();
      if (!result.done) {
        if (result.value.usage) this.lastUsage = result.value.usage;
        const choice = result.value.choices[0];
        if (choice && !choice.finish_reason) this.steps++;
      }
      if (result.done) {
        this.ended = true;
        if (!this.reading) this.finish();
      }
      return result;
    } catch (err) {
      this.finish();
      throw this.options.failure() ?? generationError(err);
    }
  }

  /**
   * Reads and discards the rest of the stream. The interrupt is raised again before every step: web-llm clears
   * it when a generation begins, so one raised just before would be lost.
   */
  drain(): Promise<void> {
    this.draining ??= (async () => {
      try {
        for (;;) {
          this.options.interrupt();
          if ((await this.pull()).done) break;
        }
      } catch {
        // the run is over either way
      }
    })();
    return this.draining;
  }

  /**
   * Pulls the first chunk, which web-llm produces once it has prefilled the prompt: errors about the prompt
   * (its own context check among them) surface here, before the caller commits to a 200.
   */
  async start(): Promise<void> {
    try {
      this.first = await this.pull();
    } catch (err) {
      throw err instanceof ApiError ? err : generationError(err);
    }
    if (this.options.signal.aborted) {
      await this.drain();
      throw clientAborted();
    }
  }

  async *events(): AsyncGenerator<EngineEvent> {
    const splitter = this.options.splitThinking ? new ThinkSplitter() : null;
    const stopper = new StopMatcher(this.options.stops);
    const answer = new Answer(this.options.toolFormat ?? null);
    const alternatives = this.options.topLogprobs ?? 0;
    let finishReason: string | null = null;
    let usage: ChatCompletionChunk['usage'];
    let reasoningTokens = 0;
    let pendingLogprobs: TokenLogprob[] = [];
    let given = '';
    this.reading = true;
    try {
      for (;;) {
        // After a stop sequence web-llm is interrupted before its next step; the rest is read only for its
        // usage (and to free its lock).
        if (stopper.matched) this.options.interrupt();
        const result = this.first ?? (await this.pull());
        this.first = null;
        if (result.done) break;
        const chunk = result.value;
        if (chunk.usage) usage = chunk.usage;
        const choice = chunk.choices[0];
        if (!choice || stopper.matched) continue;
        if (choice.finish_reason) finishReason = choice.finish_reason;
        if (choice.logprobs?.content && this.options.topLogprobs !== null) {
          pendingLogprobs.push(...choice.logprobs.content.map((entry) => toLogprob(entry, alternatives)));
        }
        const text = choice.delta.content ?? '';
        const split = splitter ? splitter.push(text) : { reasoning: '', content: text, thinking: false };
        if (split.thinking && this.options.thinking) reasoningTokens++;
        // Logprobs describe the answer only. With thinking switched off the chunk that carries the empty
        // thinking block also carries the first answer token, whose logprob this is: it is kept.
        if (split.thinking && this.options.thinking) pendingLogprobs = [];
        const parsed = answer.push(split.content);
        const content = stopper.push(parsed.text);
        given += content;
        const event: Delta = { type: 'delta' };
        if (split.reasoning) event.reasoning = split.reasoning;
        if (content) {
          event.content = content;
          if (pendingLogprobs.length > 0) event.logprobs = pendingLogprobs;
          pendingLogprobs = [];
        } else if (parsed.events.length > 0) pendingLogprobs = []; // a call's tokens: no content logprobs
        if (event.reasoning || event.content) yield event;
        yield* parsed.events;
      }
      // Ended from outside (a lost device, the client): whatever web-llm said last does not count.
      const failure = this.options.failure();
      if (failure) throw failure;
      if (this.options.signal.aborted) throw clientAborted();
      const rest = splitter?.end() ?? { reasoning: '', content: '' };
      const parsedRest = answer.push(rest.content);
      const ended = answer.end();
      let restContent = stopper.push(parsedRest.text + ended.text);
      const held = stopper.end();
      const raw = this.options.heldReply ? await this.options.heldReply().catch(() => null) : null;
      // A stop web-llm applied ends its reply before the match; text streamed as the start of it is dropped.
      if (held && !(this.options.nativeStops && raw !== null && finishReason === 'stop' && !raw.endsWith(held))) restContent += held;
      given += restContent;
      // web-llm continues a conversation whose reply ended "stop" (inpage's own stop interrupts it: "abort").
      const reusable = finishReason === 'stop' && !stopper.matched && raw !== null;
      this.report(reusable ? { raw, content: answer.echo(given) } : null);
      this.reading = false;
      this.finish();
      if (rest.reasoning || restContent) {
        const event: Delta = { type: 'delta' };
        if (rest.reasoning) event.reasoning = rest.reasoning;
        if (restContent) {
          event.content = restContent;
          if (pendingLogprobs.length > 0) event.logprobs = pendingLogprobs;
        }
        yield event;
      }
      yield* parsedRest.events;
      yield* ended.events;
      // A stop sequence of ours ended it: web-llm, interrupted, says `abort`.
      const reason = stopper.matched ? 'stop' : finishReason;
      const finish = this.finishReason(reason);
      // An answer that made calls ends with them (unless it was cut short).
      yield { type: 'finish', finish_reason: finish === 'stop' && answer.called ? 'tool_calls' : finish, usage: this.usage(usage, reasoningTokens) };
    } finally {
      this.reading = false;
      if (this.ended) this.finish();
      else if (!this.done) {
        this.options.interrupt();
        await this.drain();
      }
    }
  }

  private finishReason(reason: string | null): EngineFinishReason {
    if (reason === 'stop' || reason === 'length') return reason;
    const failure = this.options.failure();
    if (failure) throw failure;
    if (reason === 'abort') {
      if (this.options.signal.aborted) throw clientAborted();
      throw new ApiError('internal_error', 'web-llm interrupted the generation without being asked to.');
    }
    if (reason === 'tool_calls') return 'stop'; // web-llm's own tool calling (Hermes only) is never used
    throw new ApiError('internal_error', 'web-llm ended the stream without a finish reason.');
  }

  /**
   * What the run cost when it ended without its finish (aborted, failed): once web-llm has stopped, the prompt's
   * tokens and the tokens it generated (its own count when it reported usage, else one per decode step).
   */
  async spent(): Promise<Usage | null> {
    if (!this.done) {
      this.options.interrupt();
      await this.drain();
    }
    const prompt = this.options.promptTokens ?? this.lastUsage?.prompt_tokens;
    if (prompt === undefined) return null;
    const prefilled = this.lastUsage?.prompt_tokens ?? prompt;
    return spentUsage(prompt, this.lastUsage?.completion_tokens ?? this.steps, Math.max(0, prompt - prefilled));
  }

  private usage(usage: ChatCompletionChunk['usage'], reasoningTokens: number): Usage {
    if (!usage) throw new ApiError('internal_error', 'web-llm ended the stream without reporting usage.');
    const prompt = this.options.promptTokens ?? usage.prompt_tokens;
    const completion = usage.completion_tokens;
    // web-llm's prompt_tokens are the tokens it prefilled this turn; the rest of the prompt was in its KV cache.
    const cached = this.options.promptTokens !== undefined ? Math.max(0, prompt - usage.prompt_tokens) : 0;
    return {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: cached },
      completion_tokens_details: { reasoning_tokens: Math.min(reasoningTokens, completion) },
    };
  }
}
