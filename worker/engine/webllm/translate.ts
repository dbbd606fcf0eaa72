// A checked /v1 request → web-llm's ChatCompletionRequest. web-llm knows neither `developer`,
// `max_completion_tokens`, `reasoning_effort` nor `json_schema`; each is translated, never dropped. Fields
// web-llm cannot honour are refused earlier, by request-support.ts (the engine's `supports`).
import type {
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
  ChatCompletionRequestStreaming,
  ResponseFormat as WebLlmResponseFormat,
} from '@mlc-ai/web-llm';
import type { ChatCompletionRequest, ChatMessage, ResponseFormat } from '../../../src/protocol/types';
import { ApiError } from '../../../src/protocol/errors';
import { outputLimit, stopSequences, toolPlan, wantsThinking } from '../request-support';
import type { ResolvedImage } from './images';
import { nativeStops } from './kv-reuse';
import { hasThinkingSwitch } from './models';

/** web-llm refuses top_p = 0 (it wants 0 < top_p ≤ 1); this keeps only the most likely token, as 0 means. */
export const SMALLEST_TOP_P = 1e-6;

export interface TranslateOptions {
  /** The web-llm model id that will answer. */
  modelId: string;
  /** Images already read, by their URL in the request. */
  images: ReadonlyMap<string, ResolvedImage>;
  /**
   * Tokens of the empty thinking block web-llm counts against max_tokens when thinking is switched off
   * (it puts the block into the output); added back so the caller gets the tokens it asked for.
   */
  emptyThinkTokens: number;
}

export interface Translation {
  request: ChatCompletionRequestStreaming;
  /** Whether the model thinks for this request. */
  thinking: boolean;
  /** Whether the request switched Qwen3's thinking off (so web-llm prefixes the empty block). */
  thinkingSwitchedOff: boolean;
  /**
   * Stop sequences inpage applies to the answer itself: web-llm matches `stop` against the whole output, so
   * Qwen3's thinking block (or the empty one it puts first) would hit them before the answer began. Those
   * that cannot match inside the block are also in `request.stop`.
   */
  answerStops: string[];
}

function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  return content
    .filter((part) => part.type === 'text')
    .map((part) => (part as { text: string }).text)
    .join('\n');
}

function translateMessages(messages: readonly ChatMessage[], images: ReadonlyMap<string, ResolvedImage>): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  // The leading system and developer messages become web-llm's one system message.
  const systems: string[] = [];
  let i = 0;
  for (; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role !== 'system' && m.role !== 'developer') break;
    systems.push(textOf(m.content));
  }
  if (systems.length > 0) out.push({ role: 'system', content: systems.join('\n\n') });
  for (; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'assistant') {
      out.push({ role: 'assistant', content: textOf(m.content) });
      continue;
    }
    if (m.role !== 'user') throw new Error(`A '${m.role}' message after the first turn reached the translator.`);
    const parts = Array.isArray(m.content) ? m.content : [];
    const pictures = parts.filter((p) => p.type === 'image_url');
    if (pictures.length === 0) {
      out.push({ role: 'user', content: textOf(m.content) });
      continue;
    }
    // web-llm takes one text part per message; Phi-3.5-vision's template puts the images before the text.
    const content: ChatCompletionContentPart[] = [{ type: 'text', text: textOf(m.content) }];
    for (const picture of pictures) {
      const image = images.get(picture.image_url.url);
      if (!image) throw new Error(`The image at ${picture.image_url.url.slice(0, 60)} was not read before translation.`);
      // `detail: "auto"` is what web-llm does anyway; it refuses the field itself, so it is not passed on.
      content.push({ type: 'image_url', image_url: { url: image.dataUrl } });
    }
    out.push({ role: 'user', content });
  }
  return out;
}

function responseFormat(format: ResponseFormat): WebLlmResponseFormat {
  switch (format.type) {
    case 'text':
      return { type: 'text' };
    case 'json_object':
      return { type: 'json_object' };
    case 'json_schema':
      // web-llm takes a schema only as a string on a json_object format.
      return format.json_schema.schema === undefined
        ? { type: 'json_object' }
        : { type: 'json_object', schema: JSON.stringify(format.json_schema.schema) };
  }
}

export function translateRequest(request: ChatCompletionRequest, options: TranslateOptions): Translation {
  // Tool calling on web-llm (Qwen3's own format) is being built (issue 10); until then it is refused, not dropped.
  const toolTurn = request.messages.findIndex((m) => m.role === 'tool' || (m.role === 'assistant' && m.tool_calls !== undefined));
  if (toolPlan(request) !== null || toolTurn >= 0) {
    const param = toolTurn >= 0 ? `messages[${toolTurn}]` : 'tools';
    throw new ApiError('unsupported_parameter', `Unsupported parameter: '${param}': tool calling is not yet available on the web-llm engine.`, { param });
  }
  const thinking = wantsThinking(request);
  const thinkingSwitch = hasThinkingSwitch(request.variant);
  const thinkingSwitchedOff = thinkingSwitch && !thinking;
  const out: ChatCompletionRequestStreaming = {
    model: options.modelId,
    messages: translateMessages(request.messages, options.images),
    // The engine always streams: events go out as they come, and a JSON answer is built from them.
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.temperature !== undefined) out.temperature = request.temperature;
  if (request.top_p !== undefined) out.top_p = request.top_p === 0 ? SMALLEST_TOP_P : request.top_p;
  const limit = outputLimit(request);
  if (limit !== undefined) out.max_tokens = limit + (thinkingSwitchedOff ? options.emptyThinkTokens : 0);
  const stops = stopSequences(request);
  const answerStops = thinkingSwitch ? stops : [];
  // web-llm applies the stops that cannot match inside a thinking block itself (kv-reuse.ts): its reply then
  // ends "stop" and keeps the KV cache. inpage still holds back text that may begin one, for all of them.
  const native = thinkingSwitch ? nativeStops(stops, thinking) : stops;
  if (native.length > 0) out.stop = native;
  if (request.seed !== undefined) out.seed = request.seed;
  if (request.presence_penalty !== undefined) out.presence_penalty = request.presence_penalty;
  if (request.frequency_penalty !== undefined) out.frequency_penalty = request.frequency_penalty;
  if (request.n !== undefined) out.n = request.n;
  if (request.logprobs !== undefined) out.logprobs = request.logprobs;
  if (request.top_logprobs !== undefined) out.top_logprobs = request.top_logprobs;
  if (request.logit_bias !== undefined) out.logit_bias = request.logit_bias;
  if (request.response_format !== undefined) out.response_format = responseFormat(request.response_format);
  // Qwen3's switch: web-llm prefills an empty thinking block when it is false. Other models have none.
  if (thinkingSwitch) out.extra_body = { enable_thinking: thinking };
  return { request: out, thinking, thinkingSwitchedOff, answerStops };
}
