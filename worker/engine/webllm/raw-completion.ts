// Legacy completions on web-llm: its own completions API (a raw prompt, no chat template), with the chunks
// recast as chat chunks so one reader (stream.ts) turns both into engine events.
import type { ChatCompletionChunk, Completion, CompletionCreateParamsStreaming } from '@mlc-ai/web-llm';
import type { ChatCompletionRequest } from '../../../src/protocol/types';
import { outputLimit, stopSequences } from '../shared/request-support';
import { SMALLEST_TOP_P } from './translate';

export function translateCompletion(request: ChatCompletionRequest, modelId: string, prompt: string): CompletionCreateParamsStreaming {
  const out: CompletionCreateParamsStreaming = { model: modelId, prompt, stream: true, stream_options: { include_usage: true } };
  if (request.temperature !== undefined) out.temperature = request.temperature;
  if (request.top_p !== undefined) out.top_p = request.top_p === 0 ? SMALLEST_TOP_P : request.top_p;
  const limit = outputLimit(request);
  if (limit !== undefined) out.max_tokens = limit;
  const stops = stopSequences(request);
  if (stops.length > 0) out.stop = stops;
  if (request.seed !== undefined) out.seed = request.seed;
  if (request.presence_penalty !== undefined) out.presence_penalty = request.presence_penalty;
  if (request.frequency_penalty !== undefined) out.frequency_penalty = request.frequency_penalty;
  if (request.logprobs !== undefined) out.logprobs = request.logprobs;
  if (request.top_logprobs !== undefined) out.top_logprobs = request.top_logprobs;
  return out;
}

/** web-llm's completion chunks as chat chunks: `text` becomes `delta.content`; finish, logprobs and usage kept. */
export async function* completionChunks(stream: AsyncIterable<Completion>): AsyncGenerator<ChatCompletionChunk> {
  for await (const chunk of stream) {
    const chat: ChatCompletionChunk = {
      id: chunk.id,
      object: 'chat.completion.chunk',
      created: chunk.created,
      model: chunk.model,
      choices: chunk.choices.map((c) => ({
        index: c.index,
        delta: { content: c.text, role: 'assistant' },
        finish_reason: c.finish_reason,
        logprobs: c.logprobs ?? null,
      })),
    };
    if (chunk.usage) chat.usage = chunk.usage;
    yield chat;
  }
}
