// The upstream's answer, read: its HTTP errors as inpage's (docs/contract.md), its SSE stream (or a JSON body from a
// server that does not stream) as engine events. Anything it sends that cannot be read is an ApiError
// (`upstream_error`), never a crash: before the first token the composite may fall over, after it the answer carries
// it in-band as every late failure does.
import { ApiError, type ErrorCode } from '#shared/protocol/errors';
import { toolCallId } from '#shared/protocol/completion';
import { timingsOf } from '#shared/protocol/timings';
import type { EngineEvent } from '#shared/wire/engine-port';
import type { ChoiceLogprobs, EngineFinishReason, Timings, Usage } from '#shared/protocol/types';
import type { UpstreamBounds } from '#shared/upstreams';
import { redactSecrets } from '#shared/secrets';
import { SSE_DONE } from '#shared/protocol/sse-reader';
import { readCapped } from './read-capped';

/** The upstream as messages name it: `'gpu-box' (llm.example.com)`. */
export function describeUpstream(name: string, url: string): string {
  let host = url;
  try {
    host = new URL(url).host;
  } catch {
    // kept as given
  }
  return `'${name}' (${host})`;
}

/** An error body's message, from the shapes servers send: OpenAI's `{error:{message}}`, `{error:"…"}`, FastAPI's `{detail}`, or text. */
export function errorMessageOf(text: string): string {
  const trimmed = text.trim();
  try {
    const body = JSON.parse(trimmed) as Record<string, unknown>;
    const error = body?.error;
    if (typeof error === 'string') return error;
    if (error && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string') return (error as { message: string }).message;
    if (typeof body?.message === 'string') return body.message;
    if (typeof body?.detail === 'string') return body.detail;
    if (body?.detail !== undefined) return JSON.stringify(body.detail).slice(0, 500);
  } catch {
    // not JSON: the text itself
  }
  return trimmed || '(no message)';
}

function errorFieldsOf(text: string): { code?: string; param?: string } {
  try {
    const error = (JSON.parse(text) as { error?: { code?: unknown; param?: unknown } })?.error;
    if (!error || typeof error !== 'object') return {};
    return { ...(typeof error.code === 'string' ? { code: error.code } : {}), ...(typeof error.param === 'string' ? { param: error.param } : {}) };
  } catch {
    return {};
  }
}

/** Codes of inpage's catalogue an upstream may send back as they are (the request's own faults). */
const PASSED_CODES: Partial<Record<ErrorCode, number>> = {
  context_length_exceeded: 400,
  unsupported_parameter: 400,
  invalid_value: 400,
  invalid_type: 400,
  missing_required_parameter: 400,
};
function knownCode(code: string, status: number): ErrorCode | null {
  return PASSED_CODES[code as ErrorCode] === status ? (code as ErrorCode) : null;
}

/** The most of an upstream's message passed on to the caller, in characters. */
const MESSAGE_CHARS = 2000;

/**
 * The upstream's message as the caller may read it: at most MESSAGE_CHARS, with the connection's key and anything
 * shaped like a key or an Authorization value redacted (src/shared/secrets.ts): a gateway may echo the key it was sent.
 */
export function callerMessage(message: string, key?: string): string {
  return redactSecrets(message, key).slice(0, MESSAGE_CHARS);
}

/** An upstream's HTTP error as inpage's error (docs/hybrid.md "Errors"); at most `maxErrorBytes` of its body is read. */
export async function httpError(res: Response, who: string, bounds: Pick<UpstreamBounds, 'maxErrorBytes'> & { key?: string }): Promise<ApiError> {
  let text = '';
  try {
    text = await readCapped(res, bounds.maxErrorBytes, 'cut', who, 'maxErrorBytes');
  } catch {
    // the body broke off: the status says enough
  }
  const message = callerMessage(errorMessageOf(text), bounds.key);
  const status = res.status;
  if (status === 401 || status === 403) {
    return new ApiError(
      'upstream_unavailable',
      `The upstream ${who} refused inpage's credentials (HTTP ${status}: ${message}). This is a configuration error of the deployment or of the connection, not of your API key.`,
    );
  }
  if (status === 429) {
    const retry = Number(res.headers.get('retry-after'));
    return new ApiError('queue_full', `The upstream ${who} is busy (HTTP 429: ${message}).`, {
      retryAfter: Number.isFinite(retry) && retry > 0 ? Math.ceil(retry) : 1,
    });
  }
  if (status >= 400 && status < 500) {
    // An OpenAI-shaped refusal with one of inpage's own codes at the same status keeps its code and param.
    const { code, param } = errorFieldsOf(text);
    const known = code ? knownCode(code, status) : null;
    const said = `The upstream ${who} refused the request (HTTP ${status}): ${message}`;
    if (known) return new ApiError(known, said, { param: param ?? null });
    return new ApiError('upstream_rejected', said, { status, param: param ?? null });
  }
  return new ApiError('upstream_error', `The upstream ${who} failed (HTTP ${status}): ${message}`);
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
/**
 * The largest token count read from an upstream's usage: no model's context is near it, and the usage book's sums
 * stay exact (below 2^53) for over four million such answers. A count that is not a whole number from 0 to this
 * (1e308, -1, 2.5, "7") is disregarded: inpage counts that figure itself, as for a server that reports no usage.
 */
export const MAX_USAGE_COUNT = 2 ** 31 - 1;
export const usageCount = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= MAX_USAGE_COUNT ? v : undefined;

/** What a ChunkReader holds an answer to (src/shared/upstreams.ts `UPSTREAM_BOUNDS`). */
export interface ReaderOptions extends Pick<UpstreamBounds, 'maxToolCalls' | 'maxToolArgumentBytes'> {
  /** The connection's key: redacted from anything of the upstream's passed on. */
  key?: string;
  /** Whether the answer ends with `data: [DONE]` (a stream, every dialect sends it); a JSON body does not. */
  expectDone: boolean;
}

const utf8 = new TextEncoder();

/**
 * Turns the upstream's chunks (or one chat.completion) into engine events: reasoning from `reasoning` (current vLLM,
 * Ollama) or `reasoning_content` (older vLLM, llama-server); tool calls whether streamed in pieces (vLLM,
 * llama-server) or whole in one delta (Ollama); usage wherever it comes (a usage chunk, or none at all: then
 * counted here); llama-server's `timings`.
 */
export class ChunkReader {
  private readonly calls = new Map<string, number>();
  private nextCall = 0;
  private finishReason: EngineFinishReason | null = null;
  private usage: Json | null = null;
  private timings: Timings | null = null;
  private contentPieces = 0;
  private reasoningPieces = 0;
  private sawToolCall = false;
  private sawDone = false;
  /** Bytes of each call's arguments so far, by index. */
  private readonly argumentBytes = new Map<number, number>();
  /** Whether anything of the answer (text, reasoning, a call) has been read. */
  began = false;

  constructor(
    private readonly who: string,
    /** An estimate of the prompt's tokens for a server that reports no usage. */
    private readonly promptEstimate: number,
    private readonly options: ReaderOptions,
  ) {}

  private bad(what: string): ApiError {
    return new ApiError('upstream_error', `The upstream ${this.who} sent ${what}.`);
  }

  /** One SSE payload (`SSE_DONE` for `data: [DONE]`), or a whole JSON body. */
  chunk(payload: string): EngineEvent[] {
    if (payload === SSE_DONE) {
      this.sawDone = true;
      return [];
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch {
      throw this.bad(`a stream event that is not JSON (${JSON.stringify(callerMessage(payload.slice(0, 80), this.options.key))})`);
    }
    if (!isObject(parsed)) throw this.bad('a stream event that is not an object');
    if (parsed.error !== undefined)
      throw new ApiError(
        'upstream_error',
        `The upstream ${this.who} failed mid-answer: ${callerMessage(errorMessageOf(JSON.stringify(parsed)), this.options.key)}`,
      );
    if (isObject(parsed.usage)) this.usage = parsed.usage;
    this.timings = timingsOf(parsed.timings) ?? this.timings;
    const choices = parsed.choices;
    if (choices === undefined || choices === null) return [];
    if (!Array.isArray(choices)) throw this.bad("a chunk whose 'choices' is not a list");
    const out: EngineEvent[] = [];
    for (const choice of choices) {
      if (!isObject(choice)) throw this.bad('a choice that is not an object');
      if ((choice.index ?? 0) !== 0) continue;
      const delta = isObject(choice.delta) ? choice.delta : isObject(choice.message) ? choice.message : null;
      if (delta) out.push(...this.delta(delta, choice.logprobs));
      else if (typeof choice.text === 'string' && choice.text !== '') out.push(...this.text(choice.text, choice.logprobs));
      if (typeof choice.finish_reason === 'string') this.finishReason = finishOf(choice.finish_reason);
    }
    return out;
  }

  private text(content: string, logprobs: unknown): EngineEvent[] {
    this.began = true;
    this.contentPieces++;
    const lp = logprobsOf(logprobs);
    return [{ type: 'delta', content, ...(lp ? { logprobs: lp } : {}) }];
  }

  private delta(delta: Json, logprobs: unknown): EngineEvent[] {
    const out: EngineEvent[] = [];
    const reasoning = typeof delta.reasoning === 'string' ? delta.reasoning : typeof delta.reasoning_content === 'string' ? delta.reasoning_content : '';
    if (reasoning) {
      this.began = true;
      this.reasoningPieces++;
      out.push({ type: 'delta', reasoning });
    }
    if (typeof delta.content === 'string' && delta.content !== '') out.push(...this.text(delta.content, logprobs));
    else if (delta.content !== undefined && delta.content !== null && typeof delta.content !== 'string') throw this.bad("a delta whose 'content' is not text");
    const calls = delta.tool_calls;
    if (calls !== undefined && calls !== null) {
      if (!Array.isArray(calls)) throw this.bad("'tool_calls' that is not a list");
      for (const call of calls) out.push(...this.toolCall(call));
    }
    return out;
  }

  private toolCall(call: unknown): EngineEvent[] {
    if (!isObject(call)) throw this.bad('a tool call that is not an object');
    const fn = isObject(call.function) ? call.function : {};
    const upstreamIndex = typeof call.index === 'number' ? call.index : 0;
    const id = typeof call.id === 'string' && call.id ? call.id : undefined;
    // Ollama sends each call whole, all at index 0 in some versions: a new id at a known index is a new call.
    let key = `i${upstreamIndex}`;
    const known = this.calls.get(key);
    const knownId = known !== undefined ? this.ids.get(known) : undefined;
    if (known !== undefined && id !== undefined && knownId !== undefined && id !== knownId) key = `id:${id}`;
    const out: EngineEvent[] = [];
    let index = this.calls.get(key);
    if (index === undefined) {
      if (typeof fn.name !== 'string' || fn.name === '') throw this.bad('tool-call arguments before the call named its function');
      if (this.nextCall >= this.options.maxToolCalls)
        throw this.bad(`more than ${this.options.maxToolCalls} tool calls in one answer (its 'maxToolCalls' bound)`);
      index = this.nextCall++;
      this.calls.set(key, index);
      if (key !== `i${upstreamIndex}`) this.calls.set(`i${upstreamIndex}`, index);
      const callId = id && /^[\w-]{1,64}$/.test(id) ? id : toolCallId();
      this.ids.set(index, id ?? callId);
      this.began = true;
      this.sawToolCall = true;
      out.push({ type: 'tool_call', index, id: callId, name: fn.name });
    }
    if (fn.arguments !== undefined && fn.arguments !== null) {
      // Ollama's native API gives an object; its /v1 a string. Either way the fragments concatenate to JSON.
      const args = typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments);
      const bytes = (this.argumentBytes.get(index) ?? 0) + utf8.encode(args).byteLength;
      if (bytes > this.options.maxToolArgumentBytes)
        throw this.bad(`a tool call whose arguments pass ${this.options.maxToolArgumentBytes} bytes (its 'maxToolArgumentBytes' bound)`);
      this.argumentBytes.set(index, bytes);
      if (args !== '') out.push({ type: 'tool_arguments', index, arguments: args });
    }
    return out;
  }
  private readonly ids = new Map<number, string>();

  /**
   * The finish, once the stream has ended: the upstream's usage, or counted here when it sent none. A stream that
   * ended without its finish (a `finish_reason`, and `data: [DONE]`) was cut off: an `upstream_error`, never a `stop`.
   */
  finish(): EngineEvent {
    if (this.finishReason === null && !this.began) throw this.bad('a stream that ended before any answer');
    const missing = this.finishReason === null ? 'a finish_reason' : this.options.expectDone && !this.sawDone ? 'its closing data: [DONE]' : null;
    if (missing)
      throw new ApiError('upstream_error', `The upstream ${this.who} broke off its answer: it ended without ${missing}, so what came is incomplete.`);
    const reason: EngineFinishReason = this.sawToolCall && this.finishReason === 'stop' ? 'tool_calls' : (this.finishReason ?? 'stop');
    const u = this.usage;
    const completion = usageCount(u?.completion_tokens) ?? this.contentPieces + this.reasoningPieces;
    const prompt = usageCount(u?.prompt_tokens) ?? this.promptEstimate;
    const details = isObject(u?.completion_tokens_details) ? u.completion_tokens_details : {};
    const promptDetails = isObject(u?.prompt_tokens_details) ? u.prompt_tokens_details : {};
    const usage: Usage = {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: Math.min(usageCount(promptDetails.cached_tokens) ?? 0, prompt) },
      completion_tokens_details: { reasoning_tokens: Math.min(usageCount(details.reasoning_tokens) ?? (u ? 0 : this.reasoningPieces), completion) },
    };
    // A server that reports usage but no reasoning split (vLLM, Ollama): the reasoning pieces, one token each.
    if (u && usageCount(details.reasoning_tokens) === undefined) usage.completion_tokens_details.reasoning_tokens = Math.min(this.reasoningPieces, completion);
    return { type: 'finish', finish_reason: reason, usage, ...(this.timings ? { timings: this.timings } : {}) };
  }
}

function finishOf(reason: string): EngineFinishReason {
  if (reason === 'length') return 'length';
  if (reason === 'tool_calls' || reason === 'function_call') return 'tool_calls';
  return 'stop';
}

/** The upstream's logprobs for a piece, when they have OpenAI's shape; anything else is left out. */
function logprobsOf(raw: unknown): ChoiceLogprobs['content'] | undefined {
  if (!isObject(raw) || !Array.isArray(raw.content)) return undefined;
  const out: NonNullable<ChoiceLogprobs['content']> = [];
  for (const t of raw.content) {
    if (!isObject(t) || typeof t.token !== 'string' || typeof t.logprob !== 'number') return undefined;
    const tops = Array.isArray(t.top_logprobs)
      ? t.top_logprobs.filter((x): x is Json => isObject(x) && typeof x.token === 'string' && typeof x.logprob === 'number')
      : [];
    out.push({
      token: t.token,
      logprob: t.logprob,
      bytes: Array.isArray(t.bytes) ? (t.bytes as number[]) : null,
      top_logprobs: tops.map((x) => ({ token: x.token as string, logprob: x.logprob as number, bytes: Array.isArray(x.bytes) ? (x.bytes as number[]) : null })),
    });
  }
  return out;
}
