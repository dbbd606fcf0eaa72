// POST /v1/embeddings: checked once here, run in the engine's queue like a generation, answered with OpenAI's
// `CreateEmbeddingResponse` once every vector is in.
import { embeddingResponse, parseEmbeddingRequest } from '#shared/protocol/embeddings';
import type { EngineLink } from '#shared/wire/engine-link';
import type { Caller } from '../access';
import { readJsonBody } from '../body';
import { runAnswer } from '../answer';

export async function createEmbeddings(link: EngineLink, raw: Request, caller: Caller): Promise<Response> {
  const request = parseEmbeddingRequest(await readJsonBody(raw), caller.catalog);
  caller.useVariant(request.variant);
  // The prompt tokens are booked to the key, as a chat answer's are.
  return runAnswer(link, request, raw.signal, caller.accounting, () => {
    const vectors: number[][] = [];
    let promptTokens = 0;
    return {
      stream: false,
      open: () => [],
      event: (event) => {
        if (event.type === 'embedding') vectors[event.index] = event.embedding;
        else if (event.type === 'finish') promptTokens = event.usage.prompt_tokens;
        return [];
      },
      close: () => {
        if (vectors.length !== request.input.length || vectors.some((v) => v === undefined)) {
          throw new Error(`The engine returned ${vectors.filter(Boolean).length} vectors for ${request.input.length} inputs.`);
        }
        return [JSON.stringify(embeddingResponse(request, vectors, promptTokens))];
      },
      fail: () => [],
    };
  });
}
