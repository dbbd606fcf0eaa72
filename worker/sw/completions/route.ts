// POST /v1/completions (legacy text completion): converted onto the chat path with a raw prompt, answered as
// `text_completion` chunks and `[DONE]`, or one `text_completion`.
import { SSE_DONE_EVENT, sseEvent } from '../sse';
import { TextCompletionWriter, parseTextCompletionRequest, toChatRequest } from './request';
import type { EngineLink } from '#shared/wire/engine-link';
import type { Caller } from '../access';
import { readJsonBody } from '../body';
import { runAnswer } from '../answer';

export async function createCompletion(link: EngineLink, raw: Request, caller: Caller): Promise<Response> {
  const request = parseTextCompletionRequest(await readJsonBody(raw));
  const chat = toChatRequest(request, caller.catalog);
  caller.useVariant(chat.variant);
  const stream = chat.stream === true;
  return runAnswer(link, chat, raw.signal, caller.accounting, (fingerprint) => {
    const writer = new TextCompletionWriter(chat.model, fingerprint, {
      logprobs: request.logprobs !== undefined,
      includeUsage: chat.stream_options?.include_usage === true,
    });
    return {
      stream,
      open: () => [],
      event: (event) => {
        const chunks = writer.next(event);
        return stream ? chunks.map((chunk) => sseEvent(chunk)) : [];
      },
      close: () => (stream ? [SSE_DONE_EVENT] : [JSON.stringify(writer.build())]),
      fail: (error) => [sseEvent(error.toBody()), SSE_DONE_EVENT],
    };
  });
}
