// POST /v1/chat/completions: the checked request, answered as JSON or SSE through the shared answer path.
import { validateChatRequest } from '#shared/protocol/validate';
import { ChunkWriter, CompletionCollector } from '#shared/protocol/completion';
import { SSE_DONE, sseData } from '../sse';
import type { ChatCompletionRequest } from '#shared/protocol/types';
import type { ModelCatalog } from '#shared/model-config';
import type { EngineLink } from '#shared/wire/engine-link';
import { readJsonBody } from '../body';
import { runAnswer, type Accounting, type AnswerFormat } from '../answer';

export async function readChatRequest(raw: Request, catalog: ModelCatalog): Promise<ChatCompletionRequest> {
  return validateChatRequest(await readJsonBody(raw), catalog);
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

export function completeChat(link: EngineLink, request: ChatCompletionRequest, clientSignal: AbortSignal, accounting: Accounting): Promise<Response> {
  return runAnswer(link, request, clientSignal, accounting, (fingerprint) => chatFormat(request, fingerprint));
}
