// POST /v1/completions (legacy text completion): converted onto the chat path with a raw prompt, answered as
// `text_completion` chunks and `[DONE]`, or one `text_completion`.
import { ApiError } from '../../src/protocol/errors';
import { SSE_DONE, sseData } from '../../src/protocol/sse';
import { TextCompletionWriter, parseTextCompletionRequest, toChatRequest } from '../../src/protocol/text-completion';
import type { KeyRecord } from '../../src/keys/db';
import type { EngineLink } from './engine-link';
import { readJsonBody, runAnswer, type Accounting } from './chat';

export async function createCompletion(link: EngineLink, key: KeyRecord, raw: Request, accounting: Accounting): Promise<Response> {
  const request = parseTextCompletionRequest(await readJsonBody(raw));
  const chat = toChatRequest(request);
  if (!key.models.includes(chat.model)) {
    throw new ApiError('model_not_found', `The model '${chat.model}' does not exist or you do not have access to it.`, { param: 'model' });
  }
  const stream = chat.stream === true;
  return runAnswer(link, chat, raw.signal, accounting, (fingerprint) => {
    const writer = new TextCompletionWriter(chat.model, fingerprint, {
      logprobs: request.logprobs !== undefined,
      includeUsage: chat.stream_options?.include_usage === true,
    });
    return {
      stream,
      open: () => [],
      event: (event) => {
        const chunks = writer.next(event);
        return stream ? chunks.map((chunk) => sseData(chunk)) : [];
      },
      close: () => (stream ? [SSE_DONE] : [JSON.stringify(writer.build())]),
      fail: (error) => [sseData(error.toBody()), SSE_DONE],
    };
  });
}
