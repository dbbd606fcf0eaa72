// POST /v1/chat/completions: read and check the body, run it on the engine, answer as JSON or SSE.
import { ApiError } from '../../src/protocol/errors';
import { assertJsonDepth } from '../../src/protocol/json-depth';
import { validateChatRequest } from '../../src/protocol/validate';
import { ChunkWriter, CompletionCollector } from '../../src/protocol/completion';
import { SSE_DONE, SSE_HEADERS, encodeSse, sseData } from '../../src/protocol/sse';
import type { ChatCompletionRequest } from '../../src/protocol/types';
import type { EngineLink } from './engine-link';
import { JSON_TYPE } from './respond';
import type { Booking } from './usage-book';

export async function readChatRequest(raw: Request): Promise<ChatCompletionRequest> {
  const type = raw.headers.get('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type.trim())) {
    throw new ApiError(
      'invalid_content_type',
      `Unsupported content type '${type || '(none)'}': send the body as JSON with 'Content-Type: application/json'.`,
    );
  }
  const text = await raw.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new ApiError('invalid_json', `The request body is not valid JSON: ${why}`);
  }
  // Before anything walks or clones it.
  assertJsonDepth(body);
  return validateChatRequest(body);
}

/** How a request's use is booked to its key (worker/sw/usage-book.ts). */
export interface Accounting {
  /** Books `tokens`; `journaled` settles once the use is durable, `booked` once it is on the key. */
  book(tokens: number): Booking;
  /** Keeps the worker alive until `until` settles (the fetch event's waitUntil). */
  keepAlive(until: Promise<unknown>): void;
}

/**
 * Runs a checked request. The tokens delivered to the client are booked whatever the end: all of `usage` when
 * the answer completes; when a stream is cancelled or fails, one per content or reasoning piece that reached
 * the client (the engines send one per token). The booking is journaled before the answer closes.
 *
 * Both modes answer as soon as the engine has begun: Chromium never signals a client's abort to a
 * service worker (FetchEvent.request.signal stays quiet), but it does cancel the body of a response
 * whose fetch was aborted, even one aborted before the response existed. So the body's `cancel` is
 * the one abort signal there is; a JSON answer is therefore a body written once the reply is complete.
 */
export async function completeChat(
  link: EngineLink,
  request: ChatCompletionRequest,
  clientSignal: AbortSignal,
  accounting: Accounting,
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
  const stream = request.stream === true;
  const legacy = request.legacy_functions === true;
  const writer = new ChunkWriter(request.model, run.fingerprint, request.stream_options?.include_usage === true, legacy);
  const collector = new CompletionCollector(legacy);

  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      let open = true;
      const write = (text: string): boolean => {
        if (!open) return false;
        try {
          controller.enqueue(encodeSse(text));
          return true;
        } catch {
          open = false; // the reader went away between checks
          return false;
        }
      };
      try {
        if (stream) write(sseData(writer.first()));
        for await (const event of run) {
          if (event.type === 'finish') tokens = event.usage.total_tokens;
          let sent = false;
          if (stream) for (const chunk of writer.next(event)) sent = write(sseData(chunk)) || sent;
          else collector.add(event);
          if (sent && event.type === 'delta' && (event.content || event.reasoning)) delivered++;
        }
        if (!stream) write(JSON.stringify(collector.build(request.model, run.fingerprint)));
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
        write(sseData(ApiError.from(err).toBody()));
      } finally {
        // Booked (journaled) before the answer closes: a worker stopped right after loses nothing.
        const booking = accounting.book(tokens ?? delivered);
        finished(booking.booked);
        await booking.journaled;
        if (open && !signal.aborted) {
          if (stream) write(SSE_DONE);
          controller.close();
        }
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
