// Request-body validation: a zod schema for the shape, then docs/contract.md's codes for what zod reports.
import { lazy, z } from './zod';
import { acceptPlainChat } from './fast-accept';
import { ApiError } from './errors';
import { modelNotFound, unsupportedParameter } from './errors';
import { DEFAULT_CATALOG, variantIn, type ModelCatalog } from '../model-config';
import type { ModelId, Variant } from '../variants';

/** The chat request's schemas (built on first use: see `lazy`). */
function buildSchemas() {
  const num = (min: number, max: number) => z.number().check(z.minimum(min), z.maximum(max));
  const positiveInt = z.int().check(z.minimum(1));

  const textPart = z.object({ type: z.literal('text'), text: z.string() });
  const imagePart = z.object({
    type: z.literal('image_url'),
    image_url: z.object({
      url: z.string().check(z.regex(/^(data:image\/[a-z0-9.+-]+;base64,|https?:\/\/|blob:)/i, 'must be a data:image URL or an http(s) URL')),
      detail: z.optional(z.enum(['auto', 'low', 'high'])),
    }),
  });
  const contentPart = z.discriminatedUnion('type', [textPart, imagePart]);

  // Assistant turns carry `content: null` (or none) when they are only tool calls; it means "no text".
  const content = z.union([z.string(), z.array(contentPart)]);
  // Tool results are text only (parts joined by a newline).
  const textContent = z.union([z.string(), z.array(textPart)]);

  const toolCall = z.object({
    id: z.string(),
    type: z.literal('function'),
    function: z.object({ name: z.string(), arguments: z.string() }),
  });
  const legacyCall = z.object({ name: z.string(), arguments: z.string() });

  // OpenAI's rule for function names.
  const functionName = z.string().check(z.regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, underscores or dashes'));
  const functionDefinition = z.object({
    name: functionName,
    description: z.optional(z.string()),
    parameters: z.optional(z.record(z.string(), z.unknown())),
    strict: z.optional(z.nullable(z.boolean())),
  });
  const functionTool = z.object({ type: z.literal('function'), function: functionDefinition });
  const toolChoice = z.union([z.enum(['auto', 'none', 'required']), z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) })]);
  const legacyFunctionCall = z.union([z.enum(['auto', 'none']), z.object({ name: z.string() })]);

  const message = z.discriminatedUnion('role', [
    z.object({ role: z.enum(['system', 'developer', 'user']), content, name: z.optional(z.string()) }),
    z.object({
      role: z.literal('assistant'),
      content: z.pipe(
        z.optional(z.nullable(content)),
        z.transform((text) => text ?? ''),
      ),
      name: z.optional(z.string()),
      refusal: z.optional(z.nullable(z.string())),
      tool_calls: z.optional(z.array(toolCall)),
      /** Legacy; validation moves it into `tool_calls`, so engines never see it. */
      function_call: z.optional(z.nullable(legacyCall)),
    }),
    z.object({ role: z.literal('tool'), content: textContent, tool_call_id: z.string() }),
    // Legacy: the result of a `function_call`; validation turns it into the `tool` message answering it.
    z.object({
      role: z.literal('function'),
      name: z.string(),
      content: z.pipe(
        z.nullable(z.string()),
        z.transform((text) => text ?? ''),
      ),
    }),
  ]);

  const responseFormat = z.discriminatedUnion('type', [
    z.object({ type: z.literal('text') }),
    z.object({ type: z.literal('json_object') }),
    z.object({
      type: z.literal('json_schema'),
      json_schema: z.object({
        name: z.string(),
        description: z.optional(z.string()),
        schema: z.optional(z.record(z.string(), z.unknown())),
        strict: z.optional(z.nullable(z.boolean())),
      }),
    }),
  ]);

  const requestSchema = z.object({
    model: z.string(),
    messages: z.array(message).check(z.minLength(1)),
    stream: z.optional(z.boolean()),
    stream_options: z.optional(z.object({ include_usage: z.optional(z.boolean()) })),
    temperature: z.optional(num(0, 2)),
    top_p: z.optional(num(0, 1)),
    max_tokens: z.optional(positiveInt),
    max_completion_tokens: z.optional(positiveInt),
    stop: z.optional(z.union([z.string(), z.array(z.string()).check(z.maxLength(4))])),
    seed: z.optional(z.int()),
    presence_penalty: z.optional(num(-2, 2)),
    frequency_penalty: z.optional(num(-2, 2)),
    n: z.optional(positiveInt.check(z.maximum(128))),
    logprobs: z.optional(z.boolean()),
    top_logprobs: z.optional(z.int().check(z.minimum(0), z.maximum(5))),
    response_format: z.optional(responseFormat),
    reasoning_effort: z.optional(z.enum(['none', 'minimal', 'low', 'medium', 'high'])),
    tools: z.optional(z.array(functionTool)),
    tool_choice: z.optional(toolChoice),
    parallel_tool_calls: z.optional(z.boolean()),
    functions: z.optional(z.array(functionDefinition).check(z.minLength(1))),
    function_call: z.optional(legacyFunctionCall),
    logit_bias: z.optional(z.record(z.string().check(z.regex(/^\d+$/, 'keys must be token ids')), num(-100, 100))),
    // Refused after parsing when they ask for what no model here does (audio, web search).
    modalities: z.optional(z.array(z.enum(['text', 'audio']))),
    audio: z.optional(z.unknown()),
    web_search_options: z.optional(z.unknown()),
    // Accepted and ignored: they change nothing about the answer (README lists them).
    user: z.optional(z.string()),
    store: z.optional(z.boolean()),
    metadata: z.optional(z.record(z.string(), z.string())),
    service_tier: z.optional(z.string()),
    prediction: z.optional(z.object({ type: z.literal('content'), content: textContent })),
    verbosity: z.optional(z.enum(['low', 'medium', 'high'])),
    safety_identifier: z.optional(z.string()),
    prompt_cache_key: z.optional(z.string()),
  });
  return { textPart, imagePart, contentPart, message, toolCall, functionTool, toolChoice, responseFormat, requestSchema };
}
type Schemas = ReturnType<typeof buildSchemas>;
const schemas = lazy(buildSchemas);

/** The schema's output for a body, or the ApiError for its first problem (in field order, as OpenAI reports). */
function parseWithSchemas(body: Record<string, unknown>): ChatRequestBody {
  const parsed = schemas().requestSchema.safeParse(body, { reportInput: true });
  if (!parsed.success) throw toApiError(parsed.error.issues[0]!);
  return parsed.data;
}

/** The request schema itself, for the tests that hold the plain-chat path (fast-accept.ts) to it. */
export const chatRequestSchema = () => schemas().requestSchema;
/** Whether the chat schemas have been built in this realm (a plain chat does not build them). */
export const chatSchemasBuilt = () => schemas.built;

// Unknown top-level fields are ignored (zod drops them), as Ollama and llama.cpp do.

// The request types, declared once by the schema above (src/shared/protocol/types.ts re-exports them).
export type ContentPart = z.output<Schemas['contentPart']>;
type WireMessage = z.output<Schemas['message']>;
/**
 * One message after validation: legacy `function` messages are `tool` messages by then, and an assistant's
 * legacy `function_call` is one of its `tool_calls` (the field itself is never set).
 */
export type ChatMessage = Exclude<WireMessage, { role: 'function' }>;
/** A call the assistant made, in a request's history or an answer; `arguments` is JSON text. */
export type ToolCall = z.output<Schemas['toolCall']>;
/** A function the model may call; `parameters` is a JSON Schema (absent: no arguments). */
export type FunctionTool = z.output<Schemas['functionTool']>;
export type ResponseFormat = z.output<Schemas['responseFormat']>;
/** A request body as a client sends it, once its fields are checked (the model id not yet resolved). */
export type ChatRequestBody = z.output<Schemas['requestSchema']>;
export type ReasoningEffort = NonNullable<ChatRequestBody['reasoning_effort']>;

/**
 * A request after validation: every field is of the right type and in range, and the model is resolved to the
 * variant that serves it, once, here: the service worker, the engine worker and every engine read `variant`.
 */
export type ChatCompletionRequest = Omit<
  ChatRequestBody,
  'model' | 'messages' | 'functions' | 'function_call' | 'modalities' | 'audio' | 'web_search_options'
> & {
  model: ModelId;
  variant: Variant;
  messages: ChatMessage[];
  /**
   * Set by validation (never read from the body): the request used the legacy `functions`, so the answer
   * takes the legacy shape (`message.function_call`, `finish_reason: "function_call"`) and holds one call.
   */
  legacy_functions?: boolean;
  /**
   * Legacy completions only, set by their converter (worker/sw/completions/request.ts) and never taken from a
   * client: the text to continue as it is, without the chat template and without thinking.
   */
  raw_prompt?: string;
};

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

export function toApiError(issue: Issue): ApiError {
  const param = paramName(issue.path);
  const input = (issue as { input?: unknown }).input;
  // Parsed JSON holds no undefined values: undefined means the field is absent.
  const absent = input === undefined;
  if (absent && (issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union')) {
    return new ApiError('missing_required_parameter', `Missing required parameter: '${param}'.`, { param });
  }
  // A discriminated union names its discriminator; the input is then the object without a valid one.
  const discriminator = (issue as { discriminator?: string }).discriminator;
  if (issue.code === 'invalid_union' && discriminator !== undefined && typeof input === 'object' && input !== null) {
    const got = (input as Record<string, unknown>)[discriminator];
    if (got === undefined) return new ApiError('missing_required_parameter', `Missing required parameter: '${param}'.`, { param });
    return new ApiError('invalid_value', `Invalid value for '${param}': ${describe(got)} is not one of ${issue.message.replace(/^.*Expected /, '')}.`, {
      param,
    });
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
 * A request body's fields, without the `null`s clients send to mean "not set" on optional fields (every field
 * but `required`). A body that is not a JSON object is 400 invalid_type.
 */
export function bodyFields(body: unknown, required: readonly string[]): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError('invalid_type', `The request body must be a JSON object, but got ${describe(body)}.`);
  }
  return Object.fromEntries(Object.entries(body).filter(([key, value]) => value !== null || required.includes(key)));
}

/**
 * Checks a parsed JSON body against docs/contract.md. Throws the ApiError the caller must see; returns the
 * request with `null` optional fields dropped (clients send `null` to mean "not set") and its variant resolved.
 * `catalog`: the deployment's (the service worker's, from the engine's port offer); by default the five as they ship.
 */
export function validateChatRequest(body: unknown, catalog: ModelCatalog = DEFAULT_CATALOG): ChatCompletionRequest {
  const cleaned = bodyFields(body, ['model', 'messages']);
  delete cleaned.raw_prompt; // the legacy-completions converter's, never a client's
  const req = (acceptPlainChat(cleaned) as ChatRequestBody | undefined) ?? parseWithSchemas(cleaned);
  const variant = variantIn(catalog, req.model);
  if (!variant) throw modelNotFound(req.model);
  if (req.stream_options !== undefined && req.stream !== true) {
    throw new ApiError('invalid_value', "'stream_options' is only allowed when 'stream' is true.", { param: 'stream_options' });
  }
  if (req.top_logprobs !== undefined && req.logprobs !== true) {
    throw new ApiError('invalid_value', "'top_logprobs' requires 'logprobs' to be true.", { param: 'top_logprobs' });
  }
  const unsupported = unsupportedParameter;
  if (req.modalities?.includes('audio')) unsupported('modalities', 'asks for audio output, which no model here produces');
  if (req.audio !== undefined && req.audio !== null) unsupported('audio', 'is not supported: no model here produces audio');
  if (req.web_search_options !== undefined && req.web_search_options !== null) {
    unsupported('web_search_options', 'is not supported: the models run in the page and cannot search the web');
  }
  if (variant.embeddings) {
    throw new ApiError('invalid_value', `The model '${req.model}' is an embedding model and does not generate text; use it with POST /v1/embeddings.`, {
      param: 'model',
    });
  }
  req.messages.forEach((m, i) => {
    if (m.role === 'tool' || m.role === 'function' || !Array.isArray(m.content)) return;
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
  // The schema strips unknown fields, so `legacy_functions` is never taken from the body.
  const { functions, function_call, messages: raw, modalities: _m, audio: _a, web_search_options: _w, ...rest } = req;
  const out: ChatCompletionRequest = { ...rest, model: req.model, variant, messages: normalizeMessages(raw) };
  if (out.tools?.length === 0) delete out.tools; // no tools: as if absent
  if (functions !== undefined) {
    if (req.tools !== undefined) {
      throw new ApiError('invalid_value', "Use either 'tools' or the legacy 'functions', not both.", { param: 'functions' });
    }
    out.tools = functions.map((f) => ({ type: 'function' as const, function: f }));
    out.legacy_functions = true;
    // The legacy answer holds one call.
    out.parallel_tool_calls = false;
  }
  if (function_call !== undefined) {
    if (functions === undefined) {
      throw new ApiError('invalid_value', "'function_call' is only allowed when 'functions' are specified.", { param: 'function_call' });
    }
    if (req.tool_choice !== undefined) {
      throw new ApiError('invalid_value', "Use either 'tool_choice' or the legacy 'function_call', not both.", { param: 'function_call' });
    }
    out.tool_choice = typeof function_call === 'string' ? function_call : { type: 'function', function: { name: function_call.name } };
  }
  checkTools(out);
  return out;
}

/**
 * Messages as engines take them: content never null, legacy `function_call` / `function` turns as tool calls
 * and tool messages; a tool message must answer a call of the assistant turn before it, as OpenAI requires.
 */
function normalizeMessages(messages: readonly WireMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  // The calls of the last assistant turn that no tool message has answered yet.
  let open: ToolCall[] = [];
  messages.forEach((m, i) => {
    switch (m.role) {
      case 'assistant': {
        const calls: ToolCall[] = [...(m.tool_calls ?? [])];
        if (m.function_call) calls.push({ id: `call_legacy_${i}`, type: 'function', function: { ...m.function_call } });
        const turn: ChatMessage = { role: 'assistant', content: m.content };
        if (m.name !== undefined) turn.name = m.name;
        if (calls.length > 0) turn.tool_calls = calls;
        out.push(turn);
        open = calls;
        return;
      }
      case 'tool':
      case 'function': {
        const param = `messages[${i}].role`;
        const answered = m.role === 'tool' ? open.find((c) => c.id === m.tool_call_id) : open.find((c) => c.function.name === m.name);
        if (!answered) {
          const what = m.role === 'tool' ? `'tool_call_id' ${JSON.stringify(m.tool_call_id)}` : `function ${JSON.stringify(m.name)}`;
          throw new ApiError(
            'invalid_value',
            `Invalid parameter: a message with role '${m.role}' must answer a tool call of the assistant message before it, and ${what} is none of its open calls ('${param}').`,
            { param },
          );
        }
        open = open.filter((c) => c !== answered);
        out.push({ role: 'tool', content: m.content, tool_call_id: answered.id });
        return;
      }
      default: {
        const turn: ChatMessage = { role: m.role, content: m.content };
        if (m.name !== undefined) turn.name = m.name;
        out.push(turn);
        open = [];
      }
    }
  });
  return out;
}

/** Names are unique, and a named `tool_choice` names one of the tools. */
function checkTools(req: ChatCompletionRequest): void {
  const names = new Set<string>();
  req.tools?.forEach((t, i) => {
    const param = req.legacy_functions ? `functions[${i}].name` : `tools[${i}].function.name`;
    if (names.has(t.function.name)) {
      throw new ApiError('invalid_value', `Invalid value for '${param}': the name '${t.function.name}' is used twice.`, { param });
    }
    names.add(t.function.name);
  });
  const param = req.legacy_functions ? 'function_call' : 'tool_choice';
  if (req.tool_choice === undefined) return;
  if (req.tools === undefined && req.tool_choice !== 'auto' && req.tool_choice !== 'none') {
    throw new ApiError('invalid_value', "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", { param });
  }
  if (typeof req.tool_choice === 'object' && !names.has(req.tool_choice.function.name)) {
    throw new ApiError('invalid_value', `Invalid value for '${param}': no function named '${req.tool_choice.function.name}' is among the tools.`, { param });
  }
}
