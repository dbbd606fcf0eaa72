// The single-purpose parts of the web-llm adapter, each on its own.
import { readFileSync } from 'node:fs';
import { DEFAULT_CATALOG } from '#shared/model-config';
import { fileURLToPath } from 'node:url';
import { MLCEngine, type MLCEngineInterface } from '@mlc-ai/web-llm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '#shared/protocol/errors';
import { resolved, type RequestBody } from '../fakes/requests';
import { assertSupported } from '../../../worker/engine/common/request-support';
import { contextLength, kvBytesPerToken, memoryBudgetMB, smallerContext } from '../../../worker/engine/webllm/context-size';
import { generationError, isOutOfMemory, loadError } from '../../../worker/engine/webllm/errors';
import { nativeStops } from '../../../worker/engine/webllm/kv-reuse';
import { ModelCache } from '../../../worker/engine/webllm/cache';
import { probeGpu } from '../../../worker/engine/common/gpu';
import { inspectMLCEngine } from '../../../worker/engine/webllm/introspect';
import { WEBLLM_MODELS, appConfigFor, recordFor } from '../../../worker/engine/webllm/models';
import { ProgressTracker } from '../../../worker/engine/webllm/progress';
import { countPromptTokens, renderPrompt } from '../../../worker/engine/webllm/prompt-tokens';
import { StopMatcher } from '../../../worker/engine/common/stop-matcher';
import { ThinkSplitter } from '../../../worker/engine/webllm/thinking';
import { CHATML, FakeCache, NamedError, fakeView } from '../fakes/webllm-fake';

function splitAll(chunks: string[]): { reasoning: string; content: string } {
  const splitter = new ThinkSplitter();
  let reasoning = '';
  let content = '';
  for (const chunk of chunks) {
    const out = splitter.push(chunk);
    reasoning += out.reasoning;
    content += out.content;
  }
  const rest = splitter.end();
  return { reasoning: reasoning + rest.reasoning, content: content + rest.content };
}

describe('ThinkSplitter', () => {
  const cases: [string, string, string][] = [
    ['<think>\nLet me see.\n</think>\n\nThe answer.', 'Let me see.', 'The answer.'],
    ['<think>\n\n</think>\n\nHi!', '', 'Hi!'],
    ['Plain answer, no thinking.', '', 'Plain answer, no thinking.'],
    ['  <think>a < b, and </thin is not the end</think>x', 'a < b, and </thin is not the end', 'x'],
    ['<think>cut off by max_tokens', 'cut off by max_tokens', ''],
    ['<thi', '', '<thi'],
    ['An answer that mentions <think> later', '', 'An answer that mentions <think> later'],
  ];
  it.each(cases)('%j → reasoning %j, content %j', (text, reasoning, content) => {
    expect(splitAll([text])).toEqual({ reasoning, content });
  });

  it('gives the same split however the text is chunked', () => {
    const pieces = fc.constantFrom('<think>', '</think>', '<', '>', 'think', '\n', '\n\n', ' ', 'word', '<th', 'nk>', '/');
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 30 }), fc.array(fc.nat(), { maxLength: 10 }), (parts, cuts) => {
        const text = parts.join('');
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const chunks: string[] = [];
        let at = 0;
        for (const p of points) {
          chunks.push(text.slice(at, p));
          at = p;
        }
        chunks.push(text.slice(at));
        expect(splitAll(chunks)).toEqual(splitAll([text]));
      }),
    );
  });

  it('flags the pieces that belong to the thinking block', () => {
    const splitter = new ThinkSplitter();
    expect(['<think>', 'a', '</think>', '\n\n', 'b'].map((piece) => splitter.push(piece).thinking)).toEqual([true, true, true, false, false]);
  });
});

describe('ProgressTracker', () => {
  it("reads phase and bytes from web-llm's reports", () => {
    const tracker = new ProgressTracker();
    const MiB = 1024 * 1024;
    expect(tracker.update({ progress: 0, timeElapsed: 0, text: 'Start to fetch params' })).toMatchObject({ phase: 'prepare', bytesDone: 0, percent: 0 });
    const a = tracker.update({
      progress: 0.25,
      timeElapsed: 1,
      text: 'Fetching param cache[10/40]: 250MB fetched. 25% completed, 1 secs elapsed. It can take a while…',
    });
    expect(a).toMatchObject({ phase: 'download', bytesDone: 250 * MiB, bytesTotal: 1000 * MiB, percent: 25 });
    const b = tracker.update({ progress: 0.5, timeElapsed: 2, text: 'Loading model from cache[20/40]: 500MB loaded. 50% completed, 2 secs elapsed.' });
    expect(b).toMatchObject({ phase: 'load', bytesDone: 500 * MiB, bytesTotal: 1000 * MiB, percent: 50 });
    const c = tracker.update({ progress: 0.3, timeElapsed: 3, text: 'Loading GPU shader modules[30/100]: 30% completed, 3 secs elapsed.' });
    expect(c).toMatchObject({ phase: 'compile', bytesDone: 1000 * MiB, percent: 30 });
    expect(tracker.update({ progress: 1, timeElapsed: 4, text: 'Finish loading on WebGPU - google swiftshader' }).phase).toBe('done');
    expect(tracker.weightBytes).toBe(1000 * MiB);
  });
});

describe('context sizing', () => {
  const qwen8 = WEBLLM_MODELS['qwen3-8b']!.kv;
  it('computes KV bytes per token from the model shape', () => {
    expect(kvBytesPerToken(qwen8, 'f16')).toBe(2 * 36 * 8 * 128 * 2);
    expect(kvBytesPerToken(qwen8, 'f32')).toBe(2 * 36 * 8 * 128 * 4);
  });
  it('raises the context as memory allows, in steps of 1024, between 4096 and the trained maximum', () => {
    const base = { shape: qwen8, precision: 'f16' as const, vramRequiredMB: 5695.78, trainedContext: 40_960 };
    const big = { memoryMB: 1_000_000, maxBufferBytes: 1 << 30 };
    expect(contextLength({ ...base, budget: big })).toBe(40_960);
    expect(contextLength({ ...base, budget: { memoryMB: 100, maxBufferBytes: 1 << 30 } })).toBe(4096);
    // 5695.78 MB at 4096 tokens, of which 576 MiB is KV cache; 2 GB more holds ~14,000 more tokens.
    const mid = contextLength({ ...base, budget: { memoryMB: 5695.78 + 2048, maxBufferBytes: 1 << 30 } });
    expect(mid).toBe(Math.floor((4096 + (2048 * 1024 * 1024) / kvBytesPerToken(qwen8, 'f16')) / 1024) * 1024);
    // One layer's KV pages are one buffer: a 64 MiB buffer limit holds 64 MiB / 4 KiB = 16,384 tokens.
    expect(contextLength({ ...base, budget: { memoryMB: 1_000_000, maxBufferBytes: 64 * 1024 * 1024 } })).toBe(16_384);
  });
  it('steps down by halves to 4096 after running out of memory', () => {
    expect(smallerContext(40_960, 40_960)).toBe(20_480);
    expect(smallerContext(5120, 40_960)).toBe(4096);
    expect(smallerContext(4096, 40_960)).toBeNull();
  });
  it('budgets half the reported device memory unless the deployment says otherwise', () => {
    expect(memoryBudgetMB(0, 16)).toBe(8192);
    expect(memoryBudgetMB(12_000, 16)).toBe(12_000);
    expect(memoryBudgetMB(0, undefined)).toBe(4096);
  });
});

describe('prompt tokens', () => {
  it('renders the chat template as web-llm does, system message and reply header included', () => {
    const turns = renderPrompt(
      CHATML,
      [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
        { role: 'user', content: 'bye' },
      ],
      { modelType: 'qwen3' },
    );
    expect(turns).toEqual([
      ['<|im_start|>system\nBe brief.<|im_end|>\n'],
      ['<|im_start|>user\nhi<|im_end|>\n'],
      ['<|im_start|>assistant\nhello<|im_end|>\n'],
      ['<|im_start|>user\nbye<|im_end|>\n'],
      ['<|im_start|>assistant\n'],
    ]);
    const off = renderPrompt(CHATML, [{ role: 'user', content: 'hi' }], { modelType: 'qwen3', emptyThinkBlock: '<think>\n\n</think>\n\n' });
    expect(off.at(-1)).toEqual(['<|im_start|>assistant\n<think>\n\n</think>\n\n']);
    expect(off[0]).toEqual(['<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n']);
  });
  it('counts images by their embedding size, placed before the text as Phi-3.5-vision does', () => {
    const view = fakeView('phi3_v');
    const messages = [
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: 'what' },
          { type: 'image_url' as const, image_url: { url: 'data:image/png;base64,AA==' } },
        ],
      },
    ];
    const turns = renderPrompt(CHATML, messages, { modelType: 'phi3_v' });
    expect(turns[1]).toEqual(['<|im_start|>user\n', { image: 'data:image/png;base64,AA==' }, '\n', 'what<|im_end|>\n']);
    const withImage = countPromptTokens(view, messages, new Map([['data:image/png;base64,AA==', { width: 40, height: 20 }]]));
    const textOnly = countPromptTokens(view, [{ role: 'user', content: 'what' }], new Map());
    // 4 × 2 image tokens and the "\n" after the image.
    expect(withImage - textOnly).toBe(8 + 1);
  });
});

describe('model source', () => {
  it("defaults to web-llm's prebuilt hosts and caches in IndexedDB", () => {
    const config = appConfigFor(DEFAULT_CATALOG, { modelBaseUrl: '', modelLibBaseUrl: '' }, 'https://app.example');
    expect(config.cacheBackend).toBe('indexeddb');
    expect(config.model_list.map((r) => r.model_id).sort()).toEqual(
      [
        'Phi-3.5-vision-instruct-q4f16_1-MLC',
        'Phi-3.5-vision-instruct-q4f32_1-MLC',
        'Qwen3-1.7B-q4f16_1-MLC',
        'Qwen3-1.7B-q4f32_1-MLC',
        'Qwen3-8B-q4f16_1-MLC',
        'Qwen3-8B-q4f32_1-MLC',
        'snowflake-arctic-embed-s-q0f32-MLC-b4',
      ].sort(),
    );
    const qwen = config.model_list.find((r) => r.model_id === 'Qwen3-8B-q4f16_1-MLC')!;
    expect(qwen.model).toBe('https://huggingface.co/mlc-ai/Qwen3-8B-q4f16_1-MLC');
    expect(qwen.model_lib).toMatch(/^https:\/\/raw\.githubusercontent\.com\/mlc-ai\/binary-mlc-llm-libs\/.+Qwen3-8B-q4f16_1.+\.wasm$/);
  });
  it('self-hosts: relative and absolute bases, the library file name kept', () => {
    const own = recordFor(
      DEFAULT_CATALOG,
      'Qwen3-1.7B-q4f32_1-MLC',
      { modelBaseUrl: '/models', modelLibBaseUrl: 'https://cdn.example/libs/' },
      'https://app.example',
    );
    expect(own.model).toBe('https://app.example/models/Qwen3-1.7B-q4f32_1-MLC');
    expect(own.model_lib).toMatch(/^https:\/\/cdn\.example\/libs\/Qwen3-1\.7B-q4f32_1[^/]*-webgpu\.wasm$/);
  });
});

describe('error mapping', () => {
  it("maps web-llm's errors to the contract's codes", () => {
    expect(generationError(new NamedError('ContextWindowSizeExceededError', 'Prompt tokens exceed'))).toMatchObject({
      code: 'context_length_exceeded',
      status: 400,
    });
    expect(generationError(new NamedError('StreamingCountError', 'When streaming, `n` cannot be > 1.'))).toMatchObject({
      code: 'unsupported_parameter',
      status: 400,
    });
    expect(generationError(new NamedError('RangeError', 'Make sure 0 < top_p <= 1.'))).toMatchObject({ code: 'invalid_value' });
    expect(generationError(new RangeError('Maximum call stack size exceeded'))).toMatchObject({ code: 'internal_error' });
    expect(generationError(new NamedError('WebGPUNotAvailableError', 'WebGPU is not supported'))).toMatchObject({ code: 'webgpu_unavailable', status: 503 });
    expect(loadError(new Error('Failed to store x with error: TypeError: Failed to fetch'), 'svc-vision', 'weights from https://x')).toMatchObject({
      code: 'model_load_failed',
      status: 503,
      message: 'Loading svc-vision failed: Failed to store x with error: TypeError: Failed to fetch [weights from https://x]',
    });
    expect(loadError(new SyntaxError(`Unexpected token '<', "<!doctype "... is not valid JSON`), 'svc-vision').message).toContain('HTML page');
    expect(isOutOfMemory(new NamedError('DeviceLostError', 'The WebGPU device was lost while loading the model.'))).toBe(true);
    expect(isOutOfMemory(new Error('Failed to fetch'))).toBe(false);
  });
});

describe('request support', () => {
  const base: RequestBody = { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'hi' }] };
  const refused = (request: RequestBody): string | null => {
    try {
      assertSupported(resolved(request));
      return null;
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe('unsupported_parameter');
      return (err as ApiError).param;
    }
  };
  it('accepts any stop sequence, for thinking variants too (the adapter applies them to the answer)', () => {
    for (const stop of ['\n', '>', 'think', '</think>', '\n\n', ' 5']) {
      expect(refused({ ...base, stop })).toBeNull();
      expect(refused({ ...base, model: 'svc-model-5.2', stop: [stop, 'END'] })).toBeNull();
    }
  });
  it("accepts leading system and developer messages, refuses later ones, and a last turn that is not the user's", () => {
    expect(
      refused({
        ...base,
        messages: [
          { role: 'developer', content: 'a' },
          { role: 'system', content: 'b' },
          { role: 'user', content: 'c' },
        ],
      }),
    ).toBeNull();
    expect(refused({ ...base, messages: [{ role: 'system', content: 'a' }] })).toBe('messages[0].role');
  });
});

describe('the GPU probe and the cache', () => {
  it("reports a missing WebGPU, a missing adapter and an adapter below web-llm's limits with the reason", async () => {
    expect((await probeGpu({})).report).toMatchObject({ available: false, reason: expect.stringContaining('navigator.gpu is undefined') });
    const noAdapter = { gpu: { requestAdapter: async () => null } as unknown as GPU };
    expect((await probeGpu(noAdapter)).report.reason).toContain('returned null');
    const adapter = {
      features: new Set(['shader-f16']),
      info: { vendor: 'acme', architecture: 'tiny', device: '', description: '' },
      limits: { maxStorageBuffersPerShaderStage: 8, maxComputeWorkgroupStorageSize: 32768, maxBufferSize: 1 << 30, maxStorageBufferBindingSize: 1 << 30 },
    };
    const small = await probeGpu({ gpu: { requestAdapter: async () => adapter } as unknown as GPU, deviceMemory: 8 });
    expect(small.report).toMatchObject({ available: false, shaderF16: true, features: ['shader-f16'], vendor: 'acme' });
    expect(small.report.reason).toContain('maxStorageBuffersPerShaderStage');
    expect(small.deviceMemoryGiB).toBe(8);
  });
  it('removes a model whose manifest never arrived part by part', async () => {
    const fake = new FakeCache();
    const parts: string[] = [];
    const cache = new ModelCache(
      {
        ...fake,
        hasModelInCache: fake.hasModelInCache.bind(fake),
        deleteModelAllInfoInCache: async () => {
          throw new Error('Failed to fetch tensor-cache.json');
        },
        deleteModelWasmInCache: async (id) => void parts.push(`wasm:${id}`),
        deleteChatConfigInCache: async (id) => void parts.push(`config:${id}`),
      },
      { model_list: [] },
    );
    await cache.remove('m');
    expect(parts.sort()).toEqual(['config:m', 'wasm:m']);
  });
});

describe('the look inside web-llm (introspect.ts)', () => {
  it('still finds, in web-llm 0.2.86 itself, the private members it reads', () => {
    // A real MLCEngine keeps its loaded pipelines in this Map.
    expect((new MLCEngine() as unknown as { loadedModelIdToPipeline: unknown }).loadedModelIdToPipeline).toBeInstanceOf(Map);
    // LLMChatPipeline is not exported; its source must still set and offer what introspect.ts uses.
    const source = readFileSync(fileURLToPath(new URL('../../../node_modules/@mlc-ai/web-llm/lib/index.js', import.meta.url)), 'utf8');
    expect(source).toContain('this.tokenizer = tokenizer;');
    expect(source).toContain('this.conversation = getConversation(config.conv_template, config.conv_config);');
    expect(source).toMatch(/\n {4}getConversationObject\(\) \{/);
    expect(source).toMatch(/\n {4}computeImageEmbedSize\(imageHeight, imageWidth\) \{/);
  });

  it('reads tokenizer, merged template and image size from a loaded pipeline, or gives up', () => {
    const pipeline = {
      tokenizer: { encode: (text: string) => new Int32Array(text.split(' ').length) },
      getConversationObject: () => ({ config: CHATML }),
      computeImageEmbedSize: (h: number, w: number) => h + w,
      config: { model_type: 'phi3_v', model_config: {} },
    };
    const engine = { loadedModelIdToPipeline: new Map([['m', pipeline]]) } as unknown as MLCEngineInterface;
    const view = inspectMLCEngine(engine, 'm')!;
    expect(view.countTokens('a b c')).toBe(3);
    expect(view.template).toBe(CHATML);
    expect(view.modelType).toBe('phi3_v');
    expect(view.imageTokens!({ height: 2, width: 3 })).toBe(5);
    expect(view.imageMarkerTokens).toBe(0);
    expect(inspectMLCEngine(engine, 'other')).toBeNull();
    expect(inspectMLCEngine({} as MLCEngineInterface, 'm')).toBeNull();
    const broken = { loadedModelIdToPipeline: new Map([['m', { ...pipeline, tokenizer: undefined }]]) } as unknown as MLCEngineInterface;
    expect(inspectMLCEngine(broken, 'm')).toBeNull();
  });
});

describe('StopMatcher', () => {
  /** The whole text cut before the earliest stop sequence, as OpenAI cuts it. */
  const cutAt = (text: string, stops: string[]) => {
    const hits = stops.map((stop) => text.indexOf(stop)).filter((at) => at >= 0);
    return hits.length === 0 ? { text, matched: false } : { text: text.slice(0, Math.min(...hits)), matched: true };
  };
  const feed = (pieces: string[], stops: string[]) => {
    const matcher = new StopMatcher(stops);
    let out = '';
    for (const piece of pieces) out += matcher.push(piece);
    out += matcher.end();
    return { text: out, matched: matcher.matched };
  };

  it('holds a possible start of a stop sequence until it is known, and cuts before a match split over pieces', () => {
    const matcher = new StopMatcher(['END', '\n\n']);
    expect(matcher.push('Hello E')).toBe('Hello ');
    expect(matcher.push('N')).toBe('');
    expect(matcher.push('x there\n')).toBe('ENx there');
    expect(matcher.matched).toBe(false);
    expect(matcher.push('\nmore')).toBe('');
    expect(matcher.matched).toBe(true);
    expect(matcher.push('after')).toBe('');
    expect(matcher.end()).toBe('');
  });

  it('releases everything at once without stop sequences, and the held tail at the end', () => {
    expect(new StopMatcher([]).push('abc')).toBe('abc');
    const matcher = new StopMatcher(['END']);
    expect(matcher.push('the EN')).toBe('the ');
    expect(matcher.end()).toBe('EN');
  });

  it('a match waits while a longer stop sequence that begins earlier may still complete (found by the property below)', () => {
    // 'b' matches inside the first piece, but 'Dbéa' begins before it and completes with the second piece.
    expect(feed(['Db', 'éa'], ['b', 'Dbéa', 'a'])).toEqual({ text: '', matched: true });
    // When the longer one does not complete, the earlier match still cuts, at the end of the stream at the latest.
    expect(feed(['Db', 'x'], ['b', 'Dbéa'])).toEqual({ text: 'D', matched: true });
    expect(feed(['Db'], ['b', 'Dbéa'])).toEqual({ text: 'D', matched: true });
  });

  it('for any text, pieces and stops: the released text is the text cut before the earliest stop sequence', () => {
    const alphabet = fc.constantFrom('a', 'b', 'E', 'N', 'D', '\n', ' ', 'é', '😀');
    const text = fc.array(alphabet, { maxLength: 40 }).map((cs) => cs.join(''));
    const stop = fc.array(alphabet, { minLength: 1, maxLength: 4 }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(text, fc.array(stop, { minLength: 1, maxLength: 4 }), fc.array(fc.nat(40), { maxLength: 8 }), (whole, stops, cuts) => {
        const points = [...new Set(cuts.map((c) => Math.min(c, whole.length)))].sort((a, b) => a - b);
        const pieces = [0, ...points, whole.length].slice(1).map((end, i, ends) => whole.slice(i === 0 ? 0 : ends[i - 1], end));
        const got = feed(pieces, stops);
        const want = cutAt(whole, stops);
        expect(got.text).toBe(want.text);
        expect(got.matched).toBe(want.matched);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('nativeStops: the stop sequences web-llm may apply to a Qwen3 answer itself', () => {
  it('keeps those no match of which can begin inside the empty thinking block; none when the model thinks', () => {
    const stops = ['END', '\n', '\nUser:', '>', 'think', 'k>\n', 'X\n', '</', 'Observation'];
    expect(nativeStops(stops, false)).toEqual(['END', 'X\n', 'Observation']);
    expect(nativeStops(stops, true)).toEqual([]);
  });

  it('property: a native stop never matches the block followed by any answer at a position inside the block', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 6, unit: fc.constantFrom('<', '>', '/', 't', 'h', 'i', 'n', 'k', '\n', 'a', ' ') }),
        fc.string({ maxLength: 8 }),
        (stop, answer) => {
          if (nativeStops([stop], false).length === 0) return;
          const at = ('<think>\n\n</think>\n\n' + answer).indexOf(stop);
          expect(at === -1 || at >= '<think>\n\n</think>\n\n'.length).toBe(true);
        },
      ),
    );
  });
});
