// Import of a chat exported as JSON (Export JSON: the request that continues the chat, with its title): the
// messages become turns and the request's parameters the chat's settings again, so an export round-trips. A chat
// with MCP servers on exports its /v1/responses request: its `instructions` and `input` messages are taken the
// same way; its `mcp` tools are not (the servers, and their tokens, are this browser's own, mcp-servers.ts).
import { modelIds, variantOf } from '#shared/catalog';
import type { ModelId } from '#shared/variants';
import { DEFAULT_PARAMS, type Params, type Turn } from './conversation-db';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** A message's text and first image (a string, or content parts). */
function contentOf(content: unknown): { text: string; image?: string } {
  if (typeof content === 'string') return { text: content };
  if (!Array.isArray(content)) return { text: '' };
  const text = content
    .filter((p) => isObject(p) && (p.type === 'text' || p.type === 'input_text' || p.type === 'output_text'))
    .map((p) => String((p as Json).text ?? ''))
    .join('\n');
  const image = content.find((p) => isObject(p) && (p.type === 'image_url' || p.type === 'input_image')) as Json | undefined;
  // A chat part's `image_url` is an object; a Responses `input_image`'s the URL itself.
  const url = isObject(image?.image_url) ? image.image_url.url : image?.image_url;
  return typeof url === 'string' ? { text, image: url } : { text };
}

const ROLES = new Set(['user', 'assistant', 'note', 'tool']);

/** A turn of an export's `turns` (ids are given on import); its branches' turns too. */
function isTurn(v: unknown): boolean {
  if (!isObject(v) || !ROLES.has(v.role as string) || typeof v.text !== 'string') return false;
  if (v.versions !== undefined && !(Array.isArray(v.versions) && v.versions.every((x) => isObject(x) && typeof x.text === 'string'))) return false;
  if (
    v.documents !== undefined &&
    !(Array.isArray(v.documents) && v.documents.every((d) => isObject(d) && typeof d.name === 'string' && typeof d.text === 'string'))
  )
    return false;
  if (v.branches === undefined) return true;
  return (
    Array.isArray(v.branches) &&
    v.branches.every((b) => isObject(b) && typeof b.text === 'string' && Array.isArray(b.after) && (b.after as unknown[]).every(isTurn))
  );
}

/** A /v1/responses request (an MCP chat's export) as the chat request it stands for: messages, parameters, no `mcp` tools. */
function fromResponses(body: Json): Json {
  const messages: Json[] = typeof body.instructions === 'string' && body.instructions ? [{ role: 'system', content: body.instructions }] : [];
  for (const item of body.input as unknown[]) if (isObject(item) && (item.type === undefined || item.type === 'message')) messages.push(item);
  // A Responses function tool is flat (`{type, name, parameters}`): the chat's settings hold it without `type`.
  const tools = Array.isArray(body.tools)
    ? body.tools.flatMap((t) => (isObject(t) && t.type === 'function' ? [Object.fromEntries(Object.entries(t).filter(([k]) => k !== 'type'))] : []))
    : [];
  const reasoning = isObject(body.reasoning) ? body.reasoning : null;
  const { input: _input, instructions: _instructions, max_output_tokens, reasoning: _reasoning, ...rest } = body;
  return {
    ...rest,
    messages,
    tools,
    ...(max_output_tokens !== undefined ? { max_tokens: max_output_tokens } : {}),
    ...(reasoning?.effort === 'none' ? { reasoning_effort: 'none' } : {}),
  };
}

/**
 * The chat in an export, as the parts a conversation is made of; a string says why the file is not one. A model
 * this deployment does not offer becomes `fallback`.
 */
export function parseExport(
  text: string,
  fallback: ModelId,
): { title: string; model: ModelId; system: string; params: Params; turns: Omit<Turn, 'id'>[] } | string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return 'That file is not JSON: choose a chat exported with Export JSON.';
  }
  if (isObject(body) && !Array.isArray(body.messages) && Array.isArray(body.input)) body = fromResponses(body);
  if (!isObject(body) || !Array.isArray(body.messages)) return 'That file has no "messages": choose a chat exported with Export JSON.';
  const chats = modelIds().filter((id) => !variantOf(id)?.embeddings);
  const model = typeof body.model === 'string' && chats.includes(body.model as ModelId) ? (body.model as ModelId) : fallback;
  let system = '';
  const turns: Omit<Turn, 'id'>[] = [];
  for (const m of body.messages as unknown[]) {
    if (!isObject(m)) return 'A message in that file is not an object.';
    const { text: content, image } = contentOf(m.content);
    if (m.role === 'system' || m.role === 'developer') system = system ? `${system}\n\n${content}` : content;
    else if (m.role === 'user') turns.push({ role: 'user', text: content, ...(image ? { image } : {}) });
    else if (m.role === 'assistant') {
      const calls = Array.isArray(m.tool_calls)
        ? (m.tool_calls as Json[])
            .filter((c) => isObject(c) && isObject(c.function))
            .map((c) => ({ id: String(c.id ?? ''), name: String((c.function as Json).name ?? ''), arguments: String((c.function as Json).arguments ?? '') }))
        : [];
      turns.push({ role: 'assistant', text: content, model, status: 'done', ...(calls.length ? { toolCalls: calls } : {}) });
    } else if (m.role === 'tool') {
      const call = turns.flatMap((t) => t.toolCalls ?? []).find((c) => c.id === m.tool_call_id);
      turns.push({ role: 'tool', text: content, toolCallId: String(m.tool_call_id ?? ''), name: call?.name });
    } else return `A message in that file has a role this chat cannot hold: ${JSON.stringify(m.role)}.`;
  }
  const format = isObject(body.response_format) ? body.response_format : null;
  const schema = format?.type === 'json_schema' && isObject(format.json_schema) ? format.json_schema.schema : undefined;
  const params: Params = {
    ...DEFAULT_PARAMS,
    temperature: num(body.temperature),
    top_p: num(body.top_p),
    max_tokens: num(body.max_tokens ?? body.max_completion_tokens),
    seed: num(body.seed),
    presence_penalty: num(body.presence_penalty),
    frequency_penalty: num(body.frequency_penalty),
    stop: Array.isArray(body.stop) ? body.stop.map(String).join('\n') : typeof body.stop === 'string' ? body.stop : '',
    thinking: body.reasoning_effort !== 'none',
    json: format?.type === 'json_object',
    schema: schema !== undefined ? JSON.stringify(schema, null, 2) : null,
    tools:
      Array.isArray(body.tools) && body.tools.length > 0
        ? JSON.stringify(
            body.tools.map((t) => (isObject(t) && isObject(t.function) ? t.function : t)),
            null,
            2,
          )
        : '',
  };
  const title = typeof body.title === 'string' && body.title.trim() ? body.title.trim().slice(0, 120) : 'Imported chat';
  // Every version and branch, where the export carries them (a chat with versions): taken when well formed.
  const kept = Array.isArray(body.turns) && (body.turns as unknown[]).every(isTurn) ? (body.turns as Omit<Turn, 'id'>[]) : null;
  return { title, model, system, params, turns: kept ?? turns };
}
