// The one answer path every generating route shares: the engine call, the body written as JSON or SSE by the
// route's AnswerFormat, abort handling, failure rules and the booking of the tokens to the key.
import { ApiError, serviceUpdating } from '#shared/protocol/errors';
import { SSE_HEADERS, encodeSse } from './sse';
import { carriesText, type EngineEvent, type EngineRequest } from '#shared/wire/engine-port';
import type { EngineLink } from '#shared/wire/engine-link';
import { JSON_TYPE } from './respond';
import type { Booking } from './usage-book';

/** The header that says where an answer ran (docs/hybrid.md). */
export const SERVED_BY = 'x-inpage-served-by';

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
  /**
   * After a generation's last event: the next generation of the same answer, or null (Responses' MCP tool loop:
   * the calls run here, written with `write`, then the model reads their results). Absent: one generation.
   */
  next?(write: (texts: string[]) => void, signal: AbortSignal): Promise<EngineRequest | null>;
}

/** How a request's use is booked to its key (worker/sw/usage-book.ts). */
export interface Accounting {
  /** Books `tokens`; `journaled` settles once the use is durable, `booked` once it is on the key. */
  book(tokens: number): Booking;
  /** Keeps the worker alive until `until` settles (the fetch event's waitUntil). */
  keepAlive(until: Promise<unknown>): void;
  /**
   * Aborted when this worker must end what it holds: a newer version takes over (handover.ts). The answer then ends
   * as a failure would (a stream with an in-band error, a JSON body broken), its use booked.
   */
  readonly ending?: AbortSignal;
}

/**
 * Runs a checked request. Its tokens are booked whatever the end: all of `usage` when the answer completes;
 * when it is cancelled or fails part-way, what the engine reports it cost (the prompt's tokens and the
 * completion tokens generated until it stopped), or, from an engine that cannot tell, one token per content
 * or reasoning piece that reached the client (the engines send one per token). The booking is journaled before the
 * client reads the usage of a finished answer (and before any answer closes), so a worker stopped after it loses nothing.
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
  const ending = accounting.ending;
  const signal = AbortSignal.any(ending ? [clientSignal, cancel.signal, ending] : [clientSignal, cancel.signal]);
  /** Aborted by the client (or its body cancelled), not by this worker's handover. */
  const clientGone = () => clientSignal.aborted || cancel.signal.aborted;
  // Everything before this line resolves is checked before any status goes out.
  const run = await link.generate(request, signal).catch((err: unknown) => {
    throw ending?.aborted && !clientGone() ? serviceUpdating() : err;
  });

  /** The usage the engine reported at the finish of the current generation, if it got there. */
  let tokens: number | null = null;
  /** The tokens of the answer's earlier generations (an MCP tool loop runs several). */
  let earlier = 0;
  let current = run;
  let delivered = 0;
  /** The booking, made once: at the finish (before its usage reaches the client), else when the answer ends. */
  let booking: Booking | null = null;
  const book = (count: number): Booking => {
    booking ??= accounting.book(count);
    finished(booking.booked);
    return booking;
  };
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
        for (;;) {
          // One string, one encode and one enqueue for everything the engine sent in one message.
          for await (const batch of current.batches()) {
            let text = '';
            let pieces = 0;
            let finish = false;
            for (const event of batch) {
              if (event.type === 'finish') {
                tokens = event.usage.total_tokens;
                finish = true;
              }
              const out = format.event(event);
              for (const piece of out) text += piece;
              if (out.length > 0 && carriesText(event)) pieces++;
            }
            // The use is journaled before the client reads the usage (this batch, or the JSON body after it), so a
            // worker stopped from then on (an update's old version, a browser stopping it) loses none of what an
            // answer reported: the next start books the journal. An answer that may go on (an MCP tool loop,
            // `format.next`) is booked once, at its end.
            if (finish && tokens !== null && !format.next) await book(tokens).journaled;
            if (text.length > 0 && write([text])) delivered += pieces;
          }
          const again = format.next ? await format.next(write, signal) : null;
          if (again === null) break;
          earlier += tokens ?? 0;
          tokens = null;
          delivered = 0;
          current = await link.generate(again, signal);
        }
        write(await format.close());
      } catch (caught) {
        if (clientGone() || !open) return;
        const err = ending?.aborted ? serviceUpdating() : caught;
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
        const spent = tokens === null && !booking ? await current.spent : null;
        await book(earlier + (tokens ?? Math.max(spent?.total_tokens ?? 0, delivered))).journaled;
        if (open && !clientGone()) controller.close();
        open = false;
      }
    },
    cancel() {
      cancel.abort();
    },
  });
  const headers: Record<string, string> = stream ? { ...SSE_HEADERS } : { 'content-type': JSON_TYPE };
  // Where it ran, on every answer (hybrid, docs/hybrid.md): `local`, or `upstream; host=…`.
  headers[SERVED_BY] = run.servedBy;
  return new Response(body, { status: 200, headers });
}
