// What each OpenAI-compatible server does differently (docs/hybrid.md has the table and the sources). The request
// reaching here is already checked and resolved by inpage (src/shared/protocol/validate.ts); this builds the body the
// upstream takes. Every field is passed on, translated where the server spells it differently, or refused with 400
// `unsupported_parameter` where the server would drop it silently; none is dropped here without a word.
import { ApiError } from '#shared/protocol/errors';
import type { ChatCompletionRequest } from '#shared/protocol/types';
import type { EmbeddingRequest } from '#shared/protocol/embeddings';
import type { Dialect } from '#shared/upstreams';
import type { PlannedRequest } from '../common/plan';

/** A dialect's switches, read from the servers' own sources (see docs/hybrid.md, "Dialects"). */
interface DialectRules {
  /** How thinking is switched off for a `-fast` variant or `reasoning_effort: "none"`. */
  thinkingOff(body: Record<string, unknown>): void;
  /**
   * Whether the switch is sent for every request that must not think, or only where the variant thinks (OpenAI
   * refuses `reasoning_effort` on a model without reasoning; the others ignore a switch a template does not use).
   */
  offAlways: boolean;
  /** Request fields this server drops without a word: refused instead (OpenAI's name of the field). */
  drops: readonly string[];
  /** `reasoning_effort` values the server takes as they are (others are translated or refused). */
  efforts: readonly string[];
}

const chatTemplateOff = (body: Record<string, unknown>) => {
  body.chat_template_kwargs = { ...(body.chat_template_kwargs as object | undefined), enable_thinking: false };
};

export const DIALECT_RULES: Record<Dialect, DialectRules> = {
  // OpenAI itself, LM Studio, a hosted API behind the deployment's backend: `reasoning_effort` as OpenAI defines it.
  openai: { thinkingOff: (b) => (b.reasoning_effort = 'none'), offAlways: false, drops: [], efforts: ['none', 'minimal', 'low', 'medium', 'high'] },
  // vLLM (vllm/entrypoints/openai/protocol.py): Qwen3's template switch through `chat_template_kwargs`.
  vllm: { thinkingOff: chatTemplateOff, offAlways: true, drops: [], efforts: ['low', 'medium', 'high'] },
  // Ollama's /v1 (openai/openai.go): `reasoning_effort` high|medium|low|none, `none` → think false; its request
  // struct has no logprobs, top_logprobs, logit_bias, tool_choice, parallel_tool_calls or n (Go's JSON decoder drops
  // them), and only `max_tokens`.
  ollama: {
    thinkingOff: (b) => (b.reasoning_effort = 'none'),
    offAlways: true,
    drops: ['logprobs', 'top_logprobs', 'logit_bias', 'tool_choice', 'parallel_tool_calls'],
    efforts: ['none', 'low', 'medium', 'high'],
  },
  // llama.cpp's llama-server (tools/server): `chat_template_kwargs` like vLLM; `reasoning_content` in answers.
  'llama-server': { thinkingOff: chatTemplateOff, offAlways: true, drops: [], efforts: [] },
};

/** Fields passed on as they are (the rest are translated below, or are inpage's own). */
const AS_IS = [
  'temperature',
  'top_p',
  'stop',
  'seed',
  'presence_penalty',
  'frequency_penalty',
  'logprobs',
  'top_logprobs',
  'response_format',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'logit_bias',
] as const;

function refuse(dialect: Dialect, param: string, why: string): never {
  throw new ApiError('unsupported_parameter', `Unsupported parameter: '${param}' ${why} (the upstream speaks the ${dialect} dialect).`, { param });
}

/**
 * What inpage refuses before sending, whatever the server: the variant's promise (`reasoning_effort` only on a variant
 * that thinks), one choice per request, and the fields this dialect's server would drop without a word. The rest is the
 * server's to accept or refuse (its 4xx comes back with its words).
 */
export function assertUpstreamSupports(request: ChatCompletionRequest, dialect: Dialect): void {
  if (request.n !== undefined && request.n > 1) refuse(dialect, 'n', 'must be 1: one choice is answered per request');
  if (request.reasoning_effort !== undefined && request.reasoning_effort !== 'none' && !request.variant.thinks) {
    refuse(dialect, 'reasoning_effort', `applies only to thinking variants; '${request.variant.id}' never thinks`);
  }
  const rules = DIALECT_RULES[dialect];
  for (const field of rules.drops) {
    const value = (request as unknown as Record<string, unknown>)[field];
    // `tool_choice: "auto"` is what the server does anyway, as is `parallel_tool_calls: true`.
    if (
      value === undefined ||
      (field === 'tool_choice' && value === 'auto') ||
      (field === 'parallel_tool_calls' && value === true) ||
      (field === 'logprobs' && value === false)
    )
      continue;
    refuse(dialect, field, 'is dropped by this server without a word, so inpage refuses it rather than answer without it');
  }
}

/**
 * The chat body for the upstream: always streamed, usage asked for, the model named as the server knows it. The
 * server speaks OpenAI's API, so the client's OpenAI fields go on as written (AS_IS); the output limit, thinking and
 * a legacy completion's prompt come from the request's plan (common/plan.ts), as on the local engines.
 */
export function chatBody(request: PlannedRequest, dialect: Dialect, model: string): Record<string, unknown> {
  const { plan } = request;
  const rules = DIALECT_RULES[dialect];
  assertUpstreamSupports(request, dialect);
  const body: Record<string, unknown> = { model, stream: true, stream_options: { include_usage: true } };
  if (plan.rawPrompt !== undefined) {
    body.prompt = plan.rawPrompt;
  } else {
    // Messages as checked: legacy functions are tools by now; content parts (text, images) pass as they are.
    body.messages = request.messages.map((m) => {
      const out: Record<string, unknown> = { ...m };
      if (m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0 && m.content === '') out.content = null;
      return out;
    });
  }
  const source = request as unknown as Record<string, unknown>;
  for (const field of AS_IS) if (source[field] !== undefined) body[field] = source[field];
  if (plan.maxTokens !== undefined) body.max_tokens = plan.maxTokens;
  // A `-fast` id on a server running a thinking model (Qwen3-8B behind both svc-model-5.2 ids) must not think.
  if (plan.rawPrompt === undefined && !plan.thinking && (rules.offAlways || request.variant.thinks)) rules.thinkingOff(body);
  else if (request.reasoning_effort !== undefined && request.reasoning_effort !== 'none') {
    const effort = request.reasoning_effort === 'minimal' && !rules.efforts.includes('minimal') ? 'low' : request.reasoning_effort;
    if (rules.efforts.includes(effort)) body.reasoning_effort = effort;
    // A server without effort levels thinks as it does: documented (docs/hybrid.md), the answer still thinks.
  }
  return body;
}

/** The embeddings body: the inputs as given (strings or token ids), floats asked for (inpage encodes base64 itself). */
export function embeddingsBody(request: EmbeddingRequest, model: string): Record<string, unknown> {
  return { model, input: request.input, encoding_format: 'float' };
}
