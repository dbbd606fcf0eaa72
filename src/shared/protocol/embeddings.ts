// POST /v1/embeddings: the request checked once (zod, as chat's), the engine's vectors → OpenAI's
// `CreateEmbeddingResponse` (`float` arrays, or `base64` of little-endian float32 as OpenAI sends).
import { lazy, z } from './zod';
import { ApiError, modelNotFound, unsupportedParameter } from './errors';
import { bodyFields, toApiError } from './validate';
import { DEFAULT_CATALOG, variantIn, type ModelCatalog } from '../model-config';
import type { ModelId, Variant } from '../variants';

/** OpenAI's limit on how many inputs one request may embed. */
export const MAX_EMBEDDING_INPUTS = 2048;

// Built on first use (see `lazy`).
const requestSchema = lazy(() => {
  const token = z.int().check(z.minimum(0));
  return z.looseObject({
    model: z.string(),
    input: z.union([
      z.string(),
      z.array(z.string()).check(z.maxLength(MAX_EMBEDDING_INPUTS)),
      z.array(token).check(z.minLength(1)),
      z.array(z.array(token)).check(z.maxLength(MAX_EMBEDDING_INPUTS)),
    ]),
    encoding_format: z.optional(z.enum(['float', 'base64'])),
    dimensions: z.optional(z.int().check(z.minimum(1))),
    user: z.optional(z.string()),
  });
});

type EmbeddingRequestBody = z.infer<ReturnType<typeof requestSchema>>;

/** One thing to embed: text, or the model's token ids (web-llm takes both). */
export type EmbeddingInput = string | number[];

/** A checked embeddings request: inputs as a list, the model resolved to its (embedding) variant. */
export interface EmbeddingRequest {
  /** Tells it apart from a chat request on the way to the engine. */
  kind: 'embeddings';
  model: ModelId;
  variant: Variant;
  /** One text or token-id list per vector, in order. */
  input: EmbeddingInput[];
  encoding_format: 'float' | 'base64';
}

/** The engine's request: chat (and everything converted onto it) or embeddings. */
export function isEmbeddingRequest(request: object): request is EmbeddingRequest {
  return (request as { kind?: unknown }).kind === 'embeddings';
}

const unsupported = unsupportedParameter;

/** `catalog`: the deployment's (the service worker's, from the engine's port offer); by default the one in force. */
export function parseEmbeddingRequest(body: unknown, catalog: ModelCatalog = DEFAULT_CATALOG): EmbeddingRequest {
  const cleaned = bodyFields(body, ['model', 'input']);
  const parsed = requestSchema().safeParse(cleaned, { reportInput: true });
  if (!parsed.success) throw toApiError(parsed.error.issues[0]!);
  const req: EmbeddingRequestBody = parsed.data;
  const variant = variantIn(catalog, req.model);
  if (!variant) throw modelNotFound(req.model);
  const spec = variant.embeddings;
  if (!spec) {
    throw new ApiError('invalid_value', `The model '${req.model}' is a chat model and does not create embeddings; use svc-embed.`, { param: 'model' });
  }
  const raw = req.input;
  // A string, a list of strings, one list of token ids, or a list of them.
  const inputs: EmbeddingInput[] =
    typeof raw === 'string' ? [raw] : raw.length > 0 && typeof raw[0] === 'number' ? [raw as number[]] : (raw as EmbeddingInput[]);
  if (inputs.length === 0) throw new ApiError('invalid_value', "'input' must not be empty: give a string or a non-empty array of strings.", { param: 'input' });
  const empty = inputs.findIndex((item) => item.length === 0);
  if (empty >= 0) {
    const param = typeof raw === 'string' ? 'input' : `input[${empty}]`;
    throw new ApiError('invalid_value', `'${param}' must not be empty.`, { param });
  }
  inputs.forEach((item, i) => {
    if (typeof item === 'string') return;
    const bad = item.findIndex((t) => t >= spec.vocabulary);
    if (bad >= 0) {
      const param = inputs.length === 1 && typeof raw[0] === 'number' ? `input[${bad}]` : `input[${i}][${bad}]`;
      throw new ApiError('invalid_value', `'${param}' is not a token of '${req.model}' (its vocabulary has ${spec.vocabulary} tokens).`, { param });
    }
  });
  if (req.dimensions !== undefined && req.dimensions !== spec.dimensions) {
    unsupported('dimensions', `must be ${spec.dimensions} for '${req.model}' (its vectors cannot be shortened here); got ${req.dimensions}`);
  }
  // `user` is accepted and ignored: nothing here tracks end users.
  return { kind: 'embeddings', model: req.model, variant, input: inputs, encoding_format: req.encoding_format ?? 'float' };
}

/** A vector as OpenAI's `base64` format sends it: the float32 values, little-endian, base64-encoded. */
export function encodeBase64Float32(vector: readonly number[]): string {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  vector.forEach((value, i) => view.setFloat32(i * 4, value, true));
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** The inverse of encodeBase64Float32 (what the openai SDK does with a `base64` answer). */
export function decodeBase64Float32(text: string): number[] {
  const binary = atob(text);
  const view = new DataView(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) view.setUint8(i, binary.charCodeAt(i));
  return Array.from({ length: binary.length / 4 }, (_, i) => view.getFloat32(i * 4, true));
}

export interface EmbeddingObject {
  object: 'embedding';
  index: number;
  embedding: number[] | string;
}

export interface CreateEmbeddingResponse {
  object: 'list';
  data: EmbeddingObject[];
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
}

/** OpenAI's answer for the vectors of `request.input`, in order; `total_tokens` equals `prompt_tokens`. */
export function embeddingResponse(request: EmbeddingRequest, vectors: readonly (readonly number[])[], promptTokens: number): CreateEmbeddingResponse {
  return {
    object: 'list',
    data: vectors.map((vector, index) => ({
      object: 'embedding',
      index,
      embedding: request.encoding_format === 'base64' ? encodeBase64Float32(vector) : [...vector],
    })),
    model: request.model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}
