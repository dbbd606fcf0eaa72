// A stand-in for web-llm's MLCEngine, typed as web-llm's own MLCEngineInterface: if web-llm changes that
// interface, this stops compiling and `npm run typecheck` fails. It behaves as web-llm 0.2.86 does where the
// adapter depends on it: reload() reports progress and unloads the previous model, chatCompletion() streams
// one chunk per token then a finish chunk and a usage chunk, one stream at a time per model (a lock), the
// empty thinking block opens the output and counts against max_tokens when enable_thinking is false,
// interruptGenerate() ends the stream with finish_reason "abort", `stop` is matched against the whole output
// (the empty block included) and cuts the reply it holds, and the KV cache is kept as preparePrefillInput
// keeps it: a request whose earlier messages equal the conversation it holds (its reply as generated) after a
// reply that ended "stop" prefills only the new turn; any other resets and prefills everything. `usage.
// prompt_tokens` is the tokens prefilled, as web-llm reports it; `prefilled` records them per request.
import type {
  AppConfig,
  Chat,
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionRequest,
  ChatCompletionRequestBase,
  ChatCompletionRequestNonStreaming,
  ChatCompletionRequestStreaming,
  ChatOptions,
  Completion,
  CompletionCreateParams,
  CompletionCreateParamsBase,
  CompletionCreateParamsNonStreaming,
  CompletionCreateParamsStreaming,
  Completions,
  CreateEmbeddingResponse,
  EmbeddingCreateParams,
  Embeddings,
  InitProgressCallback,
  LogLevel,
  MLCEngineConfig,
  MLCEngineInterface,
  ResumeChatCompletionOptions,
  ResumeProbeResult,
  ResumeResult,
} from '@mlc-ai/web-llm';
import type { CacheFunctions } from '../../../worker/engine/webllm/cache';
import type { GpuProbe } from '../../../worker/engine/common/gpu';
import type { ImageReader } from '../../../worker/engine/common/images';
import type { ConvTemplate, LoadedModelView } from '../../../worker/engine/webllm/prompt-tokens';
import type { WebLlmDeps } from '../../../worker/engine/webllm/adapter';

/** A token: a special marker, a run of whitespace, or a run of other characters. */
export function fakeTokens(text: string): string[] {
  return text.match(/<\|[^|]*\|>|<\/?think>|\s+|[^\s<]+|</g) ?? [];
}

/** Qwen's ChatML template as web-llm's conv_template carries it. */
export const CHATML: ConvTemplate = {
  system_template: '<|im_start|>system\n{system_message}<|im_end|>\n',
  system_message: 'You are a helpful assistant.',
  roles: { user: '<|im_start|>user', assistant: '<|im_start|>assistant', tool: '<|im_start|>user' },
  seps: ['<|im_end|>\n'],
  role_content_sep: '\n',
  role_empty_sep: '\n',
  stop_str: ['<|im_end|>'],
  stop_token_ids: [151645],
};

export class NamedError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

export interface Script {
  /** The model's output, one token per piece (thinking tags included when the model thinks). */
  pieces: string[];
  finish?: 'stop' | 'length';
  /** Throw this after yielding this many pieces. */
  failAfter?: { pieces: number; error: Error };
  /** Thrown by the first next() (web-llm's prefill), e.g. a ContextWindowSizeExceededError. */
  prefillError?: Error;
}

const EMPTY_THINK = '<think>\n\n</think>\n\n';

export class FakeEngine implements MLCEngineInterface {
  chat = undefined as unknown as Chat;
  completions = undefined as unknown as Completions;
  embeddings = { create: (request: EmbeddingCreateParams) => this.embedding(request) } as unknown as Embeddings;
  /** Every embeddings request, in order. */
  readonly embeddingRequests: EmbeddingCreateParams[] = [];

  readonly reloads: { modelId: string; chatOpts: ChatOptions | undefined }[] = [];
  readonly requests: ChatCompletionRequest[] = [];
  readonly completionRequests: CompletionCreateParamsBase[] = [];
  interrupts = 0;
  unloads = 0;
  loaded: string | null = null;
  /** Set when a stream was started while another had not run to its end: the adapter failed to drain. */
  overlap = false;
  /** Streams that have not yet run to their end. */
  openStreams = 0;
  /** Decides each reload: throw to fail it. */
  onReload: (modelId: string, chatOpts: ChatOptions | undefined) => void | Promise<void> = () => undefined;
  /** What the model says to a request. */
  script: (request: ChatCompletionRequest) => Script = () => ({ pieces: ['Hello', ' there'] });
  /** Resolves every time a chunk is about to be produced; lets tests act mid-stream. */
  onChunk: (index: number) => void | Promise<void> = () => undefined;
  /** Tokens prefilled by each request, in order (web-llm's usage.prompt_tokens). */
  readonly prefilled: number[] = [];
  /** Whether each request kept the KV cache (web-llm's "Multiround chatting, reuse KVCache."). */
  readonly reused: boolean[] = [];
  /** The conversation web-llm holds: the messages of the last request, then its reply as generated. */
  private conversation: { role: string; content: ChatCompletionRequest['messages'][number]['content'] }[] | null = null;
  private lastFinish: 'stop' | 'length' | 'abort' | null = null;
  private reply = '';

  private progress: InitProgressCallback | undefined;
  private interrupted = false;

  constructor(
    readonly config: MLCEngineConfig | undefined,
    private readonly cache: FakeCache,
  ) {
    this.progress = config?.initProgressCallback;
  }

  setInitProgressCallback(callback: InitProgressCallback): void {
    this.progress = callback;
  }
  getInitProgressCallback(): InitProgressCallback | undefined {
    return this.progress;
  }
  setAppConfig(_appConfig: AppConfig): void {}

  async reload(modelId: string | string[], chatOpts?: ChatOptions | ChatOptions[]): Promise<void> {
    const id = Array.isArray(modelId) ? modelId[0]! : modelId;
    const opts = Array.isArray(chatOpts) ? chatOpts[0] : chatOpts;
    this.reloads.push({ modelId: id, chatOpts: opts });
    await this.unload();
    await this.onReload(id, opts);
    const total = 4 * 1024 * 1024;
    const report = (progress: number, text: string) => this.progress?.({ progress, timeElapsed: 0, text });
    report(0, 'Start to fetch params');
    if (!this.cache.ids.has(id)) {
      for (let i = 1; i <= 4; i++) {
        report(i / 4, `Fetching param cache[${i}/4]: ${Math.ceil((total * i) / 4 / 1048576)}MB fetched. ${i * 25}% completed, 1 secs elapsed.`);
      }
      this.cache.ids.add(id);
    }
    for (let i = 1; i <= 4; i++) {
      report(i / 4, `Loading model from cache[${i}/4]: ${Math.ceil((total * i) / 4 / 1048576)}MB loaded. ${i * 25}% completed, 1 secs elapsed.`);
    }
    report(1, 'Finish loading on WebGPU - google swiftshader');
    this.loaded = id;
  }

  async getMessage(modelId?: string): Promise<string> {
    if (!this.loaded || (modelId !== undefined && modelId !== this.loaded)) {
      throw new NamedError('ModelNotLoadedError', 'Model not loaded before trying to complete getMessage.');
    }
    return this.reply;
  }

  chatCompletion(request: ChatCompletionRequestNonStreaming): Promise<ChatCompletion>;
  chatCompletion(request: ChatCompletionRequestStreaming): Promise<AsyncIterable<ChatCompletionChunk>>;
  chatCompletion(request: ChatCompletionRequestBase): Promise<AsyncIterable<ChatCompletionChunk> | ChatCompletion>;
  chatCompletion(request: ChatCompletionRequest): Promise<AsyncIterable<ChatCompletionChunk> | ChatCompletion>;
  async chatCompletion(request: ChatCompletionRequestBase): Promise<AsyncIterable<ChatCompletionChunk> | ChatCompletion> {
    if (!this.loaded) throw new NamedError('ModelNotLoadedError', 'Model not loaded before trying to complete ChatCompletionRequest.');
    if (!request.stream) throw new Error('The fake only streams (the adapter always streams).');
    this.requests.push(structuredClone(request) as ChatCompletionRequest);
    if (this.openStreams > 0) this.overlap = true;
    this.openStreams++;
    return this.stream(request);
  }

  private async *stream(request: ChatCompletionRequestBase): AsyncGenerator<ChatCompletionChunk> {
    try {
      const script = this.script(request as ChatCompletionRequest);
      this.interrupted = false;
      const thinkingOff = request.extra_body?.enable_thinking === false;
      const prompt = this.prefill(request as ChatCompletionRequest, thinkingOff);
      if (script.prefillError) throw script.prefillError;
      const prefixTokens = thinkingOff ? fakeTokens(EMPTY_THINK).length : 0;
      const limit = request.max_tokens ?? Infinity;
      const stops = request.stop === undefined || request.stop === null ? [] : Array.isArray(request.stop) ? request.stop : [request.stop];
      const base = { id: 'fake', model: this.loaded!, object: 'chat.completion.chunk' as const, created: 1 };
      let produced = 0;
      let finish: 'stop' | 'length' | 'abort' = script.finish ?? 'stop';
      // As web-llm: the whole output (empty block included) decoded, cut at a stop string; deltas are its growth.
      let output = thinkingOff ? EMPTY_THINK : '';
      let streamed = 0;
      this.reply = output;
      this.lastFinish = null;
      try {
        for (const [i, piece] of script.pieces.entries()) {
          await this.onChunk(i);
          if (this.interrupted) {
            finish = 'abort';
            break;
          }
          if (script.failAfter && i === script.failAfter.pieces) throw script.failAfter.error;
          output += piece;
          let message = output;
          let stopped = false;
          for (const stop of stops) {
            const at = message.lastIndexOf(stop);
            if (at >= 0) {
              message = message.slice(0, at);
              stopped = true;
              break;
            }
          }
          this.reply = message;
          const text = message.slice(streamed);
          streamed = message.length;
          // As web-llm 0.2.86: logprobs are recorded only when top_logprobs > 0 (logprobs: true alone gives none).
          const alternatives = request.top_logprobs ?? 0;
          const top = Array.from({ length: alternatives }, (_, k) => ({ token: `alt${k + 1}`, logprob: -(k + 1), bytes: null }));
          const logprobs = request.logprobs && alternatives > 0 ? { content: [{ token: piece, logprob: -0.5, bytes: null, top_logprobs: top }] } : null;
          produced++;
          yield { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null, logprobs }] };
          if (stopped) {
            finish = 'stop';
            break;
          }
          if (produced + prefixTokens >= limit) {
            finish = 'length';
            break;
          }
        }
      } catch (err) {
        finish = 'abort'; // a failed generation is never continued
        throw err;
      } finally {
        this.lastFinish = finish;
        this.conversation!.push({ role: 'assistant', content: this.reply });
      }
      yield { ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] };
      yield {
        ...base,
        choices: [],
        usage: {
          prompt_tokens: prompt,
          completion_tokens: produced,
          total_tokens: prompt + produced,
          extra: { e2e_latency_s: 0, prefill_tokens_per_s: 0, decode_tokens_per_s: 0, time_to_first_token_s: 0, time_per_output_token_s: 0 },
        },
      };
    } finally {
      this.openStreams--;
    }
  }

  /**
   * web-llm's preparePrefillInput: keeps the conversation (and KV cache) when the request's earlier messages
   * equal it and the last reply ended "stop", then prefills the last round; else resets and prefills all.
   */
  private prefill(request: ChatCompletionRequest, thinkingOff: boolean): number {
    const messages = request.messages.map((m) => ({ role: m.role, content: m.content }));
    const earlier = messages.slice(0, -1);
    const same =
      this.conversation !== null &&
      this.lastFinish === 'stop' &&
      this.conversation.length === earlier.length &&
      this.conversation.every((m, i) => m.role === earlier[i]!.role && JSON.stringify(m.content) === JSON.stringify(earlier[i]!.content));
    const header = CHATML.roles.assistant + '\n' + (thinkingOff ? EMPTY_THINK : '');
    const turn = (m: (typeof messages)[number]) =>
      m.role === 'system'
        ? CHATML.system_template.replace('{system_message}', String(m.content))
        : `<|im_start|>${m.role}\n${typeof m.content === 'string' ? m.content : m.content!.map((p) => (p.type === 'text' ? p.text : '')).join('')}<|im_end|>\n`;
    const pieces = same
      ? [turn(messages.at(-1)!), header]
      : [...(messages[0]?.role === 'system' ? [] : [CHATML.system_template.replace('{system_message}', CHATML.system_message)]), ...messages.map(turn), header];
    const tokens = pieces.reduce((n, piece) => n + fakeTokens(piece).length, 0);
    this.reused.push(same);
    this.prefilled.push(tokens);
    this.conversation = messages;
    return tokens;
  }

  completion(request: CompletionCreateParamsNonStreaming): Promise<Completion>;
  completion(request: CompletionCreateParamsStreaming): Promise<AsyncIterable<Completion>>;
  completion(request: CompletionCreateParamsBase): Promise<AsyncIterable<Completion> | Completion>;
  completion(request: CompletionCreateParams): Promise<AsyncIterable<Completion> | Completion>;
  async completion(request: CompletionCreateParamsBase): Promise<AsyncIterable<Completion> | Completion> {
    if (!this.loaded) throw new NamedError('ModelNotLoadedError', 'Model not loaded before trying to complete CompletionCreateParams.');
    if (!request.stream) throw new Error('The fake only streams (the adapter always streams).');
    this.completionRequests.push(structuredClone(request));
    if (this.openStreams > 0) this.overlap = true;
    this.openStreams++;
    return this.completionStream(request);
  }

  /** Legacy completions: the script's pieces as `text`, no template and no thinking block. */
  private async *completionStream(request: CompletionCreateParamsBase): AsyncGenerator<Completion> {
    try {
      const script = this.script({ model: request.model ?? '', messages: [{ role: 'user', content: request.prompt }] } as ChatCompletionRequest);
      this.interrupted = false;
      const limit = request.max_tokens ?? Infinity;
      const base = { id: 'fake', model: this.loaded!, object: 'text_completion' as const, created: 1 };
      let produced = 0;
      let finish: 'stop' | 'length' | 'abort' = script.finish ?? 'stop';
      for (const piece of script.pieces) {
        if (this.interrupted) {
          finish = 'abort';
          break;
        }
        produced++;
        yield { ...base, choices: [{ index: 0, text: piece, finish_reason: null }] };
        if (produced >= limit) {
          finish = 'length';
          break;
        }
      }
      yield { ...base, choices: [{ index: 0, text: '', finish_reason: finish }] };
      const prompt = fakeTokens(request.prompt).length;
      yield {
        ...base,
        choices: [],
        usage: {
          prompt_tokens: prompt,
          completion_tokens: produced,
          total_tokens: prompt + produced,
          extra: { e2e_latency_s: 0, prefill_tokens_per_s: 0, decode_tokens_per_s: 0, time_to_first_token_s: 0, time_per_output_token_s: 0 },
        },
      };
    } finally {
      this.openStreams--;
    }
  }
  /**
   * web-llm's embeddings on a loaded embedding model: 384 dimensions, a text costs its fake tokens, an input over
   * 512 tokens is web-llm's EmbeddingExceedContextWindowSizeError. Vector i is (i + 1, tokens, 0, …).
   */
  async embedding(request: EmbeddingCreateParams): Promise<CreateEmbeddingResponse> {
    this.embeddingRequests.push(request);
    if (!this.loaded) throw new NamedError('ModelNotLoadedError', 'Model not loaded before trying to complete embedding request.');
    const inputs = (typeof request.input === 'string' ? [request.input] : request.input) as (string | number[])[];
    const counts = inputs.map((item) => (typeof item === 'string' ? fakeTokens(item).length : item.length));
    const over = counts.find((n) => n > 512);
    if (over !== undefined)
      throw new NamedError('EmbeddingExceedContextWindowSizeError', `only supports up to 512 context size. However, an input in the batch has size ${over}.`);
    const total = counts.reduce((a, b) => a + b, 0);
    return {
      object: 'list',
      model: this.loaded,
      data: counts.map((n, index) => ({ object: 'embedding', index, embedding: [index + 1, n, ...Array<number>(382).fill(0)] })),
      usage: { prompt_tokens: total, total_tokens: total, extra: { prefill_tokens_per_s: 0 } },
    };
  }
  async listResumableSessions(): Promise<ResumeProbeResult[]> {
    return [];
  }
  async resumeChatCompletion(_sessionId: string, _options?: ResumeChatCompletionOptions): Promise<ResumeResult | AsyncIterable<ChatCompletionChunk>> {
    throw new Error('inpage never resumes sessions.');
  }
  async deleteResumableSession(_sessionId: string): Promise<void> {}
  runtimeStatsText = async (_modelId?: string): Promise<string> => '';
  interruptGenerate = (): void => {
    this.interrupts++;
    this.interrupted = true;
  };
  unload = async (): Promise<void> => {
    if (this.loaded) this.unloads++;
    this.loaded = null;
    this.conversation = null;
  };
  resetChat = async (_keepStats?: boolean, _modelId?: string): Promise<void> => {
    this.conversation = null;
  };
  async getMaxStorageBufferBindingSize(): Promise<number> {
    return 1 << 30;
  }
  async getGPUVendor(): Promise<string> {
    return 'google';
  }
  async forwardTokensAndSample(_inputIds: number[], _isPrefill: boolean, _modelId?: string): Promise<number> {
    return 0;
  }
  setLogLevel(_logLevel: LogLevel): void {}
}

export class FakeCache implements CacheFunctions {
  readonly ids = new Set<string>();
  readonly deleted: string[] = [];
  async hasModelInCache(modelId: string): Promise<boolean> {
    return this.ids.has(modelId);
  }
  async deleteModelAllInfoInCache(modelId: string): Promise<void> {
    this.deleted.push(modelId);
    this.ids.delete(modelId);
  }
  /** The models whose library / chat config were removed from the cache. */
  readonly deletedParts: string[] = [];
  async deleteModelWasmInCache(modelId: string): Promise<void> {
    this.deletedParts.push(`${modelId}:library`);
  }
  async deleteChatConfigInCache(modelId: string): Promise<void> {
    this.deletedParts.push(`${modelId}:config`);
  }
}

export function swiftShaderProbe(features: string[] = ['subgroups', 'timestamp-query']): GpuProbe {
  return {
    report: {
      available: true,
      vendor: 'google',
      architecture: 'swiftshader',
      description: 'google swiftshader',
      features,
      shaderF16: features.includes('shader-f16'),
    },
    maxBufferBytes: 1 << 30,
    deviceMemoryGiB: 16,
  };
}

export function fakeView(modelType = 'qwen3'): LoadedModelView {
  return {
    countTokens: (text) => fakeTokens(text).length,
    template: CHATML,
    modelType,
    imageTokens: ({ width, height }) => Math.ceil(width / 10) * Math.ceil(height / 10),
    imageMarkerTokens: 0,
  };
}

export const fakeImages: ImageReader = {
  async fetch(url) {
    if (url.includes('missing')) throw new Error('HTTP 404 Not Found');
    return new Blob([new Uint8Array([137, 80, 78, 71])], { type: 'image/png' });
  },
  async size() {
    return { width: 40, height: 20 };
  },
};

export interface Rig {
  deps: WebLlmDeps;
  /** The chat MLCEngine (the first one created). */
  engine: () => FakeEngine;
  /** The embedding model's MLCEngine (the second one created), once created. */
  embedder: () => FakeEngine | undefined;
  cache: FakeCache;
  loseDevice: (message: string) => void;
}

export function rig(options: { probe?: GpuProbe; view?: boolean } = {}): Rig {
  const cache = new FakeCache();
  const engines: FakeEngine[] = [];
  let lost: ((message: string) => void) | null = null;
  const deps: WebLlmDeps = {
    createEngine: (config) => {
      const engine = new FakeEngine(config, cache);
      engines.push(engine);
      return engine;
    },
    cache,
    probeGpu: async () => options.probe ?? swiftShaderProbe(),
    inspect: (mlc, modelId) => {
      if (options.view === false) return null;
      return (mlc as FakeEngine).loaded === modelId ? fakeView(modelId.startsWith('Phi') ? 'phi3_v' : 'qwen3') : null;
    },
    images: fakeImages,
    watchDeviceLoss: (listener) => (lost = listener),
    origin: 'https://app.example',
  };
  return {
    deps,
    engine: () => engines[0]!,
    embedder: () => engines[1],
    cache,
    loseDevice: (message) => lost?.(message),
  };
}
