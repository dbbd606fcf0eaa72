// A checked /v1 request → wllama's chat-completion parameters (llama-server's OpenAI dialect). Thinking is
// Qwen3's template switch (`enable_thinking`); stop sequences are applied by inpage to the answer (run.ts),
// not given to llama.cpp, which would match them against the thinking as well. Image parts of a user turn
// become wllama's image parts (the image's bytes, read beforehand: images.ts), in their place among the text.
import type { ChatMessage } from '#shared/protocol/types';
import { checkSchema, jsonFormatBesideAutoTools, jsonObjectGrammar, jsonSchemaGrammar, thinkingFirst } from '../common/json-grammar';
import type { PlannedRequest, ToolPlan } from '../common/plan';

/** wllama's content parts: text, or an image's bytes (it puts llama.cpp's media marker in the image's place). */
export type LlamaContentPart = { type: 'text'; text: string } | { type: 'image'; data: ArrayBuffer };

export type LlamaMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | LlamaContentPart[] }
  | { role: 'assistant'; content: string; tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[] }
  | { role: 'tool'; content: string; tool_call_id: string };

interface LlamaTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: unknown };
}

/** What run.ts and wllama need (wllama's ChatCompletionParams, minus the stream switches added at the call). */
export interface LlamaParams {
  messages: LlamaMessage[];
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  seed?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  logprobs?: boolean;
  top_logprobs?: number;
  /** inpage's grammar (common/json-grammar.ts) for json_object / json_schema and forced calls, in llama.cpp's GBNF. */
  grammar?: string;
  logit_bias?: Record<string, number>;
  tools?: LlamaTool[];
  tool_choice?: 'auto' | 'none';
  parallel_tool_calls?: boolean;
  chat_template_kwargs: { enable_thinking: boolean };
}

function textOf(content: ChatMessage['content'] | undefined): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .filter((part) => part.type === 'text')
    .map((part) => (part as { text: string }).text)
    .join('\n');
}

/** A user turn's content: text, or its parts in order when it carries images (bytes by original URL). */
function userContent(content: ChatMessage['content'], images: ReadonlyMap<string, ArrayBuffer>): string | LlamaContentPart[] {
  if (!Array.isArray(content) || !content.some((part) => part.type === 'image_url')) return textOf(content);
  return content.map((part): LlamaContentPart => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    const data = images.get(part.image_url.url);
    if (!data) throw new Error(`The image at ${part.image_url.url.slice(0, 60)} was not read before translation.`);
    // A copy per part: wllama hands each image's buffer to its worker.
    return { type: 'image', data: data.slice(0) };
  });
}

/** Text with each lone UTF-16 surrogate replaced by U+FFFD, as a UTF-8 encoder writes it. */
function wellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/**
 * `value` with every string (keys too) well-formed. llama.cpp reads the request as JSON and refuses a lone
 * surrogate's escape (\ud800) with a C++ exception that wllama (3.8.1, still 3.13.0) surfaces only as "Invalid typed array
 * length"; text can hold no lone surrogate in UTF-8 anyway, so this is what any UTF-8 client would send.
 */
function wellFormedDeep<T>(value: T): T {
  if (typeof value === 'string') return wellFormed(value) as T;
  if (Array.isArray(value)) return value.map(wellFormedDeep) as T;
  if (typeof value === 'object' && value !== null && !(value instanceof ArrayBuffer)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [wellFormed(k), wellFormedDeep(v)])) as T;
  }
  return value;
}

/**
 * A past call's arguments for llama.cpp, which parses them as JSON for the chat template (a C++ exception when
 * they are not, surfaced by wllama (3.8.1, still 3.13.0) as "Invalid typed array length"). A history may hold any text there,
 * e.g. a call cut by max_tokens ('{"city": "Os'): what is not JSON goes as a JSON string of the text, which
 * llama.cpp parses back into that text, so a template that writes string arguments as they are renders it
 * exactly as written. That string is made of the well-formed text: JSON.stringify writes a lone surrogate as its
 * escape ("\udfff"), which llama.cpp refuses as well, and which no later replacement could see.
 */
function templateArguments(args: string): string {
  try {
    // JSON the way llama.cpp reads it: escapes of lone surrogates ("\ud800") are not.
    const value: unknown = JSON.parse(wellFormed(args));
    if (JSON.stringify(wellFormedDeep(value)) === JSON.stringify(value)) return args;
  } catch {
    // Not JSON: below.
  }
  return JSON.stringify(wellFormed(args));
}

export function translateRequest(request: PlannedRequest, images: ReadonlyMap<string, ArrayBuffer> = new Map()): LlamaParams {
  return wellFormedDeep(translate(request, images));
}

function translate({ messages: given, plan }: PlannedRequest, images: ReadonlyMap<string, ArrayBuffer>): LlamaParams {
  const messages: LlamaMessage[] = given.map((m): LlamaMessage => {
    switch (m.role) {
      case 'user':
        return { role: 'user', content: userContent(m.content, images) };
      case 'tool':
        return { role: 'tool', content: textOf(m.content), tool_call_id: m.tool_call_id };
      case 'assistant': {
        const turn: LlamaMessage = { role: 'assistant', content: textOf(m.content) };
        if (m.tool_calls?.length) {
          turn.tool_calls = m.tool_calls.map((c) => ({
            id: c.id,
            type: 'function',
            function: { name: c.function.name, arguments: templateArguments(c.function.arguments) },
          }));
        }
        return turn;
      }
      default:
        // `developer` is OpenAI's newer name for the system role.
        return { role: 'system', content: textOf(m.content) };
    }
  });
  const params: LlamaParams = { messages, chat_template_kwargs: { enable_thinking: plan.thinking }, ...plan.sampling };
  // A grammar runs from the first token: a variant that thinks may think first (llama.cpp splits it off).
  const held = (grammar: string) => (plan.thinking ? thinkingFirst(grammar) : grammar);
  if (plan.maxTokens !== undefined) params.max_tokens = plan.maxTokens;
  if (plan.logprobs !== null) {
    // llama.cpp gives 20 alternatives when top_logprobs is absent, and no logprobs at all for 0: at least one
    // is asked for, and run.ts cuts them back to the client's count.
    params.logprobs = true;
    params.top_logprobs = Math.max(1, plan.logprobs);
  }
  const tools = plan.tools;
  if (tools) {
    const offered = tools.mode === 'named' ? tools.tools.filter((t) => t.function.name === tools.name) : tools.tools;
    params.tools = offered.map((t) => {
      const fn: LlamaTool['function'] = { name: t.function.name };
      if (t.function.description !== undefined) fn.description = t.function.description;
      if (t.function.parameters !== undefined) fn.parameters = t.function.parameters;
      return { type: 'function', function: fn };
    });
    params.parallel_tool_calls = tools.parallel;
    if (!forcesCall(tools)) {
      params.tool_choice = 'auto';
    } else {
      // A forced call from the first token. llama.cpp's own tool grammar for this template is lazy (free text,
      // then a call when the model writes <tool_call>), and it refuses a grammar of ours next to its tool
      // parsing. So the tools stay in the prompt (tool_choice "none": rendered, not parsed) and the answer is
      // held by the grammar of a JSON schema to one call object, {"name": …, "arguments": …}, which run.ts turns
      // into the call.
      params.tool_choice = 'none';
      params.grammar = held(jsonSchemaGrammar(forcedCallSchema(offered), 'tools'));
      return params;
    }
  }
  // JSON output: inpage's grammar rather than llama.cpp's conversion of the schema, whose numbers run on without
  // bound (json-grammar.ts). `strict` changes nothing: the grammar always holds the output to the schema.
  const format = plan.format;
  if (format?.type === 'json_object') params.grammar = held(jsonObjectGrammar());
  if (format?.type === 'json_schema')
    params.grammar = held(jsonSchemaGrammar(format.json_schema.schema ?? { type: 'object' }, 'response_format.json_schema.schema'));
  return params;
}

/** Whether the plan forces a call (`required`, or a named function): run.ts reads the answer as one call. */
export function forcesCall(plan: ToolPlan | null): boolean {
  return plan !== null && plan.mode !== 'auto';
}

/**
 * The schemas llama.cpp's answer is held to by inpage's grammar, each with the request's path: a forced call's
 * tools' parameters, or the response format's schema. (Under tool_choice auto llama.cpp builds the calls'
 * grammar from the tools itself.) Throws 400 naming the first keyword the grammar cannot hold.
 */
export function assertSchemasSupported(request: PlannedRequest): void {
  const tools = request.plan.tools;
  if (forcesCall(tools)) {
    tools!.tools.forEach((tool, i) => {
      if (tool.function.parameters === undefined) return;
      if (tools!.mode === 'named' && tool.function.name !== tools!.name) return;
      checkSchema(tool.function.parameters, request.legacy_functions ? `functions[${i}].parameters` : `tools[${i}].function.parameters`);
    });
    return;
  }
  const format = request.plan.format;
  if (tools && format !== undefined && format.type !== 'text') throw jsonFormatBesideAutoTools(format.type);
  if (format?.type === 'json_schema' && format.json_schema.schema !== undefined) checkSchema(format.json_schema.schema, 'response_format.json_schema.schema');
}

/** The answer of a forced choice: one call of one of `tools`, its name first, then its arguments (their schema). */
export function forcedCallSchema(tools: readonly { function: { name: string; parameters?: unknown } }[]): unknown {
  const callOf = (t: (typeof tools)[number]) => ({
    type: 'object',
    properties: { name: { const: t.function.name }, arguments: t.function.parameters ?? { type: 'object' } },
    required: ['name', 'arguments'],
    additionalProperties: false,
  });
  return tools.length === 1 ? callOf(tools[0]!) : { anyOf: tools.map(callOf) };
}
