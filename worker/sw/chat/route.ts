// POST /v1/chat/completions: the checked request, answered as JSON or SSE through the shared answer path.
import { validateChatRequest } from '#shared/protocol/validate';
import { ChunkWriter, CompletionCollector } from '#shared/protocol/completion';
import { SSE_DONE_EVENT, sseEvent } from '../sse';
import type { ChatCompletionRequest } from '#shared/protocol/types';
import type { EngineLink } from '#shared/wire/engine-link';
import { readJsonBody } from '../body';
import type { Caller } from '../access';
import { runAnswer, type AnswerFormat } from '../answer';

/** Chat completions: chunks and `[DONE]`, or one `chat.completion`. */
export function chatFormat(request: ChatCompletionRequest, fingerprint: string): AnswerFormat {
  const stream = request.stream === true;
  // A request that used the legacy `functions` gets the legacy answer shape (message.function_call).
  const legacy = request.legacy_functions === true;
  const writer = new ChunkWriter(request.model, fingerprint, request.stream_options?.include_usage === true, legacy);
  const collector = new CompletionCollector(legacy);
  return {
    stream,
    open: () => (stream ? [sseEvent(writer.first())] : []),
    event: (event) => {
      if (stream) {
        const text = writer.nextSse(event);
        return text ? [text] : [];
      }
      collector.add(event);
      return [];
    },
    close: () => (stream ? [SSE_DONE_EVENT] : [JSON.stringify(collector.build(request.model, fingerprint))]),
    fail: (error) => [sseEvent(error.toBody()), SSE_DONE_EVENT],
  };
}

export async function createChatCompletion(link: EngineLink, raw: Request, caller: Caller): Promise<Response> {
  const request = validateChatRequest(await readJsonBody(raw), caller.catalog);
  caller.useVariant(request.variant);
  return runAnswer(link, request, raw.signal, caller.accounting, (fingerprint) => chatFormat(request, fingerprint));
}
