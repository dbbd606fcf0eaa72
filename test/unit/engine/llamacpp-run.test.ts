// The llama.cpp engine's parts that need no WebAssembly: the engine policy, the request translation, and the
// chunk stream → EngineEvents run (stop sequences on the answer, reasoning tokens, context check, abort).
import { jsonObjectGrammar, jsonSchemaGrammar, thinkingFirst } from '../../../worker/engine/common/json-grammar';
import { NUMBER_INTEGER_DIGITS } from '../../../worker/engine/common/number-grammar';
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '#shared/wire/engine-port';
import { ApiError } from '#shared/protocol/errors';
import type { ChatCompletionRequest } from '#shared/protocol/types';
import { VARIANTS } from '#shared/variants';
import { LlamaRun, type LlamaChunk } from '../../../worker/engine/llamacpp/run';
import { assertSchemasSupported, forcedCallSchema, translateRequest } from '../../../worker/engine/llamacpp/translate';
import { chooseEngine, importRoutes } from '../../../worker/engine/device-engine';
import { withPlan } from '../../../worker/engine/common/plan';

const gpu = { report: { available: true, features: [], shaderF16: false } };
const noGpu = { report: { available: false, reason: 'no adapter', features: [], shaderF16: false } };

describe('engine policy', () => {
  it('web-llm where WebGPU meets its needs, llama.cpp otherwise; the deployment can force either', () => {
    expect(chooseEngine('auto', gpu).kind).toBe('webllm');
    expect(chooseEngine('auto', noGpu)).toEqual({ kind: 'llamacpp', reason: 'llama.cpp on the CPU: no adapter' });
    expect(chooseEngine('llamacpp', gpu).kind).toBe('llamacpp');
    expect(chooseEngine('webllm', noGpu).kind).toBe('webllm');
  });
});

describe('translateRequest', () => {
  it('maps roles, limits, sampling, formats and the thinking switch', () => {
    const request = {
      model: 'svc-model-5.2-short-fast',
      variant: VARIANTS['svc-model-5.2-short-fast'],
      messages: [
        { role: 'developer', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        },
      ],
      max_completion_tokens: 7,
      max_tokens: 99,
      temperature: 0,
      stop: ['x'],
      logprobs: true,
      top_logprobs: 2,
      response_format: { type: 'json_schema', json_schema: { name: 'n', schema: { type: 'object' }, strict: true } },
    } as ChatCompletionRequest;
    const params = translateRequest(withPlan(request));
    expect(params.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'a\nb' },
    ]);
    expect(params).toMatchObject({ max_tokens: 7, temperature: 0, logprobs: true, top_logprobs: 2, chat_template_kwargs: { enable_thinking: false } });
    // The schema as inpage's grammar (json-grammar.ts), not llama.cpp's conversion of it.
    expect(params.grammar).toBe(jsonSchemaGrammar({ type: 'object' }, 'response_format.json_schema.schema'));
    expect(params).not.toHaveProperty('response_format');
    // Stop sequences are applied by inpage to the answer, never handed to llama.cpp.
    expect(params).not.toHaveProperty('stop');
    const thinking = { ...request, model: 'svc-model-5.2-short', variant: VARIANTS['svc-model-5.2-short'] } as ChatCompletionRequest;
    expect(translateRequest(withPlan(thinking)).chat_template_kwargs.enable_thinking).toBe(true);
    expect(translateRequest(withPlan({ ...thinking, reasoning_effort: 'none' })).chat_template_kwargs.enable_thinking).toBe(false);
  });

  it('JSON output and forced calls go to llama.cpp as inpage’s grammar (bounded numbers); a JSON format beside auto tools, or a schema keyword the grammar cannot hold, is refused naming it', () => {
    const base = { model: 'svc-model-5.2-short-fast', variant: VARIANTS['svc-model-5.2-short-fast'], messages: [{ role: 'user', content: 'x' }] };
    const weather = {
      type: 'function',
      function: { name: 'get_weather', parameters: { type: 'object', properties: { t: { type: 'number' } }, required: ['t'] } },
    };
    const object = translateRequest(withPlan({ ...base, response_format: { type: 'json_object' } } as ChatCompletionRequest));
    expect(object.grammar).toBe(jsonObjectGrammar());
    const forced = translateRequest(withPlan({ ...base, tools: [weather], tool_choice: 'required' } as ChatCompletionRequest));
    expect(forced).toMatchObject({ tool_choice: 'none', grammar: jsonSchemaGrammar(forcedCallSchema([weather]), 'tools') });
    expect(forced.grammar).toContain(`("0" | [1-9] [0-9]{0,${NUMBER_INTEGER_DIGITS - 1}})`);
    // A variant that thinks may think first: the grammar lets a thinking block come before the answer.
    const thinking = { ...base, model: 'svc-model-5.2-short', variant: VARIANTS['svc-model-5.2-short'] };
    expect(translateRequest(withPlan({ ...thinking, response_format: { type: 'json_object' } } as ChatCompletionRequest)).grammar).toBe(
      thinkingFirst(jsonObjectGrammar()),
    );
    expect(translateRequest(withPlan({ ...thinking, tools: [weather], tool_choice: 'required' } as ChatCompletionRequest)).grammar).toBe(
      thinkingFirst(jsonSchemaGrammar(forcedCallSchema([weather]), 'tools')),
    );
    // Under auto, llama.cpp builds the calls' grammar itself: no grammar of ours.
    expect(translateRequest(withPlan({ ...base, tools: [weather] } as ChatCompletionRequest))).not.toHaveProperty('grammar');
    const refused = (request: object) => {
      try {
        assertSchemasSupported(withPlan({ ...base, ...request } as ChatCompletionRequest));
        return null;
      } catch (err) {
        expect(err).toBeInstanceOf(ApiError);
        return { code: (err as ApiError).code, param: (err as ApiError).param };
      }
    };
    expect(refused({ tools: [weather], response_format: { type: 'json_object' } })).toEqual({ code: 'unsupported_parameter', param: 'response_format' });
    expect(
      refused({
        response_format: { type: 'json_schema', json_schema: { name: 'n', schema: { type: 'object', properties: { n: { type: 'integer', multipleOf: 2 } } } } },
      }),
    ).toEqual({ code: 'unsupported_parameter', param: 'response_format.json_schema.schema.properties.n.multipleOf' });
    const bad = { type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { n: { type: 'number', minimum: 0.5 } } } } };
    expect(refused({ tools: [weather, bad], tool_choice: 'required' })).toEqual({
      code: 'unsupported_parameter',
      param: 'tools[1].function.parameters.properties.n.minimum',
    });
    // A named choice holds only that tool's schema.
    expect(refused({ tools: [weather, bad], tool_choice: { type: 'function', function: { name: 'get_weather' } } })).toBeNull();
    expect(
      refused({ tools: [weather], response_format: { type: 'json_schema', json_schema: { name: 'n', schema: { type: 'object' } } }, tool_choice: 'required' }),
    ).toBeNull();
  });

  it('gives llama.cpp replayed arguments it can read as JSON, text with lone surrogates too (U+FFFD in their place)', () => {
    // llama.cpp parses each call's arguments as JSON and throws on a lone surrogate's escape ("\udfff").
    const wellFormed = (v: unknown): boolean =>
      typeof v === 'string'
        ? (v as string & { isWellFormed(): boolean }).isWellFormed()
        : typeof v !== 'object' || v === null || Object.entries(v).every(([k, x]) => wellFormed(k) && wellFormed(x));
    const cases: [string, unknown][] = [
      ['𩖶\udfff', '𩖶\ufffd'],
      ['a\ud83d', 'a\ufffd'],
      ['{"city": "Os\ud800', '{"city": "Os\ufffd'],
      ['"\\ud800"', '"\\ud800"'],
      ['{"city": "Os', '{"city": "Os'],
      ['{"city": "Oslo"}', { city: 'Oslo' }],
    ];
    for (const [args, read] of cases) {
      const request = {
        model: 'svc-model-5.2-short-fast',
        variant: VARIANTS['svc-model-5.2-short-fast'],
        messages: [
          { role: 'assistant', content: '', tool_calls: [{ id: '', type: 'function', function: { name: 'f', arguments: args } }] },
          { role: 'tool', tool_call_id: '', content: 'ok' },
        ],
      } as unknown as ChatCompletionRequest;
      // What wllama sends: the parameters as JSON text.
      const sent = JSON.parse(JSON.stringify(translateRequest(withPlan(request)))) as { messages: { tool_calls?: { function: { arguments: string } }[] }[] };
      const parsed: unknown = JSON.parse(sent.messages[0]!.tool_calls![0]!.function.arguments);
      expect(wellFormed(parsed), JSON.stringify(args)).toBe(true);
      expect(parsed).toEqual(read);
    }
  });
});

const chunk = (delta: LlamaChunk['choices'][number]['delta'], n: number, finish: string | null = null): LlamaChunk => ({
  choices: [{ delta, finish_reason: finish }],
  timings: { predicted_n: n },
});

function rig(chunks: LlamaChunk[], options: { stops?: string[]; maxTokens?: number; context?: number } = {}) {
  const controller = new AbortController();
  let interrupted = false;
  let settled = 0;
  async function* source() {
    for (const c of chunks) {
      if (interrupted) {
        const e = new Error('Operation aborted');
        e.name = 'AbortError';
        throw e;
      }
      yield c;
    }
  }
  const run = new LlamaRun(source(), {
    stops: options.stops ?? [],
    maxTokens: options.maxTokens,
    context: options.context ?? 4096,
    signal: controller.signal,
    interrupt: () => (interrupted = true),
    settled: () => settled++,
  });
  return { run, controller, interrupted: () => interrupted, settled: () => settled };
}

async function collect(run: LlamaRun): Promise<EngineEvent[]> {
  const out: EngineEvent[] = [];
  for await (const e of run.events()) out.push(e);
  return out;
}

const progress: LlamaChunk = { choices: [{ delta: { content: null }, finish_reason: null }], prompt_progress: { total: 9, cache: 0, processed: 0 } };
const usage = (completion: number): LlamaChunk => ({ choices: [], usage: { prompt_tokens: 9, completion_tokens: completion } });
/** llama.cpp's timings as its server writes them. */
const timings = {
  prompt_n: 9,
  prompt_ms: 180.5,
  prompt_per_token_ms: 20.05,
  prompt_per_second: 49.86,
  predicted_n: 6,
  predicted_ms: 240,
  predicted_per_token_ms: 40,
  predicted_per_second: 25,
};

describe('LlamaRun', () => {
  it("splits thinking, counts its tokens, drops the empty block's newlines, and reports llama.cpp's usage", async () => {
    const r = rig([
      progress,
      chunk({ reasoning_content: ' Let' }, 2),
      chunk({ reasoning_content: ' me' }, 3),
      // </think> produced no text: the next content token is number 5.
      chunk({ content: '\n\nHi' }, 5),
      chunk({ content: ' there' }, 6, 'length'),
      // llama.cpp's last timings: a rate over no time comes as null (its JSON of infinity) and is left out.
      { choices: [], usage: { prompt_tokens: 9, completion_tokens: 6 }, timings: { ...timings, prompt_per_second: null, cache_n: 0 } },
    ]);
    await r.run.start();
    const events = await collect(r.run);
    const { prompt_per_second: _, ...finite } = timings;
    expect(events).toEqual([
      { type: 'delta', reasoning: 'Let' },
      { type: 'delta', reasoning: ' me' },
      { type: 'delta', content: 'Hi' },
      { type: 'delta', content: ' there' },
      {
        type: 'finish',
        finish_reason: 'length',
        usage: {
          prompt_tokens: 9,
          completion_tokens: 6,
          total_tokens: 15,
          prompt_tokens_details: { cached_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 4 },
        },
        timings: finite,
      },
    ]);
    expect(r.settled()).toBe(1);
  });

  it("cuts the answer before a stop sequence (held across chunks), ends llama.cpp's request, counts what was generated", async () => {
    const r = rig(
      [
        progress,
        chunk({ reasoning_content: 'ab' }, 1),
        chunk({ content: 'one tw' }, 2),
        chunk({ content: 'o three' }, 3),
        chunk({ content: ' four' }, 4),
        usage(4),
      ],
      {
        stops: ['two', 'ab'],
      },
    );
    await r.run.start();
    const events = await collect(r.run);
    expect(events).toEqual([
      { type: 'delta', reasoning: 'ab' },
      { type: 'delta', content: 'one ' },
      {
        type: 'finish',
        finish_reason: 'stop',
        usage: {
          prompt_tokens: 9,
          completion_tokens: 3,
          total_tokens: 12,
          prompt_tokens_details: { cached_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 1 },
        },
        // The timings of the last chunk llama.cpp sent before it stopped.
        timings: { predicted_n: 3 },
      },
    ]);
    expect(r.interrupted()).toBe(true);
    expect(r.settled()).toBe(1);
  });

  it('refuses prompt plus max_tokens over the context before anything is sent, and frees the model', async () => {
    const r = rig([progress, chunk({ content: 'x' }, 1)], { maxTokens: 4090, context: 4096 });
    const error = await r.run.start().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'context_length_exceeded', status: 400, param: 'messages' });
    expect((error as ApiError).message).toContain('4099 tokens (9 in the messages, 4090 in the completion)');
    expect(r.interrupted()).toBe(true);
    expect(r.settled()).toBe(1);
  });

  it('an abort ends the events at once, without a finish, and frees the model', async () => {
    const r = rig([progress, chunk({ content: 'a' }, 1), chunk({ content: 'b' }, 2), chunk({ content: 'c' }, 3)]);
    await r.run.start();
    const seen: EngineEvent[] = [];
    for await (const e of r.run.events()) {
      seen.push(e);
      r.controller.abort();
    }
    expect(seen).toEqual([{ type: 'delta', content: 'a' }]);
    expect(r.interrupted()).toBe(true);
    expect(r.settled()).toBe(1);
  });

  it("an aborted run says what it cost once llama.cpp has stopped: the prompt's tokens and its running count of generated tokens", async () => {
    const r = rig([progress, chunk({ content: 'a' }, 1), chunk({ content: 'b' }, 2), chunk({ content: 'c' }, 3), chunk({ content: 'd' }, 4)]);
    await r.run.start();
    let delivered = 0;
    for await (const e of r.run.events()) {
      if (e.type === 'delta') delivered++;
      r.controller.abort();
    }
    expect(delivered).toBe(1);
    // This stand-in stops at once: llama.cpp had generated 1 token (predicted_n) when the abort reached it.
    expect(await r.run.spent()).toMatchObject({ prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 });
    expect(r.settled()).toBe(1);
  });

  it("a run that ended with llama.cpp's usage reports that", async () => {
    const r = rig([progress, chunk({ content: 'a' }, 1), usage(1)]);
    await r.run.start();
    await collect(r.run);
    expect(await r.run.spent()).toMatchObject({ prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 });
  });

  it("llama.cpp's own context error becomes 400 context_length_exceeded", async () => {
    const controller = new AbortController();
    // eslint-disable-next-line require-yield -- a stream that fails before its first chunk
    async function* failing(): AsyncGenerator<LlamaChunk> {
      throw new Error('request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it');
    }
    const run = new LlamaRun(failing(), {
      stops: [],
      maxTokens: undefined,
      context: 4096,
      signal: controller.signal,
      interrupt: () => undefined,
      settled: () => undefined,
    });
    await expect(run.start()).rejects.toMatchObject({ code: 'context_length_exceeded', status: 400 });
  });

  it("a native exception before llama.cpp's first chunk is the request's (400, in llama.cpp's words), unless memory ran out; after it, a 500", async () => {
    const typedArray = new RangeError('Invalid typed array length: 1163217991');
    const failRun = (before: LlamaChunk[], native: string | null, logprobs = false) => {
      const topLogprobs = logprobs ? 0 : null;
      async function* failing(): AsyncGenerator<LlamaChunk> {
        yield* before;
        throw typedArray;
      }
      const options = {
        stops: [],
        maxTokens: undefined,
        context: 4096,
        signal: new AbortController().signal,
        interrupt: () => undefined,
        settled: () => undefined,
      };
      return new LlamaRun(failing(), { ...options, topLogprobs, nativeError: () => native });
    };
    const parse =
      '[json.exception.parse_error.101] parse error at line 1, column 4: syntax error while parsing value - invalid string: surrogate U+DC00..U+DFFF must follow U+D800..U+DBFF';
    const refused = await failRun([], parse)
      .start()
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 400, code: 'invalid_value', type: 'invalid_request_error', param: 'messages' });
    expect((refused as ApiError).message).toContain(parse);
    // Out of memory, no native text, or after the first chunk: the service's failure, with what is known.
    await expect(failRun([], 'std::bad_alloc').start()).rejects.toMatchObject({
      status: 500,
      code: 'internal_error',
      message: expect.stringContaining('std::bad_alloc'),
    });
    await expect(failRun([], null).start()).rejects.toMatchObject({
      status: 500,
      code: 'internal_error',
      message: expect.stringContaining('often out of memory'),
    });
    const late = failRun([progress, chunk({ content: 'a' }, 1)], parse);
    await late.start();
    await expect(
      (async () => {
        for await (const _ of late.events()) void _;
      })(),
    ).rejects.toMatchObject({ status: 500, code: 'internal_error', message: expect.stringContaining(parse) });
    // With logprobs, after the first chunk: the likely cause in plain words first, then llama.cpp's own.
    const utf8 = '[json.exception.type_error.316] invalid UTF-8 byte at index 0: 0x80';
    const logprobs = failRun([progress, chunk({ content: 'a' }, 1)], utf8, true);
    await logprobs.start();
    const said = await (async () => {
      for await (const _ of logprobs.events()) void _;
    })().then(
      () => null,
      (e: unknown) => e as ApiError,
    );
    expect(said).toMatchObject({ status: 500, code: 'internal_error' });
    expect(said!.message).toContain('not valid UTF-8 on its own');
    expect(said!.message).toContain(`llama.cpp said: ${utf8}`);
  });
});

describe('importRoutes: which engine takes which imported files', () => {
  const file = (path: string) => ({ path, file: new Blob(['x']) });
  const gguf = file('models/Qwen3-1.7B-Q4_K_M.gguf');
  const config = file('models/Qwen3-1.7B-q4f16_1-MLC/mlc-chat-config.json');
  const paths = (r: ReturnType<typeof importRoutes>) => r.routes.map(([kind, files]) => [kind, files.map((f) => f.path)]);

  it('sends .gguf files to llama.cpp and the rest to web-llm when both run', () => {
    const r = importRoutes([gguf, config], ['webllm', 'llamacpp']);
    expect(paths(r)).toEqual([
      ['llamacpp', [gguf.path]],
      ['webllm', [config.path]],
    ]);
    expect(r.problems).toEqual([]);
  });

  it('refuses .gguf files by name where only web-llm runs, and still imports web-llm folders', () => {
    const r = importRoutes([gguf, config], ['webllm']);
    expect(paths(r)).toEqual([['webllm', [config.path]]]);
    expect(r.problems).toEqual([expect.stringContaining('Not imported: Qwen3-1.7B-Q4_K_M.gguf. GGUF files are for the llama.cpp engine')]);
    const only = importRoutes([gguf], ['webllm']);
    expect(only.routes).toEqual([]);
    expect(only.problems).toHaveLength(1);
  });

  it('where only llama.cpp runs, it takes the .gguf files, or everything when there are none (it names what it expected)', () => {
    expect(paths(importRoutes([gguf, config], ['llamacpp']))).toEqual([['llamacpp', [gguf.path]]]);
    expect(paths(importRoutes([config], ['llamacpp']))).toEqual([['llamacpp', [config.path]]]);
  });
});
