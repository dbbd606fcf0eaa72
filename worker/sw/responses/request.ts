// POST /v1/responses, the request side: OpenAI's Responses request → the one validated chat request the
// engine runs (one converter, as llama.cpp's server does). Items are normalised once, so what is stored,
// listed by /input_items and replayed by `previous_response_id` is the same data.
import { lazy, z } from '#shared/protocol/zod';
import { ApiError, unsupportedParameter } from '#shared/protocol/errors';
import { bodyFields, validateChatRequest, toApiError } from '#shared/protocol/validate';
import type { ChatCompletionRequest } from '#shared/protocol/types';
import { DEFAULT_CATALOG, type ModelCatalog } from '#shared/model-config';
import { itemId, mcpToolInfo, type InputTextPart, type InputImagePart, type ConversationItem, type McpCallItem } from './items';

// ---- The request ----

const BUILT_IN_TOOLS = [
  'web_search',
  'web_search_preview',
  'web_search_2025_08_26',
  'web_search_preview_2025_03_11',
  'file_search',
  'code_interpreter',
  'computer_use',
  'computer_use_preview',
  'computer',
  'image_generation',
  'local_shell',
  'shell',
  'apply_patch',
  'custom',
] as const;

/** `include` values inpage can honour; every other documented value needs a built-in tool or file storage. */
const INCLUDE_OK = new Set(['message.output_text.logprobs', 'reasoning.encrypted_content']);

const ITEM_TYPES = new Set([
  'message',
  'function_call',
  'function_call_output',
  'reasoning',
  'item_reference',
  'mcp_list_tools',
  'mcp_call',
  'mcp_approval_request',
  'mcp_approval_response',
]);

// Item references, as OpenAI answers them (status 404 / 400, `param: "input"`, `code: null`).

/** An `item_reference` this key cannot read: unknown, another key's, from a deleted or unstored response. */
export const itemNotFound = (id: string) =>
  new ApiError(
    'item_not_found',
    `Item with id '${id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
    { param: 'input' },
  );

/** An item id given twice in one prompt: in the input, or in the input and the `previous_response_id` conversation. */
export const duplicateItem = (id: string) =>
  new ApiError('duplicate_item', `Duplicate item found with id ${id}. Remove duplicate items from your input and try again.`, { param: 'input' });

/** The request's schemas (built on first use: see `lazy`). */
function buildSchemas() {
  const num = (min: number, max: number) => z.number().check(z.minimum(min), z.maximum(max));

  const textPart = z.object({ type: z.literal('input_text'), text: z.string() });
  const imagePart = z.object({
    type: z.literal('input_image'),
    image_url: z.optional(z.string()),
    file_id: z.optional(z.string()),
    detail: z.optional(z.enum(['auto', 'low', 'high'])),
  });
  const filePart = z.looseObject({ type: z.literal('input_file') });
  const outputTextPart = z.looseObject({ type: z.literal('output_text'), text: z.string() });
  const refusalPart = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });
  const contentPart = z.discriminatedUnion('type', [textPart, imagePart, filePart, outputTextPart, refusalPart]);

  const messageItem = z.object({
    type: z.literal('message'),
    role: z.enum(['user', 'system', 'developer', 'assistant']),
    content: z.union([z.string(), z.array(contentPart)]),
    id: z.optional(z.string()),
    status: z.optional(z.string()),
  });
  const functionCallItem = z.object({
    type: z.literal('function_call'),
    call_id: z.string(),
    name: z.string(),
    arguments: z.string(),
    id: z.optional(z.string()),
    status: z.optional(z.string()),
  });
  const functionCallOutputItem = z.object({
    type: z.literal('function_call_output'),
    call_id: z.string(),
    output: z.union([z.string(), z.array(z.discriminatedUnion('type', [textPart, imagePart, filePart]))]),
    id: z.optional(z.string()),
    status: z.optional(z.string()),
  });
  const reasoningItem = z.looseObject({ type: z.literal('reasoning') });
  const itemReference = z.object({ type: z.literal('item_reference'), id: z.string() });
  // Remote MCP (mcp.ts): the items a response gave, sent back as input, and the client's approval answers.
  const mcpListToolsItem = z.looseObject({
    type: z.literal('mcp_list_tools'),
    id: z.string(),
    server_label: z.string(),
    tools: z.array(
      z.looseObject({
        name: z.string(),
        description: z.optional(z.nullable(z.string())),
        input_schema: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
        annotations: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
      }),
    ),
    error: z.optional(z.nullable(z.string())),
  });
  const mcpCallItem = z.looseObject({
    type: z.literal('mcp_call'),
    id: z.string(),
    server_label: z.string(),
    name: z.string(),
    arguments: z.string(),
    output: z.optional(z.nullable(z.string())),
    error: z.optional(z.nullable(z.string())),
    status: z.optional(z.string()),
    approval_request_id: z.optional(z.nullable(z.string())),
  });
  const mcpApprovalRequestItem = z.looseObject({
    type: z.literal('mcp_approval_request'),
    id: z.string(),
    server_label: z.string(),
    name: z.string(),
    arguments: z.string(),
  });
  const mcpApprovalResponseItem = z.object({
    type: z.literal('mcp_approval_response'),
    approval_request_id: z.string(),
    approve: z.boolean(),
    reason: z.optional(z.nullable(z.string())),
    id: z.optional(z.nullable(z.string())),
  });
  const inputItem = z.discriminatedUnion('type', [
    messageItem,
    functionCallItem,
    functionCallOutputItem,
    reasoningItem,
    itemReference,
    mcpListToolsItem,
    mcpCallItem,
    mcpApprovalRequestItem,
    mcpApprovalResponseItem,
  ]);

  const functionTool = z.object({
    type: z.literal('function'),
    name: z.string().check(z.minLength(1)),
    description: z.optional(z.nullable(z.string())),
    parameters: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
    strict: z.optional(z.nullable(z.boolean())),
  });

  // OpenAI's MCPTool; `connector_id` / `tunnel_id` are refused before (refuseHosted). Secrets (`authorization`,
  // `headers`) are used for the calls only: never stored, echoed or logged (mcp.ts).
  const toolFilter = z.object({ tool_names: z.optional(z.array(z.string())), read_only: z.optional(z.boolean()) });
  const mcpTool = z.object({
    type: z.literal('mcp'),
    server_label: z.string().check(z.minLength(1), z.maxLength(64)),
    server_url: z.string(),
    server_description: z.optional(z.nullable(z.string())),
    authorization: z.optional(z.nullable(z.string())),
    headers: z.optional(z.nullable(z.record(z.string(), z.string()))),
    allowed_tools: z.optional(z.nullable(z.union([z.array(z.string()), toolFilter]))),
    require_approval: z.optional(
      z.nullable(z.union([z.enum(['always', 'never']), z.object({ always: z.optional(toolFilter), never: z.optional(toolFilter) })])),
    ),
    allowed_callers: z.optional(z.nullable(z.array(z.string()))),
    defer_loading: z.optional(z.nullable(z.boolean())),
  });

  const textFormat = z.discriminatedUnion('type', [
    z.object({ type: z.literal('text') }),
    z.object({ type: z.literal('json_object') }),
    z.object({
      type: z.literal('json_schema'),
      name: z.string(),
      schema: z.record(z.string(), z.unknown()),
      description: z.optional(z.string()),
      strict: z.optional(z.nullable(z.boolean())),
    }),
  ]);

  const requestSchema = z.looseObject({
    model: z.string(),
    input: z.union([z.string(), z.array(inputItem)]),
    instructions: z.optional(z.string()),
    max_output_tokens: z.optional(z.int().check(z.minimum(16))),
    temperature: z.optional(num(0, 2)),
    top_p: z.optional(num(0, 1)),
    top_logprobs: z.optional(z.int().check(z.minimum(0), z.maximum(20))),
    tools: z.optional(z.array(z.discriminatedUnion('type', [functionTool, mcpTool]))),
    tool_choice: z.optional(
      z.union([
        z.enum(['none', 'auto', 'required']),
        z.object({ type: z.literal('function'), name: z.string() }),
        z.object({ type: z.literal('mcp'), server_label: z.string(), name: z.optional(z.nullable(z.string())) }),
      ]),
    ),
    parallel_tool_calls: z.optional(z.boolean()),
    text: z.optional(z.object({ format: z.optional(textFormat), verbosity: z.optional(z.enum(['low', 'medium', 'high'])) })),
    reasoning: z.optional(
      z.object({
        effort: z.optional(z.nullable(z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']))),
        summary: z.optional(z.nullable(z.enum(['auto', 'concise', 'detailed']))),
      }),
    ),
    stream: z.optional(z.boolean()),
    stream_options: z.optional(z.object({ include_obfuscation: z.optional(z.boolean()) })),
    store: z.optional(z.boolean()),
    previous_response_id: z.optional(z.string()),
    metadata: z.optional(z.record(z.string().check(z.maxLength(64)), z.string().check(z.maxLength(512)))),
    user: z.optional(z.string()),
    include: z.optional(z.array(z.string())),
    background: z.optional(z.boolean()),
    truncation: z.optional(z.enum(['auto', 'disabled'])),
    service_tier: z.optional(z.string()),
    safety_identifier: z.optional(z.string()),
    prompt_cache_key: z.optional(z.string()),
    max_tool_calls: z.optional(z.int().check(z.minimum(1))),
  });
  return { functionTool, mcpTool, textFormat, requestSchema };
}
type Schemas = ReturnType<typeof buildSchemas>;
const schemas = lazy(buildSchemas);

export type ResponsesRequest = z.infer<Schemas['requestSchema']>;
export type FunctionTool = z.infer<Schemas['functionTool']>;
export type McpTool = z.infer<Schemas['mcpTool']>;
export type TextFormat = z.infer<Schemas['textFormat']>;

const unsupported = unsupportedParameter;

/** Refusals that need no schema: what asks for hosted features inpage does not have. */
function refuseHosted(body: Record<string, unknown>): void {
  if (Array.isArray(body.tools)) {
    body.tools.forEach((tool, i) => {
      const type = (tool as { type?: unknown } | null)?.type;
      if (type === 'mcp') {
        // Only servers by URL: OpenAI's connectors and tunnels are its own hosted services.
        for (const field of ['connector_id', 'tunnel_id'] as const) {
          const value = (tool as Record<string, unknown>)[field];
          if (value !== undefined && value !== null) unsupported(`tools[${i}].${field}`, "is not supported: name the MCP server by 'server_url'");
        }
        const url = (tool as Record<string, unknown>).server_url;
        if (url === undefined || url === null) {
          throw new ApiError('missing_required_parameter', `Missing required parameter: 'tools[${i}].server_url'.`, { param: `tools[${i}].server_url` });
        }
        return;
      }
      if (typeof type === 'string' && type !== 'function') {
        const known = (BUILT_IN_TOOLS as readonly string[]).includes(type) || /^(web_search|computer_use|file_search)/.test(type);
        unsupported(
          `tools[${i}].type`,
          known
            ? `'${type}' is a built-in tool of OpenAI's hosted service; only 'function' and 'mcp' tools run here`
            : `'${type}' is not a tool type inpage knows; only 'function' and 'mcp' tools run here`,
        );
      }
    });
  }
  if (body.background === true) unsupported('background', 'is not supported: responses run while the request is open (no background mode)');
  if (body.conversation !== undefined && body.conversation !== null) {
    unsupported('conversation', "is not supported: continue a conversation with 'previous_response_id'");
  }
  if (body.prompt !== undefined && body.prompt !== null) unsupported('prompt', 'is not supported: there are no stored prompt templates here');
  if (body.truncation === 'auto') unsupported('truncation', "'auto' is not supported: an input over the context is refused (400 context_length_exceeded)");
  if (Array.isArray(body.include)) {
    body.include.forEach((value, i) => {
      if (typeof value === 'string' && !INCLUDE_OK.has(value)) {
        unsupported(`include[${i}]`, `'${value}' needs a built-in tool or hosted file storage, which inpage does not have`);
      }
    });
  }
  if (Array.isArray(body.input)) {
    body.input.forEach((item, i) => {
      if (typeof item !== 'object' || item === null) return;
      const type = (item as { type?: unknown }).type;
      if (typeof type === 'string' && !ITEM_TYPES.has(type)) {
        unsupported(
          `input[${i}].type`,
          `'${type}' items are not supported (messages, function_call, function_call_output, reasoning, item_reference and the mcp_* items are)`,
        );
      }
    });
  }
}

/** Checks the body's shape and the refusals; returns the parsed request. */
export function parseResponsesRequest(body: unknown): ResponsesRequest {
  const cleaned = bodyFields(body, ['model', 'input']);
  refuseHosted(cleaned);
  // Easy input messages ({role, content}) carry no `type`: they are messages. An item reference's `type` is
  // optional too: `{id}` alone is one.
  if (Array.isArray(cleaned.input)) {
    cleaned.input = cleaned.input.map((item: unknown) => {
      if (typeof item !== 'object' || item === null || ('type' in item && item.type !== null)) return item;
      if ('role' in item) return { ...item, type: 'message' };
      return 'id' in item ? { ...item, type: 'item_reference' } : item;
    });
  }
  const parsed = schemas().requestSchema.safeParse(cleaned, { reportInput: true });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    if (issue.path[0] === 'max_output_tokens' && issue.code === 'too_small') {
      throw new ApiError(
        'invalid_value',
        `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got ${String(cleaned.max_output_tokens)} instead.`,
        { param: 'max_output_tokens' },
      );
    }
    throw toApiError(issue);
  }
  return parsed.data;
}

/** The ids of the stored items the request's `item_reference` items name, for the store to look up. */
export function referencedIds(request: ResponsesRequest): string[] {
  if (typeof request.input === 'string') return [];
  return request.input.flatMap((item) => (item.type === 'item_reference' ? [item.id] : []));
}

/**
 * The request's input as items with ids (as stored and listed by /input_items), each with the field it came
 * from. `referenced` holds the stored items its `item_reference`s name that this key can read; `previous` is
 * the conversation `previous_response_id` continues (an id given again is a duplicate).
 */
function normaliseInput(
  request: ResponsesRequest,
  referenced: ReadonlyMap<string, ConversationItem>,
  previous: readonly ConversationItem[],
): { item: ConversationItem; origin: Origin }[] {
  if (typeof request.input === 'string') {
    return [
      {
        item: { id: itemId('msg'), type: 'message', role: 'user', content: [{ type: 'input_text', text: request.input }], status: 'completed' },
        origin: 'input',
      },
    ];
  }
  const seen = new Set(previous.map((item) => item.id));
  const out: { item: ConversationItem; origin: Origin }[] = [];
  request.input.forEach((item, i) => {
    const at = `input[${i}]`;
    const add = (normalised: ConversationItem) => out.push({ item: normalised, origin: at });
    const given = 'id' in item && typeof item.id === 'string' ? item.id : undefined;
    if (given !== undefined) {
      if (seen.has(given)) throw duplicateItem(given);
      seen.add(given);
    }
    switch (item.type) {
      case 'message': {
        const parts = typeof item.content === 'string' ? [{ type: 'input_text' as const, text: item.content }] : item.content;
        if (item.role === 'assistant') {
          const text = parts
            .map((part, j) => {
              if (part.type === 'output_text' || part.type === 'input_text') return part.text;
              if (part.type === 'refusal') return part.refusal;
              return unsupported(`${at}.content[${j}]`, 'is not supported: assistant messages carry text only');
            })
            .join('');
          add({
            id: item.id ?? itemId('msg'),
            type: 'message',
            role: 'assistant',
            content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
            status: 'completed',
          });
          return;
        }
        const content = parts.map((part, j): InputTextPart | InputImagePart => {
          const param = `${at}.content[${j}]`;
          if (part.type === 'input_text' || part.type === 'output_text') return { type: 'input_text', text: part.text };
          if (part.type === 'input_image') {
            if (part.file_id !== undefined)
              unsupported(`${param}.file_id`, "is not supported: there is no file storage here; send the image as 'image_url' (a data: or http(s) URL)");
            if (part.image_url === undefined) {
              throw new ApiError('missing_required_parameter', `Missing required parameter: '${param}.image_url'.`, { param: `${param}.image_url` });
            }
            return { type: 'input_image', image_url: part.image_url, detail: part.detail ?? 'auto' };
          }
          if (part.type === 'input_file') return unsupported(param, 'is not supported: input files need hosted file storage, which inpage does not have');
          return unsupported(param, `'${part.type}' parts are not supported in '${item.role}' messages`);
        });
        add({ id: item.id ?? itemId('msg'), type: 'message', role: item.role, content, status: 'completed' });
        return;
      }
      case 'function_call':
        add({ id: item.id ?? itemId('fc'), type: 'function_call', call_id: item.call_id, name: item.name, arguments: item.arguments, status: 'completed' });
        return;
      case 'function_call_output': {
        const output =
          typeof item.output === 'string'
            ? item.output
            : item.output
                .map((part, j) =>
                  part.type === 'input_text' ? part.text : unsupported(`${at}.output[${j}]`, 'is not supported: function output is text here'),
                )
                .join('');
        add({ id: item.id ?? itemId('fco'), type: 'function_call_output', call_id: item.call_id, output, status: 'completed' });
        return;
      }
      case 'item_reference': {
        const found = referenced.get(item.id);
        if (!found) throw itemNotFound(item.id);
        // A reasoning item is left out, as one sent in full is (below).
        if (found.type !== 'reasoning') add(found);
        return;
      }
      case 'reasoning':
        // Earlier thinking is not part of the next prompt (Qwen3's chat template drops it too): not kept.
        return;
      case 'mcp_approval_response':
        add({
          id: item.id ?? itemId('mcpa'),
          type: 'mcp_approval_response',
          approval_request_id: item.approval_request_id,
          approve: item.approve,
          reason: item.reason ?? null,
        });
        return;
      case 'mcp_list_tools':
        add({
          id: item.id,
          type: 'mcp_list_tools',
          server_label: item.server_label,
          tools: item.tools.map(mcpToolInfo),
          error: item.error ?? null,
        });
        return;
      case 'mcp_call':
        add({
          id: item.id,
          type: 'mcp_call',
          server_label: item.server_label,
          name: item.name,
          arguments: item.arguments,
          output: item.output ?? null,
          error: item.error ?? null,
          status: item.error ? 'failed' : 'completed',
          approval_request_id: item.approval_request_id ?? null,
        });
        return;
      case 'mcp_approval_request':
        add({ id: item.id, type: 'mcp_approval_request', server_label: item.server_label, name: item.name, arguments: item.arguments });
        return;
    }
  });
  return out;
}

/** Where each chat message came from, to name Responses fields in errors about chat fields. */
type Origin = string;

interface ChatBody {
  messages: Record<string, unknown>[];
  origins: Origin[];
}

/** Conversation items → chat messages; consecutive function calls become one assistant turn's tool calls. */
/** What the model reads of an MCP call: its output, or its error. */
function mcpResult(item: McpCallItem): string {
  return item.error !== null ? `Error: ${item.error}` : (item.output ?? '');
}

function toChatMessages(
  instructions: string | undefined,
  items: readonly { item: ConversationItem; origin: Origin }[],
  mcpNames?: (label: string, name: string) => string | undefined,
): ChatBody {
  const messages: Record<string, unknown>[] = [];
  const origins: Origin[] = [];
  if (instructions !== undefined) {
    messages.push({ role: 'system', content: instructions });
    origins.push('instructions');
  }
  // Remote MCP: an approval request is the model's call; its answer is the approved call's result, or the denial.
  const answers = new Map<string, string>();
  for (const { item } of items) {
    if (item.type === 'mcp_call' && item.approval_request_id !== null) answers.set(item.approval_request_id, mcpResult(item));
    if (item.type === 'mcp_approval_response' && !item.approve && !answers.has(item.approval_request_id)) {
      answers.set(item.approval_request_id, `The user did not approve this call${item.reason ? `: ${item.reason}` : '.'}`);
    }
  }
  const call = (id: string, name: string, args: string, origin: Origin) => {
    const toolCall = { id, type: 'function', function: { name, arguments: args } };
    const last = messages[messages.length - 1];
    if (last?.role === 'assistant' && last.tool_calls !== undefined) {
      last.tool_calls = [...(last.tool_calls as unknown[]), toolCall];
    } else {
      messages.push({ role: 'assistant', content: null, tool_calls: [toolCall] });
      origins.push(origin);
    }
  };
  for (const { item, origin } of items) {
    switch (item.type) {
      case 'mcp_list_tools':
      case 'mcp_approval_response':
        break;
      case 'mcp_approval_request': {
        const answer = answers.get(item.id);
        if (answer === undefined) break; // never answered: not part of the prompt
        call(item.id, mcpNames?.(item.server_label, item.name) ?? item.name, item.arguments, origin);
        messages.push({ role: 'tool', tool_call_id: item.id, content: answer });
        origins.push(origin);
        break;
      }
      case 'mcp_call':
        if (item.approval_request_id !== null && items.some(({ item: i }) => i.type === 'mcp_approval_request' && i.id === item.approval_request_id)) break;
        call(item.id, mcpNames?.(item.server_label, item.name) ?? item.name, item.arguments, origin);
        messages.push({ role: 'tool', tool_call_id: item.id, content: mcpResult(item) });
        origins.push(origin);
        break;
      case 'message': {
        if (item.role === 'assistant') {
          messages.push({ role: 'assistant', content: item.content.map((p) => p.text).join('') });
        } else {
          const onlyText = item.content.every((p) => p.type === 'input_text');
          const content = onlyText
            ? item.content.map((p) => (p as InputTextPart).text).join('')
            : item.content.map((p) =>
                p.type === 'input_text' ? { type: 'text', text: p.text } : { type: 'image_url', image_url: { url: p.image_url, detail: p.detail } },
              );
          messages.push({ role: item.role, content });
        }
        origins.push(origin);
        break;
      }
      case 'function_call': {
        const call = { id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } };
        const last = messages[messages.length - 1];
        if (last?.role === 'assistant') {
          last.tool_calls = [...((last.tool_calls as unknown[] | undefined) ?? []), call];
        } else {
          messages.push({ role: 'assistant', content: null, tool_calls: [call] });
          origins.push(origin);
        }
        break;
      }
      case 'function_call_output':
        messages.push({ role: 'tool', tool_call_id: item.call_id, content: item.output });
        origins.push(origin);
        break;
      case 'reasoning':
        break;
    }
  }
  return { messages, origins };
}

/** Renames a chat field in an error to the Responses field it came from. */
export function renameParam(err: unknown, origins: readonly Origin[]): unknown {
  if (!(err instanceof ApiError) || err.param === null) return err;
  const param = err.param;
  const fixed: Record<string, string> = {
    max_completion_tokens: 'max_output_tokens',
    max_tokens: 'max_output_tokens',
    reasoning_effort: 'reasoning.effort',
    response_format: 'text.format',
    messages: 'input',
  };
  let renamed: string | null = null;
  const message = /^messages\[(\d+)\](.*)$/.exec(param);
  if (message) {
    const origin = origins[Number(message[1])];
    if (origin !== undefined) {
      const rest = message[2]!;
      // Chat content parts are the input's parts in the same order; `image_url.detail` is `detail` here. A tool
      // message is a function_call_output item: its `tool_call_id` is `call_id`, its content `output`.
      renamed = !origin.startsWith('input[')
        ? origin
        : origin +
          rest
            .replace('.image_url.detail', '.detail')
            .replace(/^\.role$/, '')
            .replace(/^\.tool_call_id/, '.call_id')
            .replace(/^\.tool_calls\[\d+\]/, '');
    }
  } else {
    for (const [from, to] of Object.entries(fixed)) {
      if (param === from || param.startsWith(`${from}.`) || param.startsWith(`${from}[`)) {
        renamed = to + param.slice(from.length);
        break;
      }
    }
  }
  if (renamed === null || renamed === param) return err;
  const message2 = err.message.split(`'${param}'`).join(`'${renamed}'`);
  return new ApiError(err.code, message2, { param: renamed, ...(err.retryAfter !== undefined ? { retryAfter: err.retryAfter } : {}) });
}

export interface Converted {
  chat: ChatCompletionRequest;
  /** This request's input, normalised (stored, and listed by /input_items). */
  inputItems: ConversationItem[];
  /** Chat message index → the Responses field it came from. */
  origins: Origin[];
}

/**
 * The Responses request (and the stored conversation `previous_response_id` names) as the chat request the
 * engine runs. Every refusal names the Responses field.
 */
/** Remote MCP (mcp.ts): the functions the model is offered for the MCP tools, and what this response did so far. */
export interface McpTurn {
  /** The chat tools standing for the MCP servers' tools. */
  tools: Record<string, unknown>[];
  /** The function name the model knows a server's tool by. */
  nameOf: (label: string, name: string) => string | undefined;
  /** This response's output so far (listings, calls): the model's earlier turns of the tool loop. */
  output: readonly ConversationItem[];
  /** The chat `tool_choice` of this turn (a named MCP tool; `auto` or `none` after the first call), if it differs. */
  toolChoice?: unknown;
}

export function toChatRequest(
  request: ResponsesRequest,
  previous: readonly ConversationItem[] = [],
  referenced: ReadonlyMap<string, ConversationItem> = new Map(),
  catalog: ModelCatalog = DEFAULT_CATALOG,
  mcp?: McpTurn,
): Converted {
  const input = normaliseInput(request, referenced, previous);
  const inputItems = input.map(({ item }) => item);
  const items = [
    ...previous.map((item) => ({ item, origin: 'previous_response_id' })),
    ...input,
    ...(mcp?.output ?? []).map((item) => ({ item, origin: 'output' })),
  ];
  const { messages, origins } = toChatMessages(request.instructions, items, mcp?.nameOf);
  if (messages.length === 0 || (request.instructions !== undefined && messages.length === 1)) {
    throw new ApiError('invalid_value', "Invalid 'input': it holds no message for the model to answer.", { param: 'input' });
  }
  const logprobs = request.include?.includes('message.output_text.logprobs') === true || request.top_logprobs !== undefined;
  const body: Record<string, unknown> = {
    model: request.model,
    messages,
    stream: request.stream,
    temperature: request.temperature,
    top_p: request.top_p,
    max_completion_tokens: request.max_output_tokens,
    user: request.user,
  };
  if (logprobs) {
    body.logprobs = true;
    if (request.top_logprobs !== undefined) body.top_logprobs = request.top_logprobs;
  }
  const format = request.text?.format;
  if (format?.type === 'json_schema') {
    const { type, ...schema } = format;
    body.response_format = { type, json_schema: schema };
  } else if (format) {
    body.response_format = format;
  }
  const effort = request.reasoning?.effort;
  if (effort !== undefined && effort !== null) body.reasoning_effort = effort === 'xhigh' || effort === 'max' ? 'high' : effort;
  const functions = (request.tools ?? []).flatMap((t) =>
    t.type !== 'function'
      ? []
      : [
          {
            type: 'function',
            function: {
              name: t.name,
              ...(t.description ? { description: t.description } : {}),
              ...(t.parameters ? { parameters: t.parameters } : {}),
              ...(t.strict != null ? { strict: t.strict } : {}),
            },
          },
        ],
  );
  const tools = [...functions, ...(mcp?.tools ?? [])];
  if (tools.length > 0) body.tools = tools;
  const choice = request.tool_choice;
  if (mcp?.toolChoice !== undefined) {
    body.tool_choice = mcp.toolChoice;
  } else if (choice !== undefined && (typeof choice === 'string' || choice.type === 'function')) {
    body.tool_choice = typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
  }
  if (request.parallel_tool_calls !== undefined) body.parallel_tool_calls = request.parallel_tool_calls;
  for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
  try {
    return { chat: validateChatRequest(body, catalog), inputItems, origins };
  } catch (err) {
    throw renameParam(err, origins);
  }
}
