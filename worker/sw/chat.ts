// POST /v1/chat/completions: read and check the body, run it on the engine, answer as JSON or SSE.
import { ApiError } from '../../src/protocol/errors';
import { validateChatRequest } from '../../src/protocol/validate';
import { ChunkWriter, CompletionCollector } from '../../src/protocol/completion';
import { SSE_DONE, SSE_HEADERS, encodeSse, sseData } from '../../src/protocol/sse';
import type { ChatCompletionRequest } from '../../src/protocol/types';
import type { EngineLink } from './engine-link';
import { jsonResponse } from './respond';

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
  return validateChatRequest(body);
}

/**
 * Runs a checked request. `onDone` receives a promise of the tokens the request cost, settled when the
 * answer is complete (or failed), so the caller can keep the worker alive and book them to the key.
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

  if (!request.stream) {
    const collector = new CompletionCollector();
    for await (const event of run) collector.add(event);
    const completion = collector.build(request.model, run.fingerprint);
    onDone(Promise.resolve(completion.usage.total_tokens));
    return jsonResponse(completion);
  }

  const writer = new ChunkWriter(request.model, run.fingerprint, request.stream_options?.include_usage === true);
  let tokens = 0;
  let finished!: () => void;
  onDone(new Promise<number>((resolve) => (finished = () => resolve(tokens))));

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
        write(sseData(writer.first()));
        for await (const event of run) {
          if (event.type === 'finish') tokens = event.usage.total_tokens;
          for (const chunk of writer.next(event)) write(sseData(chunk));
        }
      } catch (err) {
        // The 200 is gone: a failure now travels in-band, as OpenAI's SDK expects.
        if (!signal.aborted) write(sseData(ApiError.from(err).toBody()));
      } finally {
        if (open && !signal.aborted) {
          write(SSE_DONE);
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
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS } });
}
