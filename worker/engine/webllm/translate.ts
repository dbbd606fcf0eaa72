// A checked /v1 request → web-llm's ChatCompletionRequest. web-llm knows neither `developer`,
// `max_completion_tokens`, `reasoning_effort` nor `json_schema`; each is translated, never dropped. Fields
// web-llm cannot honour are refused earlier, by request-support.ts (the engine's `supports`).
import type {
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
  ChatCompletionRequestStreaming,
  ResponseFormat as WebLlmResponseFormat,
} from '@mlc-ai/web-llm';
import type { ChatMessage } from '#shared/protocol/types';
import type { PlannedRequest, RequestPlan, ToolPlan } from '../common/plan';
import { jsonFormatBesideAutoTools } from '../common/json-grammar';
import type { WebLlmToolFormatName } from '#shared/engine-kinds/webllm';
import { jsonFormat } from './tool-formats/grammar';
import { TOOL_FORMATS, type ToolFormat } from './tool-formats/registry';
import { qwen3 } from './tool-formats/qwen3';
import type { ResolvedImage } from '../common/images';
import { nativeStops } from './kv-reuse';

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
  /** Whether the model has Qwen3's per-request thinking switch (models.ts, hasThinkingSwitch). */
  thinkingSwitch: boolean;
  /** The model's tool-call format (models.ts, toolFormatOf); tools go only to a model with one. */
  toolFormat: WebLlmToolFormatName;
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
  /** The tools offered: the answer is parsed for calls in `toolFormat`. Null: none offered. */
  tools: ToolPlan | null;
  /** The format the tools were offered in; null when none were. */
  toolFormat: ToolFormat | null;
  /**
   * Alternatives per token the client asked for. web-llm records logprobs only when top_logprobs > 0, so for
   * `logprobs: true` alone it is asked for one, and the alternatives are cut back to this count. Null: none.
   */
  topLogprobs: number | null;
}

function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  return content
    .filter((part) => part.type === 'text')
    .map((part) => (part as { text: string }).text)
    .join('\n');
}

function translateMessages(
  messages: readonly ChatMessage[],
  images: ReadonlyMap<string, ResolvedImage>,
  tools: ToolPlan | null,
  history: ToolFormat,
): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  // The leading system and developer messages become web-llm's one system message, with the tools offered.
  const systems: string[] = [];
  let i = 0;
  for (; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role !== 'system' && m.role !== 'developer') break;
    systems.push(textOf(m.content));
  }
  const system = systems.length > 0 ? systems.join('\n\n') : null;
  if (tools) out.push({ role: 'system', content: history.systemWithTools(system, tools.tools) });
  else if (system !== null) out.push({ role: 'system', content: system });
  for (; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'assistant') {
      // Calls are written after the text as the model's format writes them.
      out.push({ role: 'assistant', content: history.assistantText(textOf(m.content), m.tool_calls ?? []) });
      continue;
    }
    if (m.role === 'tool') {
      // Consecutive tool results are one user turn, as the format writes them (Qwen3: <tool_response> blocks).
      const results = [{ id: m.tool_call_id, content: textOf(m.content) }];
      while (messages[i + 1]?.role === 'tool') {
        const next = messages[++i] as Extract<ChatMessage, { role: 'tool' }>;
        results.push({ id: next.tool_call_id, content: textOf(next.content) });
      }
      out.push({ role: 'user', content: history.toolResults(results) });
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

/**
 * web-llm's response_format (xgrammar): tools offered → the structural tag of Qwen3's <tool_call> blocks;
 * `json_object` / `json_schema` → that JSON, after the thinking block when the model thinks.
 */
function responseFormat(plan: RequestPlan, tools: ToolPlan | null, toolFormat: ToolFormat | null): WebLlmResponseFormat | undefined {
  const { format, thinking } = plan;
  if (tools && toolFormat) {
    if (format !== undefined && format.type !== 'text' && tools.mode === 'auto') throw jsonFormatBesideAutoTools(format.type);
    // With required / named calls the answer is only calls: a JSON format of the text has nothing to constrain.
    return toolFormat.toolCallFormat(tools, thinking);
  }
  if (format === undefined) return undefined;
  switch (format.type) {
    case 'text':
      return { type: 'text' };
    case 'json_object':
      return jsonFormat(undefined, thinking);
    case 'json_schema':
      return jsonFormat(format.json_schema.schema, thinking);
  }
}

export function translateRequest(request: PlannedRequest, options: TranslateOptions): Translation {
  const { plan } = request;
  // Tools are offered in the model's format; a model without one refuses them earlier (the adapter's `supports`).
  const { thinkingSwitch } = options;
  const modelFormat = TOOL_FORMATS[options.toolFormat];
  const toolFormat = plan.tools ? modelFormat : null;
  const tools = toolFormat ? plan.tools : null;
  // Calls and results in history are written in the model's format; one without (which is offered no tools) gets
  // Qwen3's blocks, as plain text it can read.
  const history = modelFormat ?? qwen3;
  const { thinking, sampling } = plan;
  const thinkingSwitchedOff = thinkingSwitch && !thinking;
  const out: ChatCompletionRequestStreaming = {
    model: options.modelId,
    messages: translateMessages(request.messages, options.images, tools, history),
    // The engine always streams: events go out as they come, and a JSON answer is built from them.
    stream: true,
    stream_options: { include_usage: true },
  };
  if (sampling.temperature !== undefined) out.temperature = sampling.temperature;
  if (sampling.top_p !== undefined) out.top_p = sampling.top_p === 0 ? SMALLEST_TOP_P : sampling.top_p;
  if (plan.maxTokens !== undefined) out.max_tokens = plan.maxTokens + (thinkingSwitchedOff ? options.emptyThinkTokens : 0);
  const stops = plan.stops;
  const answerStops = thinkingSwitch ? stops : [];
  // web-llm applies the stops that cannot match inside a thinking block itself (kv-reuse.ts): its reply then
  // ends "stop" and keeps the KV cache. inpage still holds back text that may begin one, for all of them.
  const native = thinkingSwitch ? nativeStops(stops, thinking) : stops;
  if (native.length > 0) out.stop = native;
  if (sampling.seed !== undefined) out.seed = sampling.seed;
  if (sampling.presence_penalty !== undefined) out.presence_penalty = sampling.presence_penalty;
  if (sampling.frequency_penalty !== undefined) out.frequency_penalty = sampling.frequency_penalty;
  const topLogprobs = plan.logprobs;
  if (topLogprobs !== null) {
    out.logprobs = true;
    out.top_logprobs = Math.max(1, topLogprobs);
  }
  if (sampling.logit_bias !== undefined) out.logit_bias = sampling.logit_bias;
  const format = responseFormat(plan, tools, toolFormat);
  if (format !== undefined) out.response_format = format;
  // Qwen3's switch: web-llm prefills an empty thinking block when it is false. Other models have none.
  if (thinkingSwitch) out.extra_body = { enable_thinking: thinking };
  return { request: out, thinking, thinkingSwitchedOff, answerStops, tools, toolFormat, topLogprobs };
}
