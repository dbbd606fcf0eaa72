// POST /v1/chat/completions: read and check the body, run it on the engine, answer as JSON or SSE.
import { ApiError } from '../../src/protocol/errors';
import { assertJsonDepth } from '../../src/protocol/json-depth';
import { validateChatRequest } from '../../src/protocol/validate';
import { ChunkWriter, CompletionCollector } from '../../src/protocol/completion';
import { SSE_DONE, SSE_HEADERS, encodeSse, sseData } from '../../src/protocol/sse';
import type { ChatCompletionRequest } from '../../src/protocol/types';
import { carriesText, type EngineEvent, type EngineRequest } from '../../src/engine-protocol';
import type { EngineLink } from './engine-link';
import { JSON_TYPE } from './respond';
import type { Booking } from './usage-book';

/** The largest request body taken (413 `request_too_large` beyond it). */
export const MAX_BODY_BYTES = 20 * 1024 * 1024;

const tooLarge = () => new ApiError('request_too_large', `The request body is larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB.`);

/**
 * The body as text, read once: 413 as soon as it passes MAX_BODY_BYTES (the rest is never held where the
 * browser gives the request a body stream). A page's `fetch` reaches the service worker without a
 * Content-Length, so the body is counted as it is read.
 */
async function readLimitedText(raw: Request): Promise<string> {
  const length = raw.headers.get('content-length');
  if (length !== null && !raw.headers.has('transfer-encoding') && Number(length) > MAX_BODY_BYTES) throw tooLarge();
  // Firefox gives a fetch event's request no `body` stream (Request.body is not implemented there): read it as
  // a Blob, which every browser has, and check its size before it is decoded.
  const body = (raw as { body?: ReadableStream<Uint8Array> | null }).body;
  if (!body) {
    const blob = await raw.blob();
    if (blob.size > MAX_BODY_BYTES) throw tooLarge();
    return blob.text();
  }
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      void reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    parts.push(value);
  }
  if (parts.length === 1) return decoder.decode(parts[0]);
  const whole = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    whole.set(part, at);
    at += part.byteLength;
  }
  return decoder.decode(whole);
}

const decoder = new TextDecoder();

/** The body of a POST as parsed JSON: 400 unless it is sent as `application/json` and parses; 413 over the limit. */
export async function readJsonBody(raw: Request): Promise<unknown> {
  const type = raw.headers.get('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type.trim())) {
    throw new ApiError(
      'invalid_content_type',
      `Unsupported content type '${type || '(none)'}': send the body as JSON with 'Content-Type: application/json'.`,
    );
  }
  const text = await readLimitedText(raw);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new ApiError('invalid_json', `The request body is not valid JSON: ${why}`);
  }
  // Before anything walks or clones it.
  assertJsonDepth(body);
  return body;
}

export async function readChatRequest(raw: Request): Promise<ChatCompletionRequest> {
  return validateChatRequest(await readJsonBody(raw));
}

/**
 * How one API writes a started generation: chat completions, Responses and legacy completions each have one;
 * the engine call, abort handling and failure rules are shared (runAnswer).
 */
export interface AnswerFormat {
  /** Server-sent events (else one JSON body written when the reply is complete). */
  readonly stream: boolean;
  /** Stream text before the first engine event. */
  open(): string[];
  /** Stream text for one engine event (JSON formats gather it and return nothing). */
  event(event: EngineEvent): string[];
  /** After the last event: the rest of the body (the JSON body, or a stream's closing events). */
  close(): Promise<string[]> | string[];
  /** A stream's in-band text for a failure after it began. */
  fail(error: ApiError): string[];
}

/** Chat completions: chunks and `[DONE]`, or one `chat.completion`. */
export function chatFormat(request: ChatCompletionRequest, fingerprint: string): AnswerFormat {
  const stream = request.stream === true;
  // A request that used the legacy `functions` gets the legacy answer shape (message.function_call).
  const legacy = request.legacy_functions === true;
  const writer = new ChunkWriter(request.model, fingerprint, request.stream_options?.include_usage === true, legacy);
  const collector = new CompletionCollector(legacy);
  return {
    stream,
    open: () => (stream ? [sseData(writer.first())] : []),
    event: (event) => {
      if (stream) {
        const text = writer.nextSse(event);
        return text ? [text] : [];
      }
      collector.add(event);
      return [];
    },
    close: () => (stream ? [SSE_DONE] : [JSON.stringify(collector.build(request.model, fingerprint))]),
    fail: (error) => [sseData(error.toBody()), SSE_DONE],
  };
}

export function completeChat(
  link: EngineLink,
  request: ChatCompletionRequest,
  clientSignal: AbortSignal,
  accounting: Accounting,
): Promise<Response> {
  return runAnswer(link, request, clientSignal, accounting, (fingerprint) => chatFormat(request, fingerprint));
}

/** How a request's use is booked to its key (worker/sw/usage-book.ts). */
export interface Accounting {
  /** Books `tokens`; `journaled` settles once the use is durable, `booked` once it is on the key. */
  book(tokens: number): Booking;
  /** Keeps the worker alive until `until` settles (the fetch event's waitUntil). */
  keepAlive(until: Promise<unknown>): void;
}

/**
 * Runs a checked request. Its tokens are booked whatever the end: all of `usage` when the answer completes;
 * when it is cancelled or fails part-way, what the engine reports it cost (the prompt's tokens and the
 * completion tokens generated until it stopped), or, from an engine that cannot tell, one token per content
 * or reasoning piece that reached the client (the engines send one per token). The booking is journaled before the answer closes, so a worker
 * stopped right after loses nothing.
 *
 * Both modes answer as soon as the engine has begun: Chromium never signals a client's abort to a
 * service worker (FetchEvent.request.signal stays quiet), but it does cancel the body of a response
 * whose fetch was aborted, even one aborted before the response existed. So the body's `cancel` is
 * the one abort signal there is; a JSON answer is therefore a body written once the reply is complete.
 */
export async function runAnswer(
  link: EngineLink,
  request: EngineRequest,
  clientSignal: AbortSignal,
  accounting: Accounting,
  formatFor: (fingerprint: string) => AnswerFormat,
): Promise<Response> {
  const cancel = new AbortController();
  const signal = AbortSignal.any([clientSignal, cancel.signal]);
  // Everything before this line resolves is checked before any status goes out.
  const run = await link.generate(request, signal);

  /** The usage the engine reported at the finish, if it got there. */
  let tokens: number | null = null;
  let delivered = 0;
  let finished!: (booked: Promise<void>) => void;
  accounting.keepAlive(new Promise<void>((resolve) => (finished = (booked) => void booked.finally(resolve))));
  const format = formatFor(run.fingerprint);
  const stream = format.stream;

  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      let open = true;
      /** Writes `texts`; true if any reached the client's stream. */
      const write = (texts: string[]): boolean => {
        let sent = false;
        for (const text of texts) {
          if (!open) return sent;
          try {
            controller.enqueue(encodeSse(text));
            sent = true;
          } catch {
            open = false; // the reader went away between checks
          }
        }
        return sent;
      };
      try {
        write(format.open());
        // One string, one encode and one enqueue for everything the engine sent in one message.
        for await (const batch of run.batches()) {
          let text = '';
          let pieces = 0;
          for (const event of batch) {
            if (event.type === 'finish') tokens = event.usage.total_tokens;
            const out = format.event(event);
            for (const piece of out) text += piece;
            if (out.length > 0 && carriesText(event)) pieces++;
          }
          if (text.length > 0 && write([text])) delivered += pieces;
        }
        write(await format.close());
      } catch (err) {
        if (signal.aborted || !open) return;
        if (!stream) {
          // The 200 is gone and a JSON body cannot carry a late error: break the body, as a dropped
          // connection would, so clients see a network error (and the SDKs retry).
          open = false;
          controller.error(ApiError.from(err));
          return;
        }
        // A stream carries a late failure in-band, as OpenAI's SDK expects.
        write(format.fail(ApiError.from(err)));
      } finally {
        // Booked (journaled) before the answer closes. Ended without its finish (cancelled, failed): what the
        // engine says the generation cost (prompt + completion tokens generated), never less than was delivered.
        const spent = tokens === null ? await run.spent : null;
        const booking = accounting.book(tokens ?? Math.max(spent?.total_tokens ?? 0, delivered));
        finished(booking.booked);
        await booking.journaled;
        if (open && !signal.aborted) controller.close();
        open = false;
      }
    },
    cancel() {
      cancel.abort();
    },
  });
  const headers = stream ? { ...SSE_HEADERS } : { 'content-type': JSON_TYPE };
  return new Response(body, { status: 200, headers });
}
