// Legacy completions on web-llm: its own completions API (a raw prompt, no chat template), with the chunks
// recast as chat chunks so one reader (stream.ts) turns both into engine events.
import type { ChatCompletionChunk, Completion, CompletionCreateParamsStreaming } from '@mlc-ai/web-llm';
import type { RequestPlan } from '../common/plan';
import { SMALLEST_TOP_P } from './translate';

export function translateCompletion(plan: RequestPlan, modelId: string, prompt: string): CompletionCreateParamsStreaming {
  const out: CompletionCreateParamsStreaming = { model: modelId, prompt, stream: true, stream_options: { include_usage: true } };
  const { temperature, top_p, seed, presence_penalty, frequency_penalty } = plan.sampling;
  if (temperature !== undefined) out.temperature = temperature;
  if (top_p !== undefined) out.top_p = top_p === 0 ? SMALLEST_TOP_P : top_p;
  if (plan.maxTokens !== undefined) out.max_tokens = plan.maxTokens;
  if (plan.stops.length > 0) out.stop = plan.stops;
  if (seed !== undefined) out.seed = seed;
  if (presence_penalty !== undefined) out.presence_penalty = presence_penalty;
  if (frequency_penalty !== undefined) out.frequency_penalty = frequency_penalty;
  if (plan.logprobs !== null) {
    out.logprobs = true;
    if (plan.logprobs > 0) out.top_logprobs = plan.logprobs;
  }
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
