// The deterministic test engine: same contract as the web-llm engine, no GPU, no weights.
// A test build aliases `#engine-impl` to this file; `npm run build` never sees it.
//
// What it answers (issue 10 fixes the tool and format rules, so clients and tests agree):
//   tools, tool_choice "required"   → a call of the first tool; a named tool_choice → a call of that one
//   tools, "auto" (the default)     → a call of every tool whose name is a whole word (case-sensitive) of the
//                                     last user message, in the order of `tools` (only the first when
//                                     parallel_tool_calls is false); none named → answers as below
//   tool_choice "none"              → never calls
//   last message a tool message     → "Tool said: <its content>" (text parts joined by newlines); under
//                                     "auto" this wins over calling, "required" / named still call
//   response_format json_schema     → the smallest instance of the schema as JSON; json_object → "{}"
//   "count N"                       → "1 2 3 … N"
//   "fail after N"                  → N tokens of "tick", then an in-band failure
//   anything else                   → "Echo: <the last user message>"
// A call's arguments are the smallest instance of the tool's `parameters` (smallest-instance.ts), streamed in
// at least two fragments. With `logprobs`, every content token has logprob -0.5 and `top_logprobs`
// alternatives alt1…altN at -1, -2, … (none asked: an empty list).
// A legacy completion (raw prompt) answers "Echo: <prompt>" and its prompt costs its own tokens (no template).
// Thinking variants first think "Thinking about: <the last user message>" unless reasoning_effort is "none".
// KV cache, by web-llm's rule as the production adapter meets it (kv-reuse.ts): a request whose messages are
// the last turn's conversation (its messages, then the reply as the client got it) plus one new message reports
// the tokens of that earlier part as `cached_tokens`; the turn must have ended "stop", not cut by a stop
// sequence while thinking (inpage interrupts web-llm there). Another request, a failure or a reload forgets it.
// Embeddings (svc-embed): a fixed-size unit-length vector from a hash of each input (deterministic-embedding.ts);
// a text costs its tokens, a token-id list its length; an input over the model's 512 tokens is 400
// context_length_exceeded. The embedding model loads beside the chat model (as web-llm's second engine does),
// never in its place.
// A token is a run of non-space characters with the spaces before it. Loading is simulated: a variant's
// first use "downloads" 4 MiB of pretend weights (the test knob `pretendWeightsBytes`) in progress steps, then
// "loads"; asked its download size beforehand, it names exactly that many bytes, from host `inpage-test`.
// The knob `cpuMemoryMiB` pretends a device without WebGPU (llama.cpp on the CPU): variants whose GGUF weights
// exceed it are unavailable and refused with model_too_large_for_device, as the llama.cpp engine does.
import { ApiError, clientAborted, contextExceeded } from '#shared/protocol/errors';
import type { AdapterReport, ImportFile, ImportProgress, ImportReport } from '#shared/wire/engine-control';
import type { InpageConfig } from '#shared/config';
import { embeddingFinish, type DownloadSize, type EngineEvent, type ModelStatus } from '#shared/wire/engine-port';
import { toolCallId } from '#shared/protocol/completion';
import type { ChatMessage, FunctionTool, ModelState, TokenLogprob } from '#shared/protocol/types';
import { catalogOf } from '#shared/catalog';
import { variantIn, type ModelCatalog } from '#shared/model-config';
import { modelNotFound } from '#shared/protocol/errors';
import type { ModelId } from '#shared/variants';
import { webllmModels } from '../../worker/engine/webllm/models';
import { GGUF_DEFAULTS } from '../../worker/engine/llamacpp/models';
import type { Engine, EngineFactory, Generation } from '../../worker/engine/engine';
import { spentUsage } from '../../worker/engine/usage';
import { nextTurn } from '../../worker/engine/common/event-batch';
import { assertSupported } from '../../worker/engine/common/request-support';
import { assertToolsSupported } from '../../worker/engine/webllm/schema-support';
import { OVER_THE_FAKE, WebLlmOverTheFake, webllmFakeEngine } from './webllm-over-the-fake';
import type { WebLlmToolFormatName } from '#shared/engine-kinds/webllm';
import type { PlannedRequest, ToolPlan } from '../../worker/engine/common/plan';
import { smallestInstance } from './smallest-instance';
import { deterministicEmbedding } from './deterministic-embedding';
import { TEST_KNOB_DEFAULTS, type TestKnobs } from './knobs';
import type { EmbeddingRequest } from '#shared/protocol/embeddings';

export const TEST_CONTEXT_LENGTH = 4096;
const DOWNLOAD_STEPS = 4;

export function tokenize(text: string): string[] {
  return text.match(/\s*\S+/g) ?? [];
}

function textOf(message: ChatMessage): string {
  if (typeof message.content === 'string') return message.content;
  // A tool message's parts are joined by newlines (issue 10); a user message's by spaces.
  const separator = message.role === 'tool' ? '\n' : ' ';
  return message.content.map((part) => (part.type === 'text' ? part.text : '[image]')).join(separator);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The tools to call for this request, by the rules above; empty when it answers with text. */
function callsFor(plan: ToolPlan | null, lastUserText: string, lastIsTool: boolean): FunctionTool[] {
  if (!plan) return [];
  if (plan.mode === 'required') return plan.tools.slice(0, 1);
  if (plan.mode === 'named') return plan.tools.filter((t) => t.function.name === plan.name);
  if (lastIsTool) return [];
  const named = plan.tools.filter((t) => new RegExp(`(?<![A-Za-z0-9_])${escapeRegExp(t.function.name)}(?![A-Za-z0-9_])`).test(lastUserText));
  return plan.parallel ? named : named.slice(0, 1);
}

/** A call's arguments in pieces of at most four characters, and never fewer than two pieces. */
export function argumentFragments(json: string): string[] {
  const size = Math.max(1, Math.min(4, Math.floor(json.length / 2)));
  const out: string[] = [];
  for (let at = 0; at < json.length; at += size) out.push(json.slice(at, at + size));
  return out;
}

function logprobOf(token: string, alternatives: number): TokenLogprob {
  const bytes = (text: string) => Array.from(new TextEncoder().encode(text));
  return {
    token,
    logprob: -0.5,
    bytes: bytes(token),
    top_logprobs: Array.from({ length: alternatives }, (_, i) => ({ token: `alt${i + 1}`, logprob: -(i + 1), bytes: bytes(`alt${i + 1}`) })),
  };
}

/** A chat template's worth of tokens: each message costs its text plus 4 for role and separators. */
export function countPromptTokens(messages: readonly ChatMessage[]): number {
  return messages.reduce((sum, m) => sum + tokenize(textOf(m)).length + 4, 2);
}

function replyFor(text: string, request: PlannedRequest): { content: string; failAfter?: number } {
  const last = request.messages[request.messages.length - 1]!;
  if (last.role === 'tool') return { content: `Tool said: ${textOf(last)}` };
  const format = request.plan.format;
  if (format?.type === 'json_object') return { content: '{}' };
  if (format?.type === 'json_schema') {
    const schema = format.json_schema.schema;
    return { content: JSON.stringify(schema === undefined ? {} : smallestInstance(schema)) };
  }
  const count = /^count (\d+)$/.exec(text.trim());
  if (count) return { content: Array.from({ length: Number(count[1]) }, (_, i) => String(i + 1)).join(' ') };
  const fail = /^fail after (\d+)$/.exec(text.trim());
  if (fail)
    return {
      content: Array(Number(fail[1]) + 1)
        .fill('tick')
        .join(' '),
      failAfter: Number(fail[1]),
    };
  return { content: `Echo: ${text}` };
}

function cutAtStop(text: string, stops: readonly string[]): { text: string; stopped: boolean } {
  let cut = -1;
  for (const stop of stops) {
    const at = text.indexOf(stop);
    if (at >= 0 && (cut < 0 || at < cut)) cut = at;
  }
  return cut < 0 ? { text, stopped: false } : { text: text.slice(0, cut), stopped: true };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface GroupState {
  state: ModelState;
  bytesDone: number;
}

export const createEngine: EngineFactory = (config: InpageConfig & Partial<TestKnobs>, catalog?: ModelCatalog) =>
  config.webllmFake === 1 ? webllmFakeEngine(config, catalog) : new DeterministicEngine(config, catalog);

export class DeterministicEngine implements Engine {
  private readonly groups = new Map<string, GroupState>();
  private readonly listeners: (() => void)[] = [];
  private loadedGroup: string | null = null;
  /** The embedding model's group while it is loaded (beside the chat model). */
  private loadedEmbedder: string | null = null;
  private readonly later = nextTurn();
  /** The conversation the KV cache holds after the last turn, on the loaded weights. */
  private held: { group: string; messages: ChatMessage[] } | null = null;

  /** Bytes of pretend weights each model "downloads". */
  private readonly pretendBytes: number;
  /** Bytes a model may take on a pretend CPU device (the knob `cpuMemoryMiB`); 0: a device with WebGPU. */
  private readonly cpuBudget: number;

  /** The web-llm engine over the fake, for models of other tool formats; made when first needed. */
  private overTheFake: WebLlmOverTheFake | null = null;

  /** The deployment's catalog: the engine worker's, or (an engine on its own, in tests) built here from the config. */
  private readonly catalog: ModelCatalog;

  constructor(
    private readonly config: InpageConfig & Partial<TestKnobs>,
    catalog?: ModelCatalog,
  ) {
    this.pretendBytes = config.pretendWeightsBytes || TEST_KNOB_DEFAULTS.pretendWeightsBytes;
    this.cpuBudget = (config.cpuMemoryMiB ?? 0) * 2 ** 20;
    // The deployment's models, checked as the web-llm engine checks them (a bad entry fails start-up alike).
    this.catalog = catalog ?? catalogOf(config.models, "the deployment's models setting");
    webllmModels(this.catalog);
  }

  private groupOf(id: ModelId): string {
    const variant = variantIn(this.catalog, id);
    if (!variant) throw modelNotFound(id);
    return variant.weightGroup;
  }

  /** On a pretend CPU device, the refusal of a variant whose GGUF weights exceed its memory (as llama.cpp's). */
  private tooLarge(id: ModelId): ApiError | null {
    const bytes = GGUF_DEFAULTS[this.groupOf(id)]?.bytes ?? 0;
    if (this.cpuBudget <= 0 || bytes <= this.cpuBudget) return null;
    const gb = (n: number) => `${(n / 1e9).toFixed(2)} GB`;
    return new ApiError(
      'model_too_large_for_device',
      `${id} runs here on llama.cpp on the CPU, and its GGUF weights (${gb(bytes)}) do not fit the memory this device can give a model (${gb(this.cpuBudget)}). Use a smaller variant, or a device with WebGPU.`,
    );
  }

  private group(id: ModelId): GroupState {
    const name = this.groupOf(id);
    let state = this.groups.get(name);
    if (!state) this.groups.set(name, (state = { state: 'not_downloaded', bytesDone: 0 }));
    return state;
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  status(): ModelStatus[] {
    // An id only an upstream answers is not this device's (the hybrid composite reports it).
    return this.catalog.variants
      .filter((v) => v.engine !== 'upstream')
      .map(({ id, weightGroup }) => {
        const g = this.group(id);
        // What production would load here (an adapter without shader-f16): names the real model as web-llm does.
        const model = webllmModels(this.catalog).get(weightGroup)?.f32;
        // An embedding model's window is its own (512 tokens), as web-llm reports it.
        const variant = variantIn(this.catalog, id);
        const context = variant?.embeddings ? variant.trainedContext : TEST_CONTEXT_LENGTH;
        const status: ModelStatus = { id, state: g.state, context_length: context, ...(model ? { modelId: model } : {}) };
        if (g.state === 'downloading') {
          status.progress = {
            phase: 'download',
            bytesDone: g.bytesDone,
            bytesTotal: this.pretendBytes,
            percent: Math.round((g.bytesDone / this.pretendBytes) * 100),
            text: `Fetching pretend weights ${g.bytesDone}/${this.pretendBytes} bytes`,
          };
        }
        if (g.state === 'cached' || g.state === 'loading' || g.state === 'ready') status.sizeOnDisk = this.pretendBytes;
        const tooLarge = this.tooLarge(id);
        if (tooLarge) return { ...status, state: 'unavailable', error: tooLarge.message };
        return status;
      });
  }

  onStatus(listener: () => void): void {
    this.listeners.push(listener);
  }

  async adapter(): Promise<AdapterReport> {
    if (this.cpuBudget > 0)
      return { available: false, reason: 'The test build pretends a device without WebGPU.', features: [], shaderF16: false, cpu: { threads: 1 } };
    return { available: true, vendor: 'inpage-test', architecture: 'deterministic', description: 'Deterministic test engine', features: [], shaderF16: false };
  }

  async load(id: ModelId): Promise<void> {
    const refusal = this.tooLarge(id);
    if (refusal) throw refusal;
    const name = this.groupOf(id);
    const g = this.group(id);
    if (variantIn(this.catalog, id)?.embeddings) {
      // Loads beside the chat model: the chat model stays as it is.
      if (this.loadedEmbedder === name && g.state === 'ready') return;
      this.loadedEmbedder = name;
      await this.fetchAndLoad(g);
      return;
    }
    if (this.loadedGroup === name && g.state === 'ready') return;
    if (this.loadedGroup !== name) this.held = null;
    if (this.loadedGroup && this.loadedGroup !== name) {
      const previous = this.groups.get(this.loadedGroup);
      if (previous) previous.state = 'cached';
    }
    this.loadedGroup = name;
    await this.fetchAndLoad(g);
  }

  private async fetchAndLoad(g: GroupState): Promise<void> {
    if (g.state === 'not_downloaded') {
      g.state = 'downloading';
      for (let step = 1; step <= DOWNLOAD_STEPS; step++) {
        g.bytesDone = (this.pretendBytes / DOWNLOAD_STEPS) * step;
        this.changed();
        await sleep(20);
      }
    }
    g.state = 'loading';
    this.changed();
    await sleep(10);
    g.state = 'ready';
    this.changed();
  }

  async unload(): Promise<void> {
    if (this.loadedEmbedder) {
      const e = this.groups.get(this.loadedEmbedder);
      if (e) e.state = 'cached';
      this.loadedEmbedder = null;
      if (!this.loadedGroup) this.changed();
    }
    if (!this.loadedGroup) return;
    this.held = null;
    const g = this.groups.get(this.loadedGroup);
    if (g) g.state = 'cached';
    this.loadedGroup = null;
    this.changed();
  }

  async downloadSize(id: ModelId): Promise<DownloadSize> {
    this.groupOf(id);
    return { bytes: this.pretendBytes, basis: 'manifest', host: 'inpage-test', covers: 'pretend weights' };
  }

  async deleteFromCache(id: ModelId): Promise<void> {
    const g = this.group(id);
    if (this.loadedGroup === this.groupOf(id)) {
      this.loadedGroup = null;
      this.held = null;
    }
    if (this.loadedEmbedder === this.groupOf(id)) this.loadedEmbedder = null;
    g.state = 'not_downloaded';
    g.bytesDone = 0;
    this.changed();
  }

  supports(request: PlannedRequest): void {
    assertSupported(request);
    assertToolsSupported(this.catalog, request);
    // A request web-llm answers over the fake is refused as web-llm refuses it (generate does not check again).
    const toolFormat = this.overTheFakeFormat(request);
    if (toolFormat) this.fake().supports(request);
  }

  /** The tool format of a request web-llm answers over the fake (tools offered to a model of another format). */
  private overTheFakeFormat(request: PlannedRequest): WebLlmToolFormatName | undefined {
    const toolFormat = webllmModels(this.catalog).get(request.variant.weightGroup)?.toolFormat;
    return request.plan.tools && request.plan.rawPrompt === undefined && toolFormat && OVER_THE_FAKE.has(toolFormat) ? toolFormat : undefined;
  }

  private fake(): WebLlmOverTheFake {
    this.overTheFake ??= new WebLlmOverTheFake(this.config, this.catalog);
    return this.overTheFake;
  }

  // Import and the cache check run web-llm's real cache code (no weights are ever loaded from it here), so the
  // test build exercises what production does with a folder of model files.
  async importFiles(files: ImportFile[], onProgress?: (progress: ImportProgress) => void): Promise<ImportReport> {
    const { importIntoCache } = await import('../../worker/engine/webllm/import-files');
    return importIntoCache(this.catalog, files, this.config, globalThis.location.origin, onProgress);
  }

  async cachedModels(): Promise<string[]> {
    const { cachedModelIds } = await import('../../worker/engine/webllm/import-files');
    return cachedModelIds(this.catalog, this.config, globalThis.location.origin);
  }

  /** `request` has passed `supports` (the scheduler asked it once, before queueing): not checked again here. */
  async generate(request: PlannedRequest, signal: AbortSignal): Promise<Generation> {
    await this.load(request.model);
    const { plan } = request;
    const raw = plan.rawPrompt;
    const promptTokens = raw !== undefined ? tokenize(raw).length : countPromptTokens(request.messages);
    const limit = plan.maxTokens;
    if (promptTokens + (limit ?? 0) > TEST_CONTEXT_LENGTH) throw contextExceeded(TEST_CONTEXT_LENGTH, promptTokens, limit ?? 0);
    const lastUser = [...request.messages].reverse().find((m) => m.role === 'user');
    const text = raw ?? (lastUser ? textOf(lastUser) : '');
    const reasoning = plan.thinking ? tokenize(`Thinking about: ${text}`) : [];
    const lastIsTool = request.messages[request.messages.length - 1]?.role === 'tool';
    const calls = callsFor(plan.tools, text, lastIsTool).map((tool) => ({
      name: tool.function.name,
      fragments: argumentFragments(JSON.stringify(tool.function.parameters === undefined ? {} : smallestInstance(tool.function.parameters))),
    }));
    const reply = raw !== undefined ? { content: `Echo: ${raw}` } : calls.length > 0 ? { content: '' } : replyFor(text, request);
    // A deployment's model of another tool format: the web-llm engine over the fake answers, its model writing the
    // calls in that format (webllm-over-the-fake.ts).
    const toolFormat = this.overTheFakeFormat(request);
    if (toolFormat) {
      const written = calls.map((c) => ({ name: c.name, arguments: c.fragments.join('') }));
      return this.fake().generate(request, signal, toolFormat, written, reply.content);
    }
    const { text: content, stopped } = cutAtStop(reply.content, plan.stops);
    const logprobs = plan.logprobs;
    const group = request.variant.weightGroup;
    // A raw prompt neither continues nor leaves a held conversation (web-llm resets for it).
    const cachedTokens = raw === undefined && this.continues(group, request.messages) ? countPromptTokens(request.messages.slice(0, -1)) : 0;
    this.held = null;
    // A turn of tool calls is not kept: its calls' ids are new to the client, so no next request continues it.
    const keep = (given: string) => {
      if (raw === undefined && calls.length === 0 && !(stopped && reasoning.length > 0))
        this.held = { group, messages: [...request.messages, { role: 'assistant', content: given }] };
    };
    const tally = { completion: 0, reasoning: 0 };
    const events = this.stream(reasoning, tokenize(content), calls, {
      promptTokens,
      cachedTokens,
      limit,
      stopped,
      failAfter: reply.failAfter,
      logprobs,
      signal,
      keep,
      tally,
    });
    return {
      // Names the real model, as web-llm's does: the one production would load here (no shader-f16).
      fingerprint: `fp_test_${webllmModels(this.catalog).get(group)?.f32 ?? group}`,
      events,
      // Counted as the engine produced them: the tokens generated until it stopped, not those delivered.
      spent: async () => spentUsage(promptTokens, tally.completion, cachedTokens, tally.reasoning),
    };
  }

  async embed(request: EmbeddingRequest, signal: AbortSignal): Promise<Generation> {
    const spec = request.variant.embeddings;
    if (!spec) throw new ApiError('invalid_value', `The model '${request.model}' does not create embeddings.`, { param: 'model' });
    await this.load(request.model);
    const counts = request.input.map((item) => (typeof item === 'string' ? tokenize(item).length : item.length));
    const context = request.variant.trainedContext;
    const over = counts.findIndex((n) => n > context);
    if (over >= 0) {
      throw new ApiError(
        'context_length_exceeded',
        `Input ${over} has ${counts[over]} tokens; '${request.model}' embeds at most ${context} tokens per input.`,
        { param: 'input' },
      );
    }
    const promptTokens = counts.reduce((a, b) => a + b, 0);
    const later = this.later;
    async function* events(): AsyncGenerator<EngineEvent> {
      for (const [index, item] of request.input.entries()) {
        if (index % 32 === 31) await new Promise<void>((resolve) => later(resolve));
        if (signal.aborted) throw clientAborted();
        yield { type: 'embedding', index, embedding: deterministicEmbedding(item, spec!.dimensions) };
      }
      yield embeddingFinish(promptTokens);
    }
    return { fingerprint: `fp_test_${request.variant.weightGroup}`, events: events() };
  }

  /** Whether `messages` are the held conversation plus one new message. */
  private continues(group: string, messages: readonly ChatMessage[]): boolean {
    const held = this.held;
    if (!held || held.group !== group || messages.length !== held.messages.length + 1) return false;
    return held.messages.every((m, i) => JSON.stringify(m) === JSON.stringify(messages[i]));
  }

  private async *stream(
    reasoning: string[],
    content: string[],
    calls: { name: string; fragments: string[] }[],
    opts: {
      promptTokens: number;
      cachedTokens: number;
      limit: number | undefined;
      stopped: boolean;
      failAfter: number | undefined;
      /** Alternatives per token when logprobs were asked for, else null. */
      logprobs: number | null;
      signal: AbortSignal;
      keep: (given: string) => void;
      /** The tokens generated so far, for `spent()`. */
      tally?: { completion: number; reasoning: number };
    },
  ): AsyncGenerator<EngineEvent> {
    const budget = opts.limit ?? Number.POSITIVE_INFINITY;
    const tally = opts.tally ?? { completion: 0, reasoning: 0 };
    let produced = 0;
    let reasoningTokens = 0;
    const checkAbort = () => {
      if (opts.signal.aborted) throw clientAborted();
    };
    /** A promise only when the engine waits (a paced token, or a turn every 32): the others go on at once. */
    const pace = (): Promise<void> | undefined => {
      if ((this.config.tokenDelayMs ?? 0) > 0) return sleep(this.config.tokenDelayMs ?? 0).then(checkAbort);
      // Let aborts and other messages in every 32 tokens. A MessageChannel turn, not setTimeout(0): nested
      // timers are clamped to 4 ms, which would make the benchmark's ceiling this engine's timer.
      if (produced % 32 === 0) return new Promise<void>((resolve) => this.later(resolve)).then(checkAbort);
      checkAbort();
      return undefined;
    };
    for (const token of reasoning) {
      if (produced >= budget) break;
      const wait = pace();
      if (wait) await wait;
      tally.completion = ++produced;
      tally.reasoning = ++reasoningTokens;
      yield { type: 'delta', reasoning: token };
    }
    let contentTokens = 0;
    let given = '';
    for (const token of content) {
      if (produced >= budget) break;
      if (opts.failAfter !== undefined && contentTokens >= opts.failAfter) {
        throw new ApiError('internal_error', `The test engine failed on purpose after ${opts.failAfter} tokens.`);
      }
      const wait = pace();
      if (wait) await wait;
      tally.completion = ++produced;
      contentTokens++;
      given += token;
      yield opts.logprobs === null ? { type: 'delta', content: token } : { type: 'delta', content: token, logprobs: [logprobOf(token, opts.logprobs)] };
    }
    // Each call: its name is one token, each fragment of its arguments another.
    const wanted = reasoning.length + content.length + calls.reduce((sum, c) => sum + 1 + c.fragments.length, 0);
    for (const [index, call] of calls.entries()) {
      if (produced >= budget) break;
      const wait = pace();
      if (wait) await wait;
      tally.completion = ++produced;
      yield { type: 'tool_call', index, id: toolCallId(), name: call.name };
      for (const fragment of call.fragments) {
        if (produced >= budget) break;
        const wait = pace();
        if (wait) await wait;
        tally.completion = ++produced;
        yield { type: 'tool_arguments', index, arguments: fragment };
      }
    }
    const truncated = produced < wanted;
    if (!truncated) opts.keep(given);
    yield {
      type: 'finish',
      finish_reason: truncated ? 'length' : calls.length > 0 ? 'tool_calls' : 'stop',
      usage: {
        prompt_tokens: opts.promptTokens,
        completion_tokens: produced,
        total_tokens: opts.promptTokens + produced,
        prompt_tokens_details: { cached_tokens: opts.cachedTokens },
        completion_tokens_details: { reasoning_tokens: reasoningTokens },
      },
    };
  }
}
