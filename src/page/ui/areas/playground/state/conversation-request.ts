// What a conversation sends to /v1: its messages (images left out for a text model), the request body with
// its parameters, and the same as JSON, Markdown and client code a person can take away.
import type { ChatMessage, ContentPart } from '#shared/protocol/types';
import { variantOf } from '#shared/catalog';
import type { ModelId } from '#shared/variants';
import type { Conversation, Params, Turn } from './conversation-db';
import { KEY_PLACEHOLDER, fetchStreamCode, quote } from '../../../kit/client-code';
import { sentFrom } from './context-budget';
import { withDocuments } from './documents';
import type { McpServer } from './mcp-servers';

/** The request's `mcp` tool for a server (its token as `authorization`, never kept anywhere else). */
export function mcpTool(server: McpServer, approval: McpServer['approval'] = server.approval): Record<string, unknown> {
  return {
    type: 'mcp',
    server_label: server.label,
    server_url: server.url,
    require_approval: approval,
    ...(server.token ? { authorization: server.token } : {}),
  };
}

/** What View as code and Export JSON show in place of an MCP server's token (never the token itself). */
export const mcpTokenPlaceholder = (label: string): string => `YOUR_MCP_TOKEN_FOR_${label}`;

/** A server's `mcp` tool as code and exports show it: its token, if it has one, as a placeholder. */
function shownMcpTool(server: McpServer): Record<string, unknown> {
  const tool = mcpTool(server);
  return server.token ? { ...tool, authorization: mcpTokenPlaceholder(server.label) } : tool;
}

interface Messages {
  messages: ChatMessage[];
  /** Image parts of earlier turns left out because the model reads text only. */
  imagesLeftOut: number;
}

/**
 * The messages for `model`: system prompt, then the user and assistant turns (notes are never sent), from the last
 * note that left the older turns out (the person's choice when the chat outgrew the context) on.
 */
export function toMessages(system: string, turns: readonly Turn[], model: ModelId): Messages {
  const messages: ChatMessage[] = [];
  let imagesLeftOut = 0;
  if (system.trim()) messages.push({ role: 'system', content: system });
  for (const turn of turns.slice(sentFrom(turns))) {
    if (turn.role === 'user') {
      const text = withDocuments(turn.text, turn.documents);
      if (turn.image && variantOf(model)!.vision) {
        const content: ContentPart[] = [
          { type: 'text', text },
          { type: 'image_url', image_url: { url: turn.image } },
        ];
        messages.push({ role: 'user', content });
      } else {
        if (turn.image) imagesLeftOut++;
        messages.push({ role: 'user', content: text });
      }
    } else if (turn.role === 'assistant' && turn.toolCalls?.length) {
      messages.push({
        role: 'assistant',
        content: turn.text,
        tool_calls: turn.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })),
      });
    } else if (turn.role === 'assistant' && turn.text) {
      messages.push({ role: 'assistant', content: turn.text });
    } else if (turn.role === 'tool' && turn.toolCallId) {
      messages.push({ role: 'tool', content: turn.text, tool_call_id: turn.toolCallId });
    }
  }
  return { messages, imagesLeftOut };
}

/** The body of POST /v1/chat/completions for these messages and parameters (without `stream`). */
export function requestBody(model: ModelId, messages: ChatMessage[], params: Params): Record<string, unknown> {
  const body: Record<string, unknown> = { model, messages };
  if (params.temperature !== null) body.temperature = params.temperature;
  if (params.top_p !== null) body.top_p = params.top_p;
  if (params.max_tokens !== null) body.max_tokens = params.max_tokens;
  if (params.seed != null) body.seed = params.seed;
  if (params.presence_penalty != null) body.presence_penalty = params.presence_penalty;
  if (params.frequency_penalty != null) body.frequency_penalty = params.frequency_penalty;
  const stop = stopSequences(params);
  if (stop.length > 0) body.stop = stop;
  const tools = toolDefinitions(params);
  if (Array.isArray(tools) && tools.length > 0) body.tools = tools.map((f) => ({ type: 'function', function: f }));
  if (variantOf(model)!.thinks && !params.thinking) body.reasoning_effort = 'none';
  const schema = params.schema != null ? parseSchema(params.schema) : null;
  if (schema && typeof schema === 'object') body.response_format = { type: 'json_schema', json_schema: { name: 'response', schema } };
  else if (params.json) body.response_format = { type: 'json_object' };
  return body;
}

/**
 * The same conversation as a /v1/responses request with `tools` (the chat's MCP servers): the system prompt as
 * `instructions`, the user and assistant messages as input messages (an image as `input_image`; function calls and
 * their results, and empty answers, are left out), temperature, top_p, max_tokens and thinking off as the Responses API names them.
 */
export function responsesBody(chatBody: Record<string, unknown>, tools: Record<string, unknown>[]): Record<string, unknown> {
  const messages = chatBody.messages as ChatMessage[];
  const instructions = messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content as string)
    .join('\n\n');
  const input: Record<string, unknown>[] = [];
  for (const m of messages) {
    if (m.role !== 'user' && m.role !== 'assistant') continue;
    if (typeof m.content === 'string' || m.content == null) {
      if (m.content) input.push({ role: m.role, content: m.content });
      continue;
    }
    const parts = (m.content as ContentPart[]).map((p) =>
      p.type === 'image_url' ? { type: 'input_image', image_url: p.image_url.url } : { type: 'input_text', text: (p as { text: string }).text },
    );
    input.push({ role: m.role, content: parts });
  }
  const out: Record<string, unknown> = { model: chatBody.model, input, tools };
  if (instructions) out.instructions = instructions;
  for (const name of ['temperature', 'top_p'] as const) if (chatBody[name] !== undefined) out[name] = chatBody[name];
  if (chatBody.max_tokens !== undefined) out.max_output_tokens = chatBody.max_tokens;
  if (chatBody.reasoning_effort === 'none') out.reasoning = { effort: 'none' };
  return out;
}

/** The stop sequences to send: the non-empty lines, at most four (the API's limit). */
function stopSequences(params: Params): string[] {
  return (params.stop ?? '')
    .split('\n')
    .filter((line) => line !== '')
    .slice(0, 4);
}

function parseSchema(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * The functions of the chat's settings (a JSON array of `{name, description, parameters}`; whole tool objects,
 * `{type: "function", function: {…}}`, are taken too); a string says what is wrong with them.
 */
export function toolDefinitions(params: Params): Record<string, unknown>[] | string {
  const text = (params.tools ?? '').trim();
  if (!text) return [];
  const list = parseSchema(text);
  if (!Array.isArray(list)) return 'The functions in Settings are not a JSON array: fix them, or empty the box.';
  const out: Record<string, unknown>[] = [];
  for (const item of list as unknown[]) {
    const f = item && typeof item === 'object' && (item as { type?: unknown }).type === 'function' ? (item as { function?: unknown }).function : item;
    if (!f || typeof f !== 'object' || typeof (f as { name?: unknown }).name !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test((f as { name: string }).name)) {
      return 'Each function in Settings needs a "name" (letters, digits, _ and -, up to 64): fix them, or empty the box.';
    }
    out.push(f as Record<string, unknown>);
  }
  return out;
}

/** The range the API takes for each number a person can set (the form's limits and its refusal, declared once). */
export const PARAM_RANGES = {
  temperature: { label: 'Temperature', min: 0, max: 2 },
  top_p: { label: 'Top p', min: 0, max: 1 },
  max_tokens: { label: 'Max tokens', min: 1, max: undefined },
  seed: { label: 'Seed', min: 0, max: undefined },
  presence_penalty: { label: 'Presence penalty', min: -2, max: 2 },
  frequency_penalty: { label: 'Frequency penalty', min: -2, max: 2 },
} as const;
export type RangedParam = keyof typeof PARAM_RANGES;

/** Why a number is out of its range ("Temperature is between 0 and 2"), or null. */
export function rangeProblem(name: RangedParam, value: number | null | undefined): string | null {
  if (value == null) return null;
  const { label, min, max } = PARAM_RANGES[name];
  if (value >= min && (max === undefined || value <= max)) return null;
  return max === undefined ? `${label} is at least ${min}.` : `${label} is between ${min} and ${max}.`;
}

/**
 * Why these parameters cannot be sent (a number out of its range, a JSON schema that is not a JSON object,
 * functions that are not right), or null.
 */
export function paramsProblem(params: Params): string | null {
  for (const name of Object.keys(PARAM_RANGES) as RangedParam[]) {
    const problem = rangeProblem(name, params[name]);
    if (problem) return `${problem.slice(0, -1)} (it is ${params[name]}): change it in Settings.`;
  }
  const tools = toolDefinitions(params);
  if (typeof tools === 'string') return tools;
  if (params.schema == null) return null;
  const schema = parseSchema(params.schema);
  if (!schema || typeof schema !== 'object' || Array.isArray(schema))
    return 'The JSON schema in Settings is not a JSON object: fix it, or choose another response format.';
  return null;
}

/**
 * The conversation as the request that would continue it (`next`: the message about to be sent): a chat completion,
 * or, with MCP servers on (`servers`: the chat's, mcp-servers.ts `serversOn`), the /v1/responses request the
 * Playground sends then (chat-run.ts), each server's token as a placeholder.
 */
export function conversationRequest(conversation: Conversation, next?: string, servers: readonly McpServer[] = []): Record<string, unknown> {
  const turns: Turn[] = next ? [...conversation.turns, { id: 'next', role: 'user', text: next }] : conversation.turns;
  const chat = requestBody(conversation.model, toMessages(conversation.system, turns, conversation.model).messages, conversation.params);
  return servers.length > 0 ? responsesBody(chat, servers.map(shownMcpTool)) : chat;
}

/** Turns as an export carries them: without the ids this browser gave them (at every depth), none streaming. */
function portable(turns: readonly Turn[]): Omit<Turn, 'id'>[] {
  return turns.map(({ id: _id, ...turn }) => ({
    ...turn,
    ...(turn.status === 'streaming' ? { status: 'interrupted' as const } : {}),
    ...(turn.branches ? { branches: turn.branches.map((b) => ({ ...b, after: portable(b.after) as Turn[] })) } : {}),
  }));
}

/**
 * Whether a chat holds more than its messages say: versions of an answer, or of a message (branches), or
 * attached documents (the import takes them back as attachments, not as text typed).
 */
function hasVersions(turns: readonly Turn[]): boolean {
  return turns.some((t) => (t.versions?.length ?? 0) > 1 || (t.branches?.length ?? 0) > 1 || (t.documents?.length ?? 0) > 0);
}

/**
 * JSON export: the messages exactly as sent to /v1 (with images for a vision model, and attached documents'
 * blocks), model and parameters (with MCP servers on, the /v1/responses request: `instructions`, `input`, the
 * `mcp` tools without their tokens); a chat with documents or versions (regenerated answers, edited messages and the branches after them) carries every turn as
 * the workspace keeps it in `turns` too, which the import takes back.
 */
export function exportJson(conversation: Conversation, servers: readonly McpServer[] = []): string {
  const all = hasVersions(conversation.turns) ? { turns: portable(conversation.turns) } : {};
  return JSON.stringify({ title: conversation.title, ...conversationRequest(conversation, undefined, servers), ...all }, null, 2) + '\n';
}

/** Markdown export: a heading per turn, the thinking quoted. */
export function exportMarkdown(conversation: Conversation): string {
  const out = [`# ${conversation.title}`, '', `Model: \`${conversation.model}\``, ''];
  if (conversation.system.trim()) out.push('## System', '', conversation.system.trim(), '');
  for (const turn of conversation.turns) {
    if (turn.role === 'note') {
      out.push(`> ${turn.text}`, '');
    } else if (turn.role === 'tool') {
      out.push(`## Result of ${turn.name ?? 'the function'}`, '', '```', turn.text, '```', '');
    } else if (turn.role === 'user') {
      out.push('## You', '');
      if (turn.image) out.push('*(an image was attached)*', '');
      for (const doc of turn.documents ?? []) out.push(`*Attached document ${doc.name}:*`, '', '````', doc.text, '````', '');
      out.push(turn.text, '');
      (turn.branches ?? []).forEach((b, i) => {
        if (i === (turn.branch ?? 0)) return;
        out.push(
          `> Version ${i + 1} of ${turn.branches!.length} of this message (${b.after.length === 1 ? 'one turn' : `${b.after.length} turns`} after it):`,
          '>',
        );
        out.push(...b.text.split('\n').map((line) => `> ${line}`), '');
      });
    } else {
      out.push(`## ${turn.model ?? 'Assistant'}`, '');
      if (turn.reasoning)
        out.push(
          turn.reasoning
            .split('\n')
            .map((line) => `> ${line}`)
            .join('\n'),
          '',
        );
      if (turn.text) out.push(turn.text, '');
      for (const call of turn.toolCalls ?? []) out.push(`Calls \`${call.name}(${call.arguments})\``, '');
      (turn.versions ?? []).forEach((v, i) => {
        if (i === (turn.version ?? turn.versions!.length - 1) || (turn.versions!.length < 2 && i === 0)) return;
        out.push(`> Version ${i + 1} of ${turn.versions!.length} of this answer:`, '>');
        out.push(...(v.text || '(no text)').split('\n').map((line) => `> ${line}`), '');
      });
    }
  }
  return out.join('\n');
}

/** A file name for an export: the title in safe characters. */
export function exportName(conversation: Conversation, extension: 'json' | 'md'): string {
  const stem =
    conversation.title
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'conversation';
  return `${stem}.${extension}`;
}

function indent(text: string, by: string): string {
  return text
    .split('\n')
    .map((line, i) => (i === 0 ? line : by + line))
    .join('\n');
}

/**
 * The request as client code: `fetch` or the `openai` SDK, streaming, printing the text; a /v1/responses request
 * (one with `input`, conversationRequest) as one.
 */
export function requestCode(kind: 'fetch' | 'openai', baseURL: string, body: Record<string, unknown>): string {
  const json = JSON.stringify({ ...body, stream: true }, null, 2);
  const responses = Array.isArray(body.input);
  if (kind === 'fetch') {
    return fetchStreamCode(
      `${baseURL}/${responses ? 'responses' : 'chat/completions'}`,
      `'Bearer ${KEY_PLACEHOLDER}'`,
      indent(json, '  '),
      responses ? 'responses' : 'chat',
    );
  }
  if (responses) {
    return `import OpenAI from 'openai';

const client = new OpenAI({
  baseURL: ${quote(baseURL)},
  apiKey: '${KEY_PLACEHOLDER}',
  dangerouslyAllowBrowser: true, // the key never leaves this browser
});

// The MCP servers are called by inpage; a call that asks first ends the response with an mcp_approval_request.
const stream = await client.responses.create(${json});
let text = '';
for await (const event of stream) {
  if (event.type === 'response.output_text.delta') text += event.delta;
}
console.log(text);`;
  }
  return `import OpenAI from 'openai';

const client = new OpenAI({
  baseURL: ${quote(baseURL)},
  apiKey: '${KEY_PLACEHOLDER}',
  dangerouslyAllowBrowser: true, // the key never leaves this browser
});

const stream = await client.chat.completions.create(${json});
let text = '';
for await (const chunk of stream) {
  text += chunk.choices[0]?.delta?.content ?? '';
}
console.log(text);`;
}
