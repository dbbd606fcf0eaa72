// POST /v1/chat/completions: read and check the body, run it on the engine, answer as JSON or SSE.
import { ApiError } from '../../src/protocol/errors';
import { assertJsonDepth } from '../../src/protocol/json-depth';
import { validateChatRequest } from '../../src/protocol/validate';
import { ChunkWriter, CompletionCollector } from '../../src/protocol/completion';
import { SSE_DONE, SSE_HEADERS, encodeSse, sseData } from '../../src/protocol/sse';
import type { ChatCompletionRequest } from '../../src/protocol/types';
import type { EngineLink } from './engine-link';
import { JSON_TYPE } from './respond';

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

/**
 * Runs a checked request. `onDone` receives a promise of the tokens the request cost, settled when the
 * answer is complete (or failed), so the caller can keep the worker alive and book them to the key.
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
  onDone: (tokens: Promise<number>) => void,
): Promise<Response> {
  const cancel = new AbortController();
  const signal = AbortSignal.any([clientSignal, cancel.signal]);
  // Everything before this line resolves is checked before any status goes out.
  const run = await link.generate(request, signal);

  let tokens = 0;
  let finished!: () => void;
  onDone(new Promise<number>((resolve) => (finished = () => resolve(tokens))));
  const stream = request.stream === true;
  const legacy = request.legacy_functions === true;
  const writer = new ChunkWriter(request.model, run.fingerprint, request.stream_options?.include_usage === true, legacy);
  const collector = new CompletionCollector(legacy);

  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      let open = true;
      const write = (text: string) => {
        if (!open) return;
        try {
          controller.enqueue(encodeSse(text));
        } catch {
          open = false; // the reader went away between checks
        }
      };
      try {
        if (stream) write(sseData(writer.first()));
        for await (const event of run) {
          if (event.type === 'finish') tokens = event.usage.total_tokens;
          if (stream) for (const chunk of writer.next(event)) write(sseData(chunk));
          else collector.add(event);
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
        if (open && !signal.aborted) {
          if (stream) write(SSE_DONE);
          controller.close();
        }
        open = false;
        finished();
      }
    },
    cancel() {
      cancel.abort();
    },
  });
  const headers = stream ? { ...SSE_HEADERS } : { 'content-type': JSON_TYPE };
  return new Response(body, { status: 200, headers });
}
