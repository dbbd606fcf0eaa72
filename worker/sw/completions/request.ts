// POST /v1/completions (legacy text completion): the request → the one chat request the engine runs, with a
// raw prompt (no chat template, never thinking; web-llm's own completions API answers it); engine events →
// `text_completion` objects and chunks.
import { lazy, z } from '#shared/protocol/zod';
import type { EngineEvent } from '#shared/wire/engine-port';
import { unsupportedParameter } from '#shared/protocol/errors';
import { bodyFields, toApiError, validateChatRequest } from '#shared/protocol/validate';
import { unixSeconds } from '#shared/protocol/completion';
import type { ChatCompletionRequest, FinishReason, Timings, TokenLogprob, Usage } from '#shared/protocol/types';
import { DEFAULT_CATALOG, type ModelCatalog } from '#shared/model-config';

const num = (min: number, max: number) => z.number().check(z.minimum(min), z.maximum(max));

// Built on first use (see `lazy`).
const requestSchema = lazy(() =>
  z.looseObject({
    model: z.string(),
    prompt: z.union([z.string(), z.array(z.string()).check(z.length(1, 'must hold exactly one prompt: one completion is generated per request'))]),
    max_tokens: z.optional(z.int().check(z.minimum(1))),
    temperature: z.optional(num(0, 2)),
    top_p: z.optional(num(0, 1)),
    stop: z.optional(z.union([z.string(), z.array(z.string()).check(z.maxLength(4))])),
    seed: z.optional(z.int()),
    presence_penalty: z.optional(num(-2, 2)),
    frequency_penalty: z.optional(num(-2, 2)),
    logprobs: z.optional(z.int().check(z.minimum(0), z.maximum(5))),
    echo: z.optional(z.boolean()),
    n: z.optional(z.int().check(z.minimum(1))),
    best_of: z.optional(z.int().check(z.minimum(1))),
    suffix: z.optional(z.string()),
    stream: z.optional(z.boolean()),
    stream_options: z.optional(z.object({ include_usage: z.optional(z.boolean()) })),
    user: z.optional(z.string()),
  }),
);

export type TextCompletionRequest = z.infer<ReturnType<typeof requestSchema>>;

/** OpenAI's default for legacy completions when `max_tokens` is not given. */
export const DEFAULT_MAX_TOKENS = 16;

const unsupported = unsupportedParameter;

export function parseTextCompletionRequest(body: unknown): TextCompletionRequest {
  const cleaned = bodyFields(body, ['model', 'prompt']);
  if (Array.isArray(cleaned.prompt) && cleaned.prompt.some((p) => typeof p !== 'string')) {
    unsupported('prompt', 'as token arrays is not supported: send the prompt as text');
  }
  const parsed = requestSchema().safeParse(cleaned, { reportInput: true });
  if (!parsed.success) throw toApiError(parsed.error.issues[0]!);
  const req = parsed.data;
  if (req.n !== undefined && req.n > 1) unsupported('n', 'must be 1: one completion is generated per request');
  if (req.best_of !== undefined && req.best_of > 1) unsupported('best_of', 'must be 1: one completion is generated per request');
  if (req.suffix !== undefined && req.suffix !== '') unsupported('suffix', 'is not supported: the models here have no fill-in-the-middle mode');
  if (req.echo === true) unsupported('echo', 'is not supported: the prompt is not repeated in the answer');
  return req;
}

/** The chat request the engine runs: the prompt as the raw text to continue. */
export function toChatRequest(request: TextCompletionRequest, catalog: ModelCatalog = DEFAULT_CATALOG): ChatCompletionRequest {
  const prompt = typeof request.prompt === 'string' ? request.prompt : request.prompt[0]!;
  const body: Record<string, unknown> = {
    model: request.model,
    messages: [{ role: 'user', content: prompt }],
    stream: request.stream,
    stream_options: request.stream_options,
    max_tokens: request.max_tokens ?? DEFAULT_MAX_TOKENS,
    temperature: request.temperature,
    top_p: request.top_p,
    stop: request.stop,
    seed: request.seed,
    presence_penalty: request.presence_penalty,
    frequency_penalty: request.frequency_penalty,
    user: request.user,
  };
  if (request.logprobs !== undefined) {
    body.logprobs = true;
    body.top_logprobs = request.logprobs;
  }
  for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
  const chat = validateChatRequest(body, catalog);
  return { ...chat, raw_prompt: prompt };
}

// ---- The answer ----

export interface LegacyLogprobs {
  tokens: string[];
  token_logprobs: number[];
  top_logprobs: Record<string, number>[];
  text_offset: number[];
}

export interface TextCompletionChoice {
  index: number;
  text: string;
  logprobs: LegacyLogprobs | null;
  finish_reason: FinishReason | null;
}

export interface TextCompletion {
  id: string;
  object: 'text_completion';
  created: number;
  model: string;
  system_fingerprint: string;
  choices: TextCompletionChoice[];
  usage?: Usage | null;
  /** On the finish (the chunk or the JSON answer): the engine's own timings, when it measures them. */
  timings?: Timings;
}

export function textCompletionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `cmpl-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** Chat-style token logprobs → the legacy shape; `offset` is where the first token starts in the output. */
export function legacyLogprobs(entries: readonly TokenLogprob[], offset: number): LegacyLogprobs {
  const out: LegacyLogprobs = { tokens: [], token_logprobs: [], top_logprobs: [], text_offset: [] };
  let at = offset;
  for (const entry of entries) {
    out.tokens.push(entry.token);
    out.token_logprobs.push(entry.logprob);
    out.top_logprobs.push(Object.fromEntries(entry.top_logprobs.map((t) => [t.token, t.logprob])));
    out.text_offset.push(at);
    at += entry.token.length;
  }
  return out;
}

/** Engine events → `text_completion` chunks (streams) or one `text_completion` (JSON). */
export class TextCompletionWriter {
  private readonly meta: Omit<TextCompletion, 'choices' | 'usage'>;
  private text = '';
  private logprobs: TokenLogprob[] | null = null;
  private finish: { reason: FinishReason; usage: Usage; timings?: Timings } | null = null;

  constructor(
    model: string,
    fingerprint: string,
    private readonly options: { logprobs: boolean; includeUsage: boolean },
  ) {
    this.meta = { id: textCompletionId(), object: 'text_completion', created: unixSeconds(), model, system_fingerprint: fingerprint };
  }

  /** The chunks for one event (and gathers it for the JSON answer). */
  next(event: EngineEvent): TextCompletion[] {
    if (event.type === 'finish') {
      this.finish = { reason: event.finish_reason, usage: event.usage, timings: event.timings };
      const last: TextCompletion = { ...this.meta, choices: [{ index: 0, text: '', logprobs: null, finish_reason: event.finish_reason }] };
      if (event.timings) last.timings = event.timings;
      const out = [last];
      if (this.options.includeUsage) out.push({ ...this.meta, choices: [], usage: event.usage });
      return out;
    }
    // Legacy completions offer no tools and never think: only text reaches here.
    if (event.type !== 'delta') return [];
    const text = event.content ?? '';
    if (!text) return [];
    const offset = this.text.length;
    this.text += text;
    let logprobs: LegacyLogprobs | null = null;
    if (this.options.logprobs) {
      const entries = event.logprobs ?? [];
      (this.logprobs ??= []).push(...entries);
      logprobs = legacyLogprobs(entries, offset);
    }
    return [{ ...this.meta, choices: [{ index: 0, text, logprobs, finish_reason: null }] }];
  }

  build(): TextCompletion {
    if (!this.finish) throw new Error('The engine ended without a finish event.');
    const logprobs = this.options.logprobs ? legacyLogprobs(this.logprobs ?? [], 0) : null;
    const answer: TextCompletion = {
      ...this.meta,
      choices: [{ index: 0, text: this.text, logprobs, finish_reason: this.finish.reason }],
      usage: this.finish.usage,
    };
    if (this.finish.timings) answer.timings = this.finish.timings;
    return answer;
  }
}
