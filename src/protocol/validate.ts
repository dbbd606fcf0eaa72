// Request-body validation: a zod schema for the shape, then CONTRACT.md's codes for what zod reports.
import { z } from 'zod';
import { ApiError } from './errors';
import { modelNotFound } from './errors';
import { activeCatalog } from '../catalog';
import { variantIn, type ModelCatalog } from '../model-config';
import type { ModelId, Variant } from '../variants';

const num = (min: number, max: number) => z.number().min(min).max(max);
const positiveInt = z.number().int().min(1);

const textPart = z.object({ type: z.literal('text'), text: z.string() });
const imagePart = z.object({
  type: z.literal('image_url'),
  image_url: z.object({
    url: z.string().regex(/^(data:image\/[a-z0-9.+-]+;base64,|https?:\/\/|blob:)/i, 'must be a data:image URL or an http(s) URL'),
    detail: z.enum(['auto', 'low', 'high']).optional(),
  }),
});
const contentPart = z.discriminatedUnion('type', [textPart, imagePart]);

const message = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant']),
  // Assistant turns from some clients carry `content: null`; it means "no text".
  content: z
    .union([z.string(), z.array(contentPart)])
    .nullable()
    .transform((content) => content ?? ''),
  name: z.string().optional(),
});

const responseFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({
      name: z.string(),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullable().optional(),
    }),
  }),
]);

const requestSchema = z
  .object({
    model: z.string(),
    messages: z.array(message).min(1),
    stream: z.boolean().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).optional(),
    temperature: num(0, 2).optional(),
    top_p: num(0, 1).optional(),
    max_tokens: positiveInt.optional(),
    max_completion_tokens: positiveInt.optional(),
    stop: z.union([z.string(), z.array(z.string()).max(4)]).optional(),
    seed: z.number().int().optional(),
    presence_penalty: num(-2, 2).optional(),
    frequency_penalty: num(-2, 2).optional(),
    n: positiveInt.max(128).optional(),
    logprobs: z.boolean().optional(),
    top_logprobs: z.number().int().min(0).max(5).optional(),
    response_format: responseFormat.optional(),
    reasoning_effort: z.enum(['none', 'minimal', 'low', 'medium', 'high']).optional(),
    user: z.string().optional(),
  });
// Unknown top-level fields are ignored (zod drops them), as Ollama and llama.cpp do.

// The request types, declared once by the schema above (src/protocol/types.ts re-exports them).
export type TextPart = z.output<typeof textPart>;
export type ImagePart = z.output<typeof imagePart>;
export type ContentPart = z.output<typeof contentPart>;
export type ChatMessage = z.output<typeof message>;
export type Role = ChatMessage['role'];
export type ResponseFormat = z.output<typeof responseFormat>;
/** A request body as a client sends it, once its fields are checked (the model id not yet resolved). */
export type ChatRequestBody = z.output<typeof requestSchema>;
export type ReasoningEffort = NonNullable<ChatRequestBody['reasoning_effort']>;

/**
 * A request after validation: every field is of the right type and in range, and the model is resolved to the
 * variant that serves it, once, here: the service worker, the engine worker and every engine read `variant`.
 */
export type ChatCompletionRequest = Omit<ChatRequestBody, 'model'> & { model: ModelId; variant: Variant };

const OPTIONAL_FIELDS = new Set(Object.keys(requestSchema.shape).filter((k) => k !== 'model' && k !== 'messages'));

/** `['messages', 0, 'role']` → `messages[0].role`. */
export function paramName(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, part) => {
    if (typeof part === 'number') return `${out}[${part}]`;
    return out ? `${out}.${String(part)}` : String(part);
  }, '');
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

type Issue = z.core.$ZodIssue;

/** For a union, the branch the input was meant for: the one whose complaint is not about the input's type. */
function unionBranch(issue: Issue & { code: 'invalid_union' }): Issue | null {
  for (const branch of issue.errors) {
    const first = branch[0];
    if (first && !(first.code === 'invalid_type' && first.path.length === 0)) {
      return { ...first, path: [...issue.path, ...first.path] } as Issue;
    }
  }
  return null;
}

function toApiError(issue: Issue): ApiError {
  const param = paramName(issue.path);
  const input = (issue as { input?: unknown }).input;
  // Parsed JSON holds no undefined values: undefined means the field is absent.
  const absent = input === undefined;
  if (absent && (issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union')) {
    return new ApiError('missing_required_parameter', `Missing required parameter: '${param}'.`, { param });
  }
  switch (issue.code) {
    case 'invalid_type':
      if (issue.expected === 'int' && typeof input === 'number') {
        return new ApiError('invalid_value', `Invalid value for '${param}': expected an integer, but got ${input}.`, { param });
      }
      return new ApiError('invalid_type', `Invalid type for '${param}': expected ${issue.expected}, but got ${describe(input)}.`, { param });
    case 'invalid_union': {
      if (issue.errors.length === 0) {
        return new ApiError('invalid_value', `Invalid value for '${param}': ${issue.message}.`, { param });
      }
      const branch = unionBranch(issue);
      if (branch) return toApiError(branch);
      return new ApiError('invalid_type', `Invalid type for '${param}': got ${describe(input)}.`, { param });
    }
    default:
      return new ApiError('invalid_value', `Invalid value for '${param || 'body'}': ${issue.message}.`, { param: param || null });
  }
}

/**
 * Checks a parsed JSON body against CONTRACT.md. Throws the ApiError the caller must see; returns the
 * request with `null` optional fields dropped (clients send `null` to mean "not set") and its variant resolved.
 */
export function validateChatRequest(body: unknown, catalog: ModelCatalog = activeCatalog()): ChatCompletionRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError('invalid_type', `The request body must be a JSON object, but got ${describe(body)}.`);
  }
  const cleaned: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (value === null && OPTIONAL_FIELDS.has(key)) continue;
    cleaned[key] = value;
  }
  const parsed = requestSchema.safeParse(cleaned, { reportInput: true });
  if (!parsed.success) {
    // Report the first problem, in field order, as OpenAI does.
    throw toApiError(parsed.error.issues[0]!);
  }
  const req = parsed.data;
  const variant = variantIn(catalog, req.model);
  if (!variant) throw modelNotFound(req.model);
  if (req.stream_options !== undefined && req.stream !== true) {
    throw new ApiError('invalid_value', "'stream_options' is only allowed when 'stream' is true.", { param: 'stream_options' });
  }
  if (req.top_logprobs !== undefined && req.logprobs !== true) {
    throw new ApiError('invalid_value', "'top_logprobs' requires 'logprobs' to be true.", { param: 'top_logprobs' });
  }
  req.messages.forEach((m, i) => {
    if (!Array.isArray(m.content)) return;
    m.content.forEach((part, j) => {
      if (part.type !== 'image_url') return;
      const param = `messages[${i}].content[${j}]`;
      if (m.role !== 'user') {
        throw new ApiError('invalid_value', `Image parts are only allowed in user messages ('${param}').`, { param });
      }
      if (!variant.vision) {
        throw new ApiError('unsupported_parameter', `The model '${req.model}' does not take image input ('${param}'); use svc-vision.`, { param });
      }
    });
  });
  return { ...req, model: req.model, variant };
}
