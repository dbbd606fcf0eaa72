// One generation's web-llm chunk stream → EngineEvents: thinking split from the answer, logprobs kept with
// the answer's tokens, usage with reasoning tokens counted, web-llm's `abort` finish never passed on.
// web-llm holds its model lock until its stream has run to the end, so the stream is always drained, whether
// the consumer reads it to the end, stops early, or the client aborts.
import type { ChatCompletionChunk, ChatCompletionTokenLogprob } from '@mlc-ai/web-llm';
import type { EngineEvent } from '../../../src/engine-protocol';
import { ApiError, clientAborted } from '../../../src/protocol/errors';
import type { EngineFinishReason, TokenLogprob, Usage } from '../../../src/protocol/types';
import { generationError } from './errors';
import { StopMatcher } from './stop-matcher';
import { ThinkSplitter } from './thinking';

export interface RunOptions {
  /** The model thinks for this request: text inside `<think>` counts as reasoning tokens. */
  thinking: boolean;
  /** The model writes `<think>` blocks (Qwen3), so its text goes through the splitter. */
  splitThinking: boolean;
  /** Stop sequences inpage applies to the answer itself. */
  stops: readonly string[];
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

function toLogprob(entry: ChatCompletionTokenLogprob): TokenLogprob {
  return {
    token: entry.token,
    logprob: entry.logprob,
    bytes: entry.bytes,
    top_logprobs: entry.top_logprobs.map((top) => ({ token: top.token, logprob: top.logprob, bytes: top.bytes })),
  };
}

export class WebLlmRun {
  private done = false;
  /** events() is reading: when the stream ends it settles the run itself, after asking what web-llm holds. */
  private reading = false;
  private ended = false;
  private reported = false;
  private first: IteratorResult<ChatCompletionChunk> | null = null;
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
        if (choice.logprobs?.content) pendingLogprobs.push(...choice.logprobs.content.map(toLogprob));
        const text = choice.delta.content ?? '';
        const split = splitter ? splitter.push(text) : { reasoning: '', content: text, thinking: false };
        if (split.thinking && this.options.thinking) reasoningTokens++;
        if (split.thinking) pendingLogprobs = []; // logprobs describe the answer only
        const content = stopper.push(split.content);
        given += content;
        const event: Extract<EngineEvent, { type: 'delta' }> = { type: 'delta' };
        if (split.reasoning) event.reasoning = split.reasoning;
        if (content) {
          event.content = content;
          if (pendingLogprobs.length > 0) event.logprobs = pendingLogprobs;
          pendingLogprobs = [];
        }
        if (event.reasoning || event.content) yield event;
      }
      // Ended from outside (a lost device, the client): whatever web-llm said last does not count.
      const failure = this.options.failure();
      if (failure) throw failure;
      if (this.options.signal.aborted) throw clientAborted();
      const rest = splitter?.end() ?? { reasoning: '', content: '' };
      let restContent = stopper.push(rest.content);
      const held = stopper.end();
      const raw = this.options.heldReply ? await this.options.heldReply().catch(() => null) : null;
      // A stop web-llm applied ends its reply before the match; text streamed as the start of it is dropped.
      if (held && !(this.options.nativeStops && raw !== null && finishReason === 'stop' && !raw.endsWith(held))) restContent += held;
      given += restContent;
      // web-llm continues a conversation whose reply ended "stop" (inpage's own stop interrupts it: "abort").
      const reusable = finishReason === 'stop' && !stopper.matched && raw !== null;
      this.report(reusable ? { raw, content: given } : null);
      this.reading = false;
      this.finish();
      if (rest.reasoning || restContent) {
        const event: Extract<EngineEvent, { type: 'delta' }> = { type: 'delta' };
        if (rest.reasoning) event.reasoning = rest.reasoning;
        if (restContent) {
          event.content = restContent;
          if (pendingLogprobs.length > 0) event.logprobs = pendingLogprobs;
        }
        yield event;
      }
      // A stop sequence of ours ended it: web-llm, interrupted, says `abort`.
      const reason = stopper.matched ? 'stop' : finishReason;
      yield { type: 'finish', finish_reason: this.finishReason(reason), usage: this.usage(usage, reasoningTokens) };
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
    if (reason === 'tool_calls') return 'stop'; // never requested: inpage passes no tools
    throw new ApiError('internal_error', 'web-llm ended the stream without a finish reason.');
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
