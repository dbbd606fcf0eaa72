// A small /v1 client for the workspace page: plain fetch with a bearer key, its streams read with the shared SSE reader.
// The playground uses it exactly as any other script of the origin could.
import type { ErrorObject } from '#shared/protocol/errors';
import { readSseData, SSE_DONE } from '#shared/protocol/sse-reader';
import type { ChatCompletionChunk, ChatMessage, ModelObject, ReasoningEffort } from '#shared/protocol/types';

export const BASE_URL = `${location.origin}/v1`;

/** An error answer of the service (HTTP status, or in-band in a stream). */
export class ApiCallError extends Error {
  constructor(
    readonly status: number,
    readonly error: Partial<ErrorObject>,
  ) {
    super(error.message ?? `The service answered ${status}.`);
    this.name = 'ApiCallError';
  }
  get code(): string | null {
    return this.error.code ?? null;
  }
}

async function failure(res: Response): Promise<ApiCallError> {
  let error: Partial<ErrorObject> = { message: `The service answered ${res.status} ${res.statusText}.` };
  try {
    const body = (await res.json()) as { error?: Partial<ErrorObject> };
    if (body.error) error = body.error;
  } catch {
    // Not JSON: keep the status line.
  }
  return new ApiCallError(res.status, error);
}

function headers(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
}

export async function listModels(key: string, signal?: AbortSignal): Promise<ModelObject[]> {
  const res = await fetch(`${BASE_URL}/models`, { headers: headers(key), signal });
  if (!res.ok) throw await failure(res);
  return ((await res.json()) as { data: ModelObject[] }).data;
}

interface StreamRequest {
  model: string;
  messages: ChatMessage[];
  reasoning_effort?: ReasoningEffort;
  max_tokens?: number;
  temperature?: number;
}

/** The `data:` payloads of one of the service's SSE bodies, as they arrive (unbounded: the service is this origin's); ends at `[DONE]`. */
async function* streamPayloads(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  for await (const data of readSseData(body)) {
    if (data === SSE_DONE) return;
    if (data) yield data;
  }
}

/**
 * POST /v1/chat/completions with `stream: true`; yields each chunk. Aborting `signal` stops the generation.
 * `servedBy` hears where the answer runs (the `x-inpage-served-by` header: `local`, or `upstream; host=…`).
 */
export async function* streamChat(
  key: string,
  request: StreamRequest | Record<string, unknown>,
  signal: AbortSignal,
  servedBy?: (value: string | null) => void,
): AsyncGenerator<ChatCompletionChunk> {
  const res = await fetch(`${BASE_URL}/chat/completions`, {
    method: 'POST',
    headers: headers(key),
    body: JSON.stringify({ ...request, stream: true, stream_options: { include_usage: true } }),
    signal,
  });
  if (!res.ok) throw await failure(res);
  servedBy?.(res.headers.get('x-inpage-served-by'));
  if (!res.body) throw new ApiCallError(res.status, { message: 'The service sent an empty stream.' });
  for await (const data of streamPayloads(res.body)) {
    const parsed = JSON.parse(data) as ChatCompletionChunk | { error: Partial<ErrorObject> };
    if ('error' in parsed) throw new ApiCallError(res.status, parsed.error);
    yield parsed;
  }
}

/** An event of a /v1/responses stream (docs/responses.md#streaming): its `type` and the rest as sent. */
export type ResponseEvent = { type: string } & Record<string, unknown>;

/** POST /v1/responses with `stream: true`; yields each event. An `error` event or `response.failed` throws. */
export async function* streamResponse(
  key: string,
  request: Record<string, unknown>,
  signal: AbortSignal,
  servedBy?: (value: string | null) => void,
): AsyncGenerator<ResponseEvent> {
  const res = await fetch(`${BASE_URL}/responses`, { method: 'POST', headers: headers(key), body: JSON.stringify({ ...request, stream: true }), signal });
  if (!res.ok) throw await failure(res);
  servedBy?.(res.headers.get('x-inpage-served-by'));
  if (!res.body) throw new ApiCallError(res.status, { message: 'The service sent an empty stream.' });
  for await (const data of streamPayloads(res.body)) {
    const event = JSON.parse(data) as ResponseEvent;
    if (event.type === 'error')
      throw new ApiCallError(res.status, { message: String(event.message ?? 'The response failed.'), code: (event.code as ErrorObject['code']) ?? null });
    if (event.type === 'response.failed') {
      const error = (event.response as { error?: Partial<ErrorObject> } | undefined)?.error;
      throw new ApiCallError(res.status, { message: error?.message ?? 'The response failed.', code: error?.code ?? null });
    }
    yield event;
  }
}
