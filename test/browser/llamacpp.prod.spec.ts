// Real inference in CI: the production build's engine worker runs llama.cpp (@wllama/wllama) on the CPU with
// a tiny GGUF model synthesized here at test time (scripts/gguf/synthesize.ts), served with the app by a
// static "deployment" whose /inpage.config.json points the GGUF source at it. Everything goes through /v1.
// The synthesized model is deterministic at temperature 0: a thinking request answers
// "<think> Let me think.</think>" and then free ASCII text (see the synthesizer's header).
import { expect, test } from '@playwright/test';
import Ajv from 'ajv';
import { synthesizeGguf } from '../../scripts/gguf/synthesize';
import { GGUF_DEFAULTS } from '../../worker/engine/llamacpp/models';
import { WASM_VARIANT_WHY } from '../../worker/engine/llamacpp/wasm-detect';
import { TIMING_FIELDS } from '#shared/protocol/timings';
import { call, chat, sseEvents } from './helpers';
import { llamaCppDeployment, ggufPath } from './llamacpp-deployment';

interface Completion {
  choices: {
    message: { content: string | null; reasoning_content?: string; tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[] };
    finish_reason: string;
    logprobs: { content: { token: string; top_logprobs: unknown[] }[] } | null;
  }[];
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    prompt_tokens_details: { cached_tokens: number };
    completion_tokens_details: { reasoning_tokens: number };
  };
  system_fingerprint: string;
  timings?: Record<(typeof TIMING_FIELDS)[number], number>;
}
interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

const pathOf = ggufPath;

// One deployment server for both tests (they share its port): run them in one worker, in order.
test.describe.configure({ mode: 'serial' });

const model = synthesizeGguf({ seed: 7 });
const SHORT_MODEL = `/gguf/${pathOf('qwen3-1.7b')}`;
const deployment = llamaCppDeployment({
  port: 4595,
  prefix: 'gguf',
  // The default (every core), which /v1/models then reports; the other llama.cpp specs run on one thread.
  llamaThreads: 0,
  files: async (put) => {
    await put(pathOf('qwen3-1.7b'), model.bytes);
    // svc-vision's files exist but are cut short: the load must fail clearly.
    const vision = GGUF_DEFAULTS['phi-3.5-vision']!;
    await put(pathOf('phi-3.5-vision'), model.bytes.slice(0, 4096));
    await put(pathOf('phi-3.5-vision', vision.mmproj), model.bytes.slice(0, 4096));
  },
});
const openDeployment = () => deployment.open();

const ask = (content: string, extra: Record<string, unknown> = {}) => ({
  model: 'svc-model-5.2-short',
  messages: [{ role: 'user', content }],
  temperature: 0,
  ...extra,
});

test('llama.cpp on the CPU through /v1: chosen without WebGPU, exact usage, thinking split, SSE, stop, max tokens, JSON output, logprobs, abort', async () => {
  test.setTimeout(180_000);
  const { page, key } = await openDeployment();

  // No WebGPU adapter here: the engine chose llama.cpp and says why.
  const adapter = await page.evaluate(async () => (await window.inpageReady)!.engine!.control.adapter());
  expect(adapter.available).toBe(false);

  // A thinking variant: "<think> Let me think.</think>" comes back as reasoning, the rest as the answer.
  // Prompt tokens by the model's own tokenizer: <|im_start|> user \n Hello <|im_end|> \n <|im_start|> assistant \n.
  const thinking = await chat(page, key, ask('Hello', { max_tokens: 12 }));
  expect(thinking.status).toBe(200);
  const t = thinking.json as Completion;
  expect(t.choices[0]!.message.reasoning_content).toBe('Let me think.');
  expect(t.choices[0]!.message.content).toMatch(/^[\x20-\x7e]+$/);
  expect(t.choices[0]!.message.content).not.toContain('think>');
  expect(t.choices[0]!.finish_reason).toBe('length');
  // <think> Let me think . </think> are 6 tokens of thinking, then 6 of answer.
  expect(t.usage).toEqual({
    prompt_tokens: 9,
    completion_tokens: 12,
    total_tokens: 21,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 6 },
  });
  expect(t.system_fingerprint).toContain('llamacpp');
  // llama.cpp's own timings, as its server sends them: it evaluated all 9 prompt tokens and generated 12.
  expect(t.timings).toMatchObject({ prompt_n: 9, predicted_n: 12 });
  expect(Object.keys(t.timings!)).toEqual([...TIMING_FIELDS]);
  expect(t.timings!.prompt_ms).toBeGreaterThan(0);
  expect(t.timings!.predicted_ms).toBeGreaterThan(0);
  // llama.cpp's own rates, passed on as it computed them (per token and per second agree).
  expect(t.timings!.predicted_per_second * t.timings!.predicted_per_token_ms).toBeCloseTo(1000, 3);
  expect(t.timings!.prompt_per_second * t.timings!.prompt_per_token_ms).toBeCloseTo(1000, 3);

  // The same as a stream: the same text (temperature 0), the same usage, OpenAI's framing.
  const streamed = await chat(page, key, ask('Hello', { max_tokens: 12, stream: true, stream_options: { include_usage: true } }));
  expect(streamed.status).toBe(200);
  expect(streamed.headers['content-type']).toContain('text/event-stream');
  const events = sseEvents(streamed.text);
  expect(events.at(-1)).toBe('[DONE]');
  const chunks = events.slice(0, -1).map(
    (e) =>
      JSON.parse(e) as {
        choices: { delta: { content?: string; reasoning_content?: string }; finish_reason: string | null }[];
        usage?: Completion['usage'];
        timings?: Record<string, number>;
      },
  );
  const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
  const reasoning = chunks.map((c) => c.choices[0]?.delta.reasoning_content ?? '').join('');
  expect(text).toBe(t.choices[0]!.message.content);
  expect(reasoning).toBe('Let me think.');
  expect(chunks.find((c) => c.choices[0]?.finish_reason)!.choices[0]!.finish_reason).toBe('length');
  // llama.cpp kept the same prompt in its KV cache: all but the last token are reused (it evaluates at least one).
  expect(chunks.at(-1)!.usage).toEqual({ ...t.usage, prompt_tokens_details: { cached_tokens: 8 } });
  // The timings ride on the finish chunk alone: llama.cpp evaluated the one prompt token it did not reuse.
  expect(chunks.filter((c) => c.timings)).toEqual([chunks.find((c) => c.choices[0]?.finish_reason)]);
  expect(chunks.find((c) => c.timings)!.timings).toMatchObject({ prompt_n: 1, predicted_n: 12 });

  // A variant that never thinks: no reasoning, no leading newlines of the empty thinking block; the prompt
  // carries that block (<think> \n\n </think> \n\n: 4 more tokens).
  const fast = (await chat(page, key, ask('Hello', { model: 'svc-model-5.2-short-fast', max_tokens: 16, logprobs: true, top_logprobs: 2 }))).json as Completion;
  const answer = fast.choices[0]!.message.content ?? '';
  expect(fast.choices[0]!.message.reasoning_content).toBeUndefined();
  expect(answer).toMatch(/^[\x20-\x7e]+$/);
  expect(fast.usage).toMatchObject({ prompt_tokens: 13, completion_tokens: 16, total_tokens: 29, completion_tokens_details: { reasoning_tokens: 0 } });
  // Logprobs: one entry per answer token, and they spell the answer.
  const logprobs = fast.choices[0]!.logprobs!.content;
  expect(logprobs.length).toBe(16);
  expect(logprobs.map((l) => l.token).join('')).toBe(answer);
  expect(logprobs.map((l) => l.top_logprobs.length)).toEqual(Array(16).fill(2));
  // logprobs alone: the chosen tokens with no alternatives, as OpenAI answers (llama.cpp itself would give 20).
  const bare = (await chat(page, key, ask('Hello', { model: 'svc-model-5.2-short-fast', max_tokens: 16, logprobs: true }))).json as Completion;
  expect(bare.choices[0]!.logprobs!.content.map((l) => l.token).join('')).toBe(answer);
  expect(bare.choices[0]!.logprobs!.content.map((l) => l.top_logprobs.length)).toEqual(Array(16).fill(0));

  // Stop: cut before the first match, finish "stop"; the thinking is not matched against.
  const stop = answer.slice(5, 8);
  const stopped = (await chat(page, key, ask('Hello', { model: 'svc-model-5.2-short-fast', max_tokens: 16, stop: [stop] }))).json as Completion;
  expect(stopped.choices[0]!.message.content).toBe(answer.slice(0, answer.indexOf(stop)));
  expect(stopped.choices[0]!.finish_reason).toBe('stop');
  const thinkStop = (await chat(page, key, ask('Hello', { max_tokens: 12, stop: ['think'] }))).json as Completion;
  expect(thinkStop.choices[0]!.message.reasoning_content).toBe('Let me think.');

  // Max tokens.
  const short = (await chat(page, key, ask('Hello', { model: 'svc-model-5.2-short-fast', max_completion_tokens: 3 }))).json as Completion;
  expect(short.usage.completion_tokens).toBe(3);
  expect(short.choices[0]!.finish_reason).toBe('length');

  // json_schema: llama.cpp's grammar keeps the output valid against the schema.
  const schema = {
    type: 'object',
    properties: { city: { type: 'string', enum: ['Paris', 'Tokyo'] }, count: { type: 'integer' }, ok: { type: 'boolean' } },
    required: ['city', 'count', 'ok'],
    additionalProperties: false,
  };
  const structured = await chat(
    page,
    key,
    ask('Give me JSON', {
      model: 'svc-model-5.2-short-fast',
      max_tokens: 200,
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema, strict: true } },
    }),
  );
  const value = JSON.parse((structured.json as Completion).choices[0]!.message.content ?? '') as unknown;
  const validate = new Ajv().compile(schema);
  expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
  const object = await chat(page, key, ask('Give me JSON', { model: 'svc-model-5.2-short-fast', max_tokens: 200, response_format: { type: 'json_object' } }));
  // Free-form JSON from random weights may run out of tokens inside a string; what there is is JSON's start.
  const objectChoice = (object.json as Completion).choices[0]!;
  expect(objectChoice.message.content).toMatch(/^\s*\{/);
  if (objectChoice.finish_reason === 'stop') expect(typeof JSON.parse(objectChoice.message.content ?? '')).toBe('object');

  // Prompt plus requested output over the loaded context: 400 before anything is generated.
  const over = await chat(page, key, ask('Hello', { max_tokens: 4090 }));
  expect(over.status).toBe(400);
  expect((over.json as ErrorBody).error).toMatchObject({ code: 'context_length_exceeded', param: 'messages' });
  expect((over.json as ErrorBody).error.message).toContain('4096');

  // Abort in flight, and abort while queued behind it; the next request is answered in full.
  const abortedRun = await page.evaluate(async (key) => {
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const body = (max: number) =>
      JSON.stringify({ model: 'svc-model-5.2-short-fast', messages: [{ role: 'user', content: 'Hello' }], max_tokens: max, stream: true, temperature: 0 });
    const first = new AbortController();
    const queued = new AbortController();
    const running = await fetch('/v1/chat/completions', { method: 'POST', headers, body: body(2000), signal: first.signal });
    const waiting = fetch('/v1/chat/completions', { method: 'POST', headers, body: body(2000), signal: queued.signal }).catch((e: Error) => e.name);
    const reader = running.body!.getReader();
    let seen = '';
    while (!seen.includes('"content":"') || seen.split('data: ').length < 4) seen += new TextDecoder().decode((await reader.read()).value);
    queued.abort();
    first.abort();
    const queuedOutcome = await waiting;
    const began = performance.now();
    const next = await fetch('/v1/chat/completions', {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: 'svc-model-5.2-short-fast', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 5, temperature: 0 }),
    });
    return {
      queuedOutcome: typeof queuedOutcome === 'string' ? queuedOutcome : 'answered',
      status: next.status,
      json: (await next.json()) as Completion,
      ms: performance.now() - began,
    };
  }, key);
  expect(abortedRun.queuedOutcome).toBe('AbortError');
  expect(abortedRun.status).toBe(200);
  expect(abortedRun.json.usage.completion_tokens).toBe(5);
  const afterAbort = abortedRun.json.choices[0]!.message.content ?? '';
  expect(afterAbort.length).toBeGreaterThan(0);
  expect(answer.startsWith(afterAbort)).toBe(true);

  // /v1/models: the loaded model is ready with llama.cpp's context, and says where it runs (every core: this server
  // sends no isolation headers, so the first visit reloaded once under the service worker, which sends them).
  expect(await page.evaluate(() => self.crossOriginIsolated)).toBe(true);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  const models = (await call(page, '/v1/models', { headers: { authorization: `Bearer ${key}` } })).json as {
    data: { id: string; state: string; context_length: number }[];
  };
  const shortModel = models.data.find((m) => m.id === 'svc-model-5.2-short')!;
  // Chromium has Memory64 and JSPI: wllama's main build, its relaxed-SIMD kernels; OPFS keeps the files.
  expect(shortModel).toMatchObject({
    state: 'ready',
    context_length: 4096,
    engine: {
      name: 'llamacpp',
      device: 'cpu',
      threads: cores,
      threads_why: `Every logical core (${cores}); the page is cross-origin isolated.`,
      build: 'main',
      build_why: "wllama's main build (Memory64, JSPI).",
      wasm: 'relaxed',
      wasm_why: WASM_VARIANT_WHY.relaxed,
      storage: { store: 'opfs' },
    },
  });
  // Qwen3-8B's GGUF does not fit this device's memory budget: unavailable before anyone asks for it, saying why.
  expect(models.data.find((m) => m.id === 'svc-model-5.2')).toMatchObject({
    state: 'unavailable',
    why: expect.stringMatching(/do not fit the memory this device can give a model/),
    engine: { name: 'llamacpp', device: 'cpu' },
  });
  await page.context().close();
});

test('llama.cpp: a second load reads the cached GGUF (no model bytes fetched); too large and broken models fail clearly', async () => {
  test.setTimeout(120_000);
  const { page, key } = await openDeployment();
  // A fresh browser context has an empty cache: the first load downloads the file once.
  const start = deployment.server.gets.length;
  const first = await chat(page, key, ask('Hi', { max_tokens: 4 }));
  expect(first.status).toBe(200);
  expect(deployment.server.gets.slice(start).filter((p) => p === SHORT_MODEL)).toHaveLength(1);

  // A new engine worker (the page reloaded) loads the model from wllama's cache: no GET of the file.
  const before = deployment.server.gets.length;
  await page.reload();
  await page.evaluate(async () => {
    await window.inpageReady;
  });
  const models = (await call(page, '/v1/models', { headers: { authorization: `Bearer ${key}` } })).json as { data: { id: string; state: string }[] };
  expect(models.data.find((m) => m.id === 'svc-model-5.2-short')!.state).toBe('cached');
  const again = await chat(page, key, ask('Hi', { max_tokens: 4 }));
  expect(again.status).toBe(200);
  expect((again.json as Completion).choices[0]!.message.reasoning_content).toBe('Let me think');
  expect(deployment.server.gets.slice(before).filter((p) => p.startsWith('/gguf/'))).toEqual([]);

  // Qwen3-8B's 4.68 GiB (5.03 GB) of Q4_K_M weights do not fit a CPU device's budget: 503 with the figures.
  const big = await chat(page, key, ask('Hi', { model: 'svc-model-5.2' }));
  expect(big.status).toBe(503);
  const bigError = (big.json as ErrorBody).error;
  expect(bigError).toMatchObject({ type: 'server_error', code: 'model_too_large_for_device', param: null });
  expect(bigError.message).toMatch(/4\.68 GiB/);

  // A GGUF cut short: llama.cpp cannot load it (wllama resolves anyway); a clear 503 naming the file.
  const broken = await chat(page, key, ask('Hi', { model: 'svc-vision' }));
  expect(broken.status).toBe(503);
  const brokenError = (broken.json as ErrorBody).error;
  expect(brokenError.code).toBe('model_load_failed');
  expect(brokenError.message).toContain(pathOf('phi-3.5-vision'));
  // …and the model that works still answers.
  expect((await chat(page, key, ask('Hi', { max_tokens: 2 }))).status).toBe(200);

  // A tool call, made deterministic the way llama.cpp allows: its grammar for the tool (an enum argument),
  // logit_bias bringing up <tool_call> and </tool_call> (one token each in this template; the grammar lets free
  // text come first even under "required"), temperature 0; the model ends its turn after </tool_call>.
  const tools = [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'The weather in a city.',
        parameters: { type: 'object', properties: { city: { type: 'string', enum: ['Paris', 'Tokyo'] } }, required: ['city'], additionalProperties: false },
      },
    },
  ];
  const toolBody = ask('Weather in Paris?', {
    model: 'svc-model-5.2-short-fast',
    max_tokens: 60,
    tools,
    tool_choice: 'required',
    parallel_tool_calls: false,
    logit_bias: { [model.tokenId('<tool_call>')]: 100, [model.tokenId('</tool_call>')]: 100 },
  });
  const called = (await chat(page, key, toolBody)).json as Completion;
  const choice = called.choices[0]!;
  expect(choice.finish_reason).toBe('tool_calls');
  expect(choice.message.tool_calls).toHaveLength(1);
  const toolCall = choice.message.tool_calls![0]!;
  expect(toolCall).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
  expect(toolCall.id).toMatch(/^call_[A-Za-z0-9]{24}$/);
  expect(['Paris', 'Tokyo']).toContain((JSON.parse(toolCall.function.arguments) as { city: string }).city);
  // Streamed: the call opens with its id and name at index 0, its argument fragments add up to the same JSON.
  const toolStream = sseEvents((await chat(page, key, { ...toolBody, stream: true })).text)
    .slice(0, -1)
    .map(
      (e) =>
        JSON.parse(e) as {
          choices: {
            delta: { tool_calls?: { index: number; id?: string; function: { name?: string; arguments?: string } }[] };
            finish_reason: string | null;
          }[];
        },
    );
  const deltas = toolStream.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
  expect(deltas[0]).toMatchObject({ index: 0, function: { name: 'get_weather' } });
  expect(deltas.every((d) => d.index === 0)).toBe(true);
  expect(JSON.parse(deltas.map((d) => d.function.arguments ?? '').join(''))).toEqual(JSON.parse(toolCall.function.arguments));
  expect(toolStream.find((c) => c.choices[0]?.finish_reason)!.choices[0]!.finish_reason).toBe('tool_calls');
  // The tool's result goes back, and the model answers from it.
  const followUp = await chat(page, key, {
    model: 'svc-model-5.2-short-fast',
    temperature: 0,
    max_tokens: 8,
    tools,
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: null, tool_calls: [toolCall] },
      { role: 'tool', tool_call_id: toolCall.id, content: '{"sky":"clear"}' },
    ],
  });
  expect(followUp.status).toBe(200);
  expect((followUp.json as Completion).usage.prompt_tokens).toBeGreaterThan(called.usage.prompt_tokens);
  await page.context().close();
});
