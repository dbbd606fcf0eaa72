// A checked /v1 request → wllama's chat-completion parameters (llama-server's OpenAI dialect). Thinking is
// Qwen3's template switch (`enable_thinking`); stop sequences are applied by inpage to the answer (run.ts),
// not given to llama.cpp, which would match them against the thinking as well.
import type { ChatCompletionRequest, ChatMessage } from '../../../src/protocol/types';
import { outputLimit, wantsThinking } from '../request-support';

export interface LlamaMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
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
  response_format?: { type: 'json_object' } | { type: 'json_schema'; json_schema: { name: string; schema: unknown; strict?: boolean } };
  chat_template_kwargs: { enable_thinking: boolean };
}

function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  return content
    .filter((part) => part.type === 'text')
    .map((part) => (part as { text: string }).text)
    .join('\n');
}

export function translateRequest(request: ChatCompletionRequest): LlamaParams {
  const messages: LlamaMessage[] = request.messages.map((m) => ({
    // `developer` is OpenAI's newer name for the system role.
    role: m.role === 'developer' ? 'system' : m.role,
    content: textOf(m.content),
  }));
  const params: LlamaParams = { messages, chat_template_kwargs: { enable_thinking: wantsThinking(request) } };
  const limit = outputLimit(request);
  if (limit !== undefined) params.max_tokens = limit;
  if (request.temperature !== undefined) params.temperature = request.temperature;
  if (request.top_p !== undefined) params.top_p = request.top_p;
  if (request.seed !== undefined) params.seed = request.seed;
  if (request.presence_penalty !== undefined) params.presence_penalty = request.presence_penalty;
  if (request.frequency_penalty !== undefined) params.frequency_penalty = request.frequency_penalty;
  if (request.logprobs) {
    params.logprobs = true;
    if (request.top_logprobs !== undefined) params.top_logprobs = request.top_logprobs;
  }
  const format = request.response_format;
  if (format?.type === 'json_object') params.response_format = { type: 'json_object' };
  if (format?.type === 'json_schema') {
    const schema = format.json_schema.schema ?? { type: 'object' };
    params.response_format = { type: 'json_schema', json_schema: { name: format.json_schema.name, schema, ...(format.json_schema.strict ? { strict: true } : {}) } };
  }
  return params;
}
