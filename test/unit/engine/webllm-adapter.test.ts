// The web-llm adapter against FakeEngine (typed as web-llm's MLCEngineInterface): what reaches web-llm, what
// comes back out, loading, switching, queueing, aborts and failures.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CATALOG } from '#shared/model-config';
import { DEFAULT_CONFIG } from '#shared/config';
import type { EngineEvent } from '#shared/wire/engine-port';
import { ApiError } from '#shared/protocol/errors';
import type { ChatCompletionRequest } from '#shared/protocol/types';
import { resolved, scheduled, type RequestBody } from '../fakes/requests';
import { Scheduler, type RequestSink } from '../../../worker/engine/scheduler';
import { WebLlmEngine } from '../../../worker/engine/webllm/adapter';
import { SMALLEST_TOP_P } from '../../../worker/engine/webllm/translate';
import { contextLength } from '../../../worker/engine/webllm/context-size';
import { jsonObjectGrammar, jsonSchemaGrammar } from '../../../worker/engine/common/json-grammar';
import { kvShape, prebuiltRecord } from '../../../worker/engine/webllm/models';
import { VARIANTS } from '#shared/variants';
import { parseEmbeddingRequest, type EmbeddingRequest } from '#shared/protocol/embeddings';
import { NamedError, fakeTokens, rig, swiftShaderProbe, type Rig } from '../fakes/webllm-fake';
import type { PlannedRequest } from '../../../worker/engine/common/plan';

type Delta = Extract<EngineEvent, { type: 'delta' }>;
type Finish = Extract<EngineEvent, { type: 'finish' }>;

function setup(options: Parameters<typeof rig>[0] = {}, config: Partial<typeof DEFAULT_CONFIG> = {}): Rig & { adapter: WebLlmEngine } {
  const r = rig(options);
  return { ...r, adapter: new WebLlmEngine({ ...DEFAULT_CONFIG, ...config }, r.deps) };
}

const ask = (model: RequestBody['model'], extra: Partial<RequestBody> = {}): PlannedRequest =>
  resolved({
    model,
    messages: [{ role: 'user', content: 'hi there' }],
    ...extra,
  });

async function run(adapter: WebLlmEngine, request: PlannedRequest, signal = new AbortController().signal) {
  const generation = await adapter.generate(request, signal);
  const events: EngineEvent[] = [];
  for await (const event of generation.events) events.push(event);
  const deltas = events.filter((e): e is Delta => e.type === 'delta');
  return {
    fingerprint: generation.fingerprint,
    events,
    content: deltas.map((d) => d.content ?? '').join(''),
    reasoning: deltas.map((d) => d.reasoning ?? '').join(''),
    finish: events.at(-1) as Finish,
  };
}

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected a rejection');
}

describe('field mapping: what reaches web-llm', () => {
  it('translates developer, max_completion_tokens, json_schema and top_p 0; passes the sampling fields on; always streams with usage', async () => {
    const t = setup();
    await run(
      t.adapter,
      ask('svc-model-5.2-fast', {
        messages: [
          { role: 'system', content: 'Be brief.' },
          {
            role: 'developer',
            content: [
              { type: 'text', text: 'Answer in' },
              { type: 'text', text: 'French.' },
            ],
          },
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'salut' },
          { role: 'user', content: [{ type: 'text', text: 'and now?' }] },
        ],
        max_completion_tokens: 7,
        max_tokens: 99,
        temperature: 0.3,
        top_p: 0,
        seed: 42,
        presence_penalty: 0.5,
        frequency_penalty: -0.5,
        stop: ['END'],
        n: 1,
        logprobs: true,
        top_logprobs: 2,
        response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object', properties: { a: { type: 'number' } } } } },
        stream: false,
        user: 'someone',
      }),
    );
    const sent = t.engine().requests[0]!;
    expect(sent.messages).toEqual([
      { role: 'system', content: 'Be brief.\n\nAnswer in\nFrench.' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'salut' },
      { role: 'user', content: 'and now?' },
    ]);
    expect(sent).toMatchObject({
      model: 'Qwen3-8B-q4f32_1-MLC',
      stream: true,
      stream_options: { include_usage: true },
      // 7 asked for, plus the 4 tokens of the empty thinking block web-llm counts against it.
      max_tokens: 11,
      temperature: 0.3,
      top_p: SMALLEST_TOP_P,
      seed: 42,
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      logprobs: true,
      top_logprobs: 2,
      response_format: {
        type: 'grammar',
        grammar: jsonSchemaGrammar({ type: 'object', properties: { a: { type: 'number' } } }, 'response_format.json_schema.schema'),
      },
      extra_body: { enable_thinking: false },
    });
    // With thinking off, a stop that cannot match inside the empty thinking block goes to web-llm as well
    // (its reply then ends "stop" and keeps the KV cache); the adapter still holds text that may begin one.
    expect(sent.stop).toEqual(['END']);
    // n is 1 or refused (request-support.ts): web-llm's own default, not sent.
    expect(sent).not.toHaveProperty('n');
  });

  it('passes stop to web-llm for Phi-3.5-vision, which writes no thinking block', async () => {
    const t = setup();
    await run(t.adapter, ask('svc-vision', { stop: ['\n', 'END'] }));
    expect(t.engine().requests[0]!.stop).toEqual(['\n', 'END']);
  });

  it('maps reasoning_effort to Qwen3 thinking and leaves Phi-3.5-vision without the switch', async () => {
    const t = setup();
    await run(t.adapter, ask('svc-model-5.2'));
    await run(t.adapter, ask('svc-model-5.2', { reasoning_effort: 'low' }));
    await run(t.adapter, ask('svc-model-5.2', { reasoning_effort: 'none' }));
    await run(t.adapter, ask('svc-model-5.2-fast', { reasoning_effort: 'none' }));
    await run(t.adapter, ask('svc-vision', { response_format: { type: 'json_object' } }));
    const bodies = t.engine().requests.map((r) => r.extra_body);
    expect(bodies).toEqual([{ enable_thinking: true }, { enable_thinking: true }, { enable_thinking: false }, { enable_thinking: false }, undefined]);
    expect(t.engine().requests[4]!.response_format).toEqual({ type: 'grammar', grammar: jsonObjectGrammar() });
  });

  it('chooses the q4f16 weights on an adapter with shader-f16', async () => {
    const t = setup({ probe: swiftShaderProbe(['shader-f16']) });
    const result = await run(t.adapter, ask('svc-model-5.2-short'));
    expect(t.engine().reloads[0]!.modelId).toBe('Qwen3-1.7B-q4f16_1-MLC');
    expect(result.fingerprint).toBe('fp_Qwen3-1.7B-q4f16_1-MLC');
  });

  it('reads images (data: and fetchable URLs) into data: URLs for web-llm, one text part first, detail "auto" not passed on', async () => {
    const t = setup();
    const pixel = 'data:image/png;base64,iVBORw0KGgo=';
    await run(
      t.adapter,
      ask('svc-vision', {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is' },
              { type: 'image_url', image_url: { url: pixel } },
              { type: 'text', text: 'in these?' },
              { type: 'image_url', image_url: { url: 'https://app.example/cat.png', detail: 'auto' } },
            ],
          },
        ],
      }),
    );
    const sent = t.engine().requests[0]!;
    expect(t.engine().reloads[0]!.modelId).toBe('Phi-3.5-vision-instruct-q4f32_1-MLC');
    expect(sent.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is\nin these?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw==' } },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw==' } },
        ],
      },
    ]);
  });

  it('answers an image that cannot be fetched with 400 naming the part, before any load, without the remote status', async () => {
    const t = setup();
    const err = await rejection(
      t.adapter.generate(
        ask('svc-vision', { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://app.example/missing.png' } }] }] }),
        new AbortController().signal,
      ),
    );
    expect(err).toMatchObject({ status: 400, code: 'invalid_value', param: 'messages[0].content[0].image_url.url' });
    expect(err.message).toContain('Could not fetch the image');
    expect(err.message).not.toContain('404');
    expect(t.engine().reloads).toHaveLength(0);
  });

  it('refuses image URLs off the allowed hosts before fetching them: 400 naming the part', async () => {
    const t = setup();
    const fetched: string[] = [];
    const reader = t.deps.images;
    t.deps.images = { ...reader, fetch: (url, signal) => (fetched.push(url), reader.fetch(url, signal)) };
    const adapter = new WebLlmEngine({ ...DEFAULT_CONFIG }, t.deps);
    const refused = [
      'https://images.example/cat.png',
      'http://127.0.0.2:8080/probe',
      'blob:https://other.example/1',
      'https://evil.huggingface.co.example/a.png',
      'ftp://app.example/a',
    ];
    for (const url of refused) {
      const err = await rejection(
        adapter.generate(
          ask('svc-vision', {
            messages: [
              {
                role: 'user',
                content: [
                  { type: 'text', text: 'see' },
                  { type: 'image_url', image_url: { url } },
                ],
              },
            ],
          }),
          new AbortController().signal,
        ),
      );
      expect(err, url).toMatchObject({ status: 400, code: 'invalid_value', param: 'messages[0].content[1].image_url.url' });
      expect(err.message).toContain('not on a host this service may reach');
    }
    expect(fetched).toEqual([]);
    // The origin's own URLs, its blobs and the model hosts (web-llm's by default) are read.
    for (const url of ['https://app.example/cat.png', 'blob:https://app.example/1', 'https://huggingface.co/x.png', 'https://cdn-lfs.hf.co/y.png']) {
      await run(adapter, ask('svc-vision', { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }] }));
    }
    expect(fetched).toHaveLength(4);
  });

  it('refuses what web-llm cannot do with 400 unsupported_parameter, never reaching web-llm', async () => {
    const t = setup();
    const cases: [Partial<RequestBody>, string][] = [
      [{ n: 2 }, 'n'],
      [
        {
          messages: [
            { role: 'user', content: 'a' },
            { role: 'system', content: 'late' },
            { role: 'user', content: 'b' },
          ],
        },
        'messages[1].role',
      ],
      [
        {
          messages: [
            { role: 'user', content: 'a' },
            { role: 'assistant', content: 'b' },
          ],
        },
        'messages[1].role',
      ],
    ];
    for (const [extra, param] of cases) {
      const err = await rejection(scheduled(t.adapter).generate(ask('svc-model-5.2', extra), new AbortController().signal));
      expect(err).toMatchObject({ status: 400, code: 'unsupported_parameter', param });
    }
    const detail = await rejection(
      scheduled(t.adapter).generate(
        ask('svc-vision', { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png', detail: 'high' } }] }] }),
        new AbortController().signal,
      ),
    );
    expect(detail).toMatchObject({ code: 'unsupported_parameter', param: 'messages[0].content[0].image_url.detail' });
    const tools = [{ type: 'function' as const, function: { name: 'f' } }];
    const visionTools = await rejection(scheduled(t.adapter).generate(ask('svc-vision', { tools }), new AbortController().signal));
    expect(visionTools).toMatchObject({ code: 'unsupported_parameter', param: 'tools' });
    expect(t.engine().requests).toHaveLength(0);
  });
});

describe('thinking, content and usage', () => {
  const thought = ['<think>', '\n', 'Let', ' me', ' see', '\n', '</think>', '\n\n', 'Hello', ' world', ''];

  it('puts the thinking in reasoning, never in content, and counts its tokens', async () => {
    const t = setup();
    t.engine().script = () => ({ pieces: thought });
    const result = await run(t.adapter, ask('svc-model-5.2'));
    expect(result.reasoning).toBe('Let me see');
    expect(result.content).toBe('Hello world');
    expect(result.events.some((e) => e.type === 'delta' && e.content?.includes('think'))).toBe(false);
    expect(result.finish).toMatchObject({ type: 'finish', finish_reason: 'stop' });
    // <think> \n Let ' me' ' see' \n </think>: seven tokens of thinking out of eleven.
    expect(result.finish.usage.completion_tokens).toBe(11);
    expect(result.finish.usage.completion_tokens_details.reasoning_tokens).toBe(7);
    // The prompt, counted by the model's tokenizer over the rendered chat template.
    const prompt = '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n|<|im_start|>user\nhi there<|im_end|>\n|<|im_start|>assistant\n';
    const expected = prompt
      .split('|<')
      .map((piece, i) => (i === 0 ? piece : `<${piece}`))
      .reduce((n, piece) => n + fakeTokens(piece).length, 0);
    expect(result.finish.usage.prompt_tokens).toBe(expected);
    expect(result.finish.usage.total_tokens).toBe(expected + 11);
  });

  it('streams reasoning as it comes, whatever the chunking of the tags', async () => {
    const t = setup();
    t.engine().script = () => ({ pieces: ['<th', 'ink>', 'a', ' b', '</thi', 'nk>', '\n', 'c', ' d'] });
    const result = await run(t.adapter, ask('svc-model-5.2-short'));
    expect(result.reasoning).toBe('a b');
    expect(result.content).toBe('c d');
    const kinds = result.events.filter((e): e is Delta => e.type === 'delta').map((e) => (e.reasoning ? 'r' : 'c'));
    expect(kinds).toEqual(['r', 'r', 'c', 'c']);
  });

  it('removes the empty thinking block of the fast variants: no reasoning, no reasoning tokens', async () => {
    const t = setup();
    t.engine().script = () => ({ pieces: ['Hi', '!'] });
    const result = await run(t.adapter, ask('svc-model-5.2-fast'));
    expect(result.content).toBe('Hi!');
    expect(result.reasoning).toBe('');
    expect(result.finish.usage.completion_tokens_details.reasoning_tokens).toBe(0);
  });

  it('keeps logprobs with the answer tokens only', async () => {
    const t = setup();
    t.engine().script = () => ({ pieces: ['<think>', 'hm', '</think>', 'Yes', '.'] });
    const result = await run(t.adapter, ask('svc-model-5.2', { logprobs: true }));
    const tokens = result.events.flatMap((e) => (e.type === 'delta' && e.logprobs ? e.logprobs.map((l) => l.token) : []));
    expect(tokens).toEqual(['Yes', '.']);
  });

  it('gives the requested output tokens to the fast variants (web-llm counts its empty block against max_tokens)', async () => {
    const t = setup();
    t.engine().script = () => ({ pieces: ['1', ' 2', ' 3', ' 4', ' 5', ' 6'] });
    const result = await run(t.adapter, ask('svc-model-5.2-fast', { max_tokens: 3 }));
    expect(result.content).toBe('1 2 3');
    expect(result.finish.finish_reason).toBe('length');
    expect(result.finish.usage.completion_tokens).toBe(3);
  });

  it("reports web-llm's prompt count when the tokenizer cannot be seen", async () => {
    const t = setup({ view: false });
    const result = await run(t.adapter, ask('svc-model-5.2-fast'));
    expect(result.finish.usage.prompt_tokens).toBe(t.engine().prefilled[0]);
    expect(result.finish.usage.prompt_tokens_details.cached_tokens).toBe(0);
  });
});

describe('stop sequences on Qwen3: applied to the answer, never to the thinking', () => {
  it('a thinking variant thinks past the stop sequence; the answer is cut before it, web-llm interrupted', async () => {
    const t = setup();
    const pieces = ['<think>', 'one', '\n', 'two', '</think>', '\n\n', 'First', ' line', '\n', 'second', ' line', ' more', ' text'];
    t.engine().script = () => ({ pieces });
    const result = await run(t.adapter, ask('svc-model-5.2', { stop: '\n' }));
    expect(result.reasoning).toBe('one\ntwo');
    expect(result.content).toBe('First line');
    expect(result.finish.finish_reason).toBe('stop');
    expect(t.engine().interrupts).toBeGreaterThan(0);
    // Decoding ended at the match: fewer tokens than the script, all of them counted.
    expect(result.finish.usage.completion_tokens).toBeLessThan(pieces.length);
    expect(result.finish.usage.completion_tokens).toBeGreaterThanOrEqual(9);
    expect(t.engine().openStreams).toBe(0);
    // The next request runs normally.
    t.engine().script = () => ({ pieces: ['Hi'] });
    expect((await run(t.adapter, ask('svc-model-5.2-fast'))).content).toBe('Hi');
    expect(t.engine().overlap).toBe(false);
  });

  it('a fast variant: a stop sequence inside the empty thinking block does not end the answer', async () => {
    const t = setup();
    t.engine().script = () => ({ pieces: ['Hello', '>', ' world', '\n', 'bye'] });
    const newline = await run(t.adapter, ask('svc-model-5.2-fast', { stop: ['\n'] }));
    expect(newline.content).toBe('Hello> world');
    expect(newline.finish.finish_reason).toBe('stop');
    const tag = await run(t.adapter, ask('svc-model-5.2-short-fast', { stop: ['think>', '>'] }));
    expect(tag.content).toBe('Hello');
  });

  it('a stop sequence split over tokens still cuts; a partial one at the end is released', async () => {
    const t = setup();
    t.engine().script = () => ({ pieces: ['Done', ' E', 'N', 'D', ' after'] });
    const cut = await run(t.adapter, ask('svc-model-5.2-fast', { stop: 'END' }));
    expect(cut.content).toBe('Done ');
    t.engine().script = () => ({ pieces: ['Done', ' E', 'N'] });
    const partial = await run(t.adapter, ask('svc-model-5.2-fast', { stop: 'END' }));
    expect(partial.content).toBe('Done EN');
    expect(partial.finish.finish_reason).toBe('stop');
  });

  it('a limit reached before any stop sequence still ends with length', async () => {
    const t = setup();
    t.engine().script = () => ({ pieces: ['1', ' 2', ' 3', ' 4'] });
    const result = await run(t.adapter, ask('svc-model-5.2-fast', { stop: 'x', max_tokens: 2 }));
    expect(result.content).toBe('1 2');
    expect(result.finish.finish_reason).toBe('length');
  });
});

describe('context length', () => {
  it("sizes each model's context from the adapter and reports it in status", async () => {
    const t = setup();
    await t.adapter.ready();
    const status = t.adapter.status();
    const ctx = Object.fromEntries(status.map((s) => [s.id, s.context_length]));
    expect(ctx['svc-model-5.2']).toBe(ctx['svc-model-5.2-fast']);
    expect(ctx['svc-model-5.2-short']).toBeGreaterThan(ctx['svc-model-5.2']!);
    for (const s of status) expect(s.context_length).toBeGreaterThanOrEqual(s.id === 'svc-embed' ? 512 : 4096);
    expect(ctx['svc-embed']).toBe(512);
  });

  it('loads the model with that context and refuses prompt plus max_tokens beyond it before generating', async () => {
    const t = setup({}, { gpuMemoryMB: 1 }); // nothing spare: web-llm's default 4096
    await run(t.adapter, ask('svc-model-5.2-fast'));
    expect(t.engine().reloads[0]!.chatOpts).toEqual({ context_window_size: 4096 });
    const err = await rejection(t.adapter.generate(ask('svc-model-5.2-fast', { max_tokens: 4090 }), new AbortController().signal));
    expect(err).toMatchObject({ status: 400, code: 'context_length_exceeded', param: 'messages' });
    expect(err.message).toMatch(/maximum context length is 4096 tokens\. However, you requested \d+ tokens \(\d+ in the messages, 4090 in the completion\)/);
    expect(t.engine().requests).toHaveLength(1);
  });

  it("maps web-llm's own context check (at prefill) to context_length_exceeded before the answer starts", async () => {
    const t = setup({ view: false });
    t.engine().script = () => ({
      pieces: [],
      prefillError: new NamedError('ContextWindowSizeExceededError', 'Prompt tokens exceed context window size: 5000; 4096'),
    });
    const err = await rejection(t.adapter.generate(ask('svc-model-5.2-fast'), new AbortController().signal));
    expect(err).toMatchObject({ status: 400, code: 'context_length_exceeded' });
    expect(t.engine().openStreams).toBe(0);
  });

  it('steps the context down when a load runs out of GPU memory', async () => {
    const t = setup({}, { gpuMemoryMB: 64_000 });
    await t.adapter.ready();
    const first = t.adapter.status().find((s) => s.id === 'svc-model-5.2-short')!.context_length;
    expect(first).toBe(40_960);
    t.engine().onReload = (_id, opts) => {
      if ((opts?.context_window_size ?? 0) > 10_000) throw new NamedError('DeviceLostError', 'The WebGPU device was lost while loading the model.');
    };
    await run(t.adapter, ask('svc-model-5.2-short'));
    expect(t.engine().reloads.map((r) => r.chatOpts?.context_window_size)).toEqual([40_960, 20_480, 10_240, 5_120]);
    expect(t.adapter.status().find((s) => s.id === 'svc-model-5.2-short')!.context_length).toBe(5_120);
  });
});

describe('loading, switching and the cache', () => {
  it('downloads on first use with progress in the state, then reads from cache', async () => {
    const t = setup();
    await t.adapter.ready();
    const seen: string[] = [];
    const progress: number[] = [];
    t.adapter.onStatus(() => {
      const s = t.adapter.status().find((m) => m.id === 'svc-model-5.2-short-fast')!;
      seen.push(s.state);
      if (s.progress?.phase === 'download') progress.push(s.progress.bytesDone);
      if (s.progress) expect(s.progress.bytesTotal).toBe(4 * 1024 * 1024);
    });
    expect(t.adapter.status().find((m) => m.id === 'svc-model-5.2-short-fast')!.state).toBe('not_downloaded');
    await t.adapter.load('svc-model-5.2-short-fast');
    const phases = seen.filter((state, i) => state !== seen[i - 1]);
    expect(phases).toEqual(['downloading', 'loading', 'ready']);
    expect(progress).toEqual([1, 2, 3, 4].map((i) => i * 1024 * 1024));
    const ready = t.adapter.status().find((m) => m.id === 'svc-model-5.2-short')!;
    expect(ready).toMatchObject({ state: 'ready', sizeOnDisk: 4 * 1024 * 1024 });

    await t.adapter.unload();
    expect(t.adapter.status().find((m) => m.id === 'svc-model-5.2-short')!.state).toBe('cached');
    seen.length = 0;
    await t.adapter.load('svc-model-5.2-short');
    expect(seen.filter((state, i) => state !== seen[i - 1])).toEqual(['loading', 'ready']);
  });

  it('switches between variants that share weights without a reload', async () => {
    const t = setup();
    await run(t.adapter, ask('svc-model-5.2'));
    await run(t.adapter, ask('svc-model-5.2-fast'));
    await run(t.adapter, ask('svc-model-5.2'));
    expect(t.engine().reloads.map((r) => r.modelId)).toEqual(['Qwen3-8B-q4f32_1-MLC']);
    await run(t.adapter, ask('svc-model-5.2-short-fast'));
    await run(t.adapter, ask('svc-model-5.2-short'));
    expect(t.engine().reloads.map((r) => r.modelId)).toEqual(['Qwen3-8B-q4f32_1-MLC', 'Qwen3-1.7B-q4f32_1-MLC']);
    const states = Object.fromEntries(t.adapter.status().map((s) => [s.id, s.state]));
    expect(states).toEqual({
      'svc-model-5.2': 'cached',
      'svc-model-5.2-fast': 'cached',
      'svc-model-5.2-short': 'ready',
      'svc-model-5.2-short-fast': 'ready',
      'svc-vision': 'not_downloaded',
      'svc-embed': 'not_downloaded',
    });
  });

  it('deletes a model from the cache (unloading it first)', async () => {
    const t = setup();
    await t.adapter.load('svc-vision');
    await t.adapter.deleteFromCache('svc-vision');
    expect(t.cache.deleted).toEqual(['Phi-3.5-vision-instruct-q4f32_1-MLC']);
    expect(t.engine().loaded).toBeNull();
    expect(t.adapter.status().find((m) => m.id === 'svc-vision')!.state).toBe('not_downloaded');
  });
});

describe('failures and recovery', () => {
  it("no WebGPU: 503 webgpu_unavailable with the browser's reason; every model unavailable", async () => {
    const t = setup({ probe: { report: { available: false, reason: 'navigator.gpu is undefined: no WebGPU here.', features: [], shaderF16: false } } });
    const err = await rejection(t.adapter.generate(ask('svc-model-5.2-fast'), new AbortController().signal));
    expect(err).toMatchObject({ status: 503, code: 'webgpu_unavailable' });
    expect(err.message).toContain('navigator.gpu is undefined');
    expect(t.adapter.status().every((s) => s.state === 'unavailable' && s.error?.includes('navigator.gpu'))).toBe(true);
    expect((await t.adapter.adapter()).available).toBe(false);
  });

  it('a failed load: 503 model_load_failed with the cause; the state says so; the next request tries again', async () => {
    const t = setup();
    let fail = true;
    t.engine().onReload = () => {
      if (fail) throw new Error('Failed to store https://huggingface.co/x/mlc-chat-config.json with error: TypeError: Failed to fetch');
    };
    const err = await rejection(t.adapter.generate(ask('svc-model-5.2-fast'), new AbortController().signal));
    expect(err).toMatchObject({ status: 503, code: 'model_load_failed' });
    expect(err.message).toContain('Failed to fetch');
    expect(err.message).toContain('Qwen3-8B-q4f32_1-MLC');
    expect(t.adapter.status().find((s) => s.id === 'svc-model-5.2')).toMatchObject({ state: 'not_downloaded', error: err.message });
    fail = false;
    const result = await run(t.adapter, ask('svc-model-5.2-fast'));
    expect(result.content).toBe('Hello there');
    expect(t.engine().reloads).toHaveLength(2);
    expect(t.adapter.status().find((s) => s.id === 'svc-model-5.2')!.error).toBeUndefined();
  });

  it('a lost GPU device: the running request fails with 503, the engine loads the model again', async () => {
    const t = setup();
    await t.adapter.load('svc-model-5.2-fast');
    t.engine().script = () => ({ pieces: ['a', ' b', ' c', ' d'] });
    t.engine().onChunk = (i) => {
      if (i === 2) t.loseDevice('D3D12 device removed');
    };
    const generation = await t.adapter.generate(ask('svc-model-5.2-fast'), new AbortController().signal);
    const seen: EngineEvent[] = [];
    const err = await rejection(
      (async () => {
        for await (const event of generation.events) seen.push(event);
      })(),
    );
    expect(err).toMatchObject({ status: 503, code: 'engine_unavailable' });
    expect(err.message).toContain('D3D12 device removed');
    expect(seen.some((e) => e.type === 'finish')).toBe(false);
    t.engine().onChunk = () => undefined;
    const next = await run(t.adapter, ask('svc-model-5.2-fast'));
    expect(next.content).toBe('a b c d');
    expect(t.engine().reloads).toHaveLength(2);
    expect(t.adapter.status().find((s) => s.id === 'svc-model-5.2-fast')!.state).toBe('ready');
  });

  it('a failure during generation surfaces from the events as an error, never as web-llm\'s "abort"', async () => {
    const t = setup();
    t.engine().script = () => ({ pieces: ['a', 'b', 'c'], failAfter: { pieces: 2, error: new Error('GPU buffer mapping failed') } });
    const generation = await t.adapter.generate(ask('svc-model-5.2-fast'), new AbortController().signal);
    const err = await rejection(
      (async () => {
        for await (const _ of generation.events) void _;
      })(),
    );
    expect(err).toMatchObject({ status: 500, code: 'internal_error' });
    expect(err.message).toContain('GPU buffer mapping failed');
    t.engine().script = () => ({ pieces: ['ok'] });
    expect((await run(t.adapter, ask('svc-model-5.2-fast'))).finish.finish_reason).toBe('stop');
  });
});

describe('aborts and the queue', () => {
  function sink(log: string[], id: string, done?: () => void): RequestSink {
    return {
      accepted: () => log.push(`${id}:accepted`),
      start: () => log.push(`${id}:start`),
      event: (e) => {
        if (e.type === 'delta') log.push(`${id}:${e.content ?? ''}`);
        else if (e.type === 'finish') log.push(`${id}:finish:${e.finish_reason}`);
      },
      end: () => {
        log.push(`${id}:end`);
        done?.();
      },
      error: (err) => {
        log.push(`${id}:error:${err.code}`);
        done?.();
      },
    };
  }

  it('aborting a running generation interrupts web-llm, drains its stream and leaks no "abort"', async () => {
    const t = setup();
    await t.adapter.load('svc-model-5.2-fast');
    const controller = new AbortController();
    t.engine().script = () => ({ pieces: ['a', 'b', 'c', 'd', 'e', 'f'] });
    t.engine().onChunk = (i) => {
      if (i === 2) controller.abort();
    };
    const generation = await t.adapter.generate(ask('svc-model-5.2-fast'), controller.signal);
    const events: EngineEvent[] = [];
    const err = await rejection(
      (async () => {
        for await (const event of generation.events) events.push(event);
      })(),
    );
    expect(err.message).toContain('aborted');
    expect(t.engine().interrupts).toBeGreaterThanOrEqual(1);
    expect(events.some((e) => e.type === 'finish')).toBe(false);
    t.engine().onChunk = () => undefined;
    const next = await run(t.adapter, ask('svc-model-5.2-fast'));
    expect(next.content).toBe('abcdef');
    expect(t.engine().overlap).toBe(false);
    expect(t.engine().openStreams).toBe(0);
  });

  it("an aborted or failed generation says what it cost: the prompt's tokens and the tokens web-llm generated, by its own count", async () => {
    const t = setup();
    await t.adapter.load('svc-model-5.2-fast');
    const full = await run(t.adapter, ask('svc-model-5.2-fast'));
    const promptTokens = full.finish.usage.prompt_tokens;
    expect(promptTokens).toBeGreaterThan(0);

    const controller = new AbortController();
    t.engine().script = () => ({ pieces: ['a', 'b', 'c', 'd', 'e', 'f'] });
    t.engine().onChunk = (i) => {
      if (i === 3) controller.abort();
    };
    const generation = await t.adapter.generate(ask('svc-model-5.2-fast'), controller.signal);
    let given = 0;
    await rejection(
      (async () => {
        for await (const event of generation.events) if (event.type === 'delta') given++;
      })(),
    );
    const spent = await generation.spent!();
    // web-llm produced 3 tokens (a b c) before the interrupt took at the 4th step; usage names them all.
    expect(spent).toMatchObject({ prompt_tokens: promptTokens, completion_tokens: 3, total_tokens: promptTokens + 3 });
    expect(spent!.completion_tokens).toBeGreaterThanOrEqual(given);

    t.engine().onChunk = () => undefined;
    t.engine().script = () => ({ pieces: ['a', 'b', 'c', 'd'], failAfter: { pieces: 2, error: new Error('GPU buffer mapping failed') } });
    const failing = await t.adapter.generate(ask('svc-model-5.2-fast'), new AbortController().signal);
    await rejection(
      (async () => {
        for await (const _ of failing.events) void _;
      })(),
    );
    // web-llm threw (no usage chunk): one token per decode step seen.
    expect(await failing.spent!()).toMatchObject({ prompt_tokens: promptTokens, completion_tokens: 2, total_tokens: promptTokens + 2 });
  });

  it('an abort while web-llm prefills: generate() rejects, the stream is drained at once, the next request runs', async () => {
    const t = setup();
    await t.adapter.load('svc-model-5.2-fast');
    const controller = new AbortController();
    const produced: number[] = [];
    t.engine().script = () => ({ pieces: Array.from({ length: 50 }, (_, i) => `t${i}`) });
    t.engine().onChunk = (i) => {
      produced.push(i);
      if (i === 0) controller.abort();
    };
    const err = await rejection(t.adapter.generate(ask('svc-model-5.2-fast'), controller.signal));
    expect(err.message).toContain('aborted');
    expect(produced.length).toBeLessThan(5);
    expect(t.engine().openStreams).toBe(0);
    t.engine().onChunk = () => undefined;
    t.engine().script = () => ({ pieces: ['next'] });
    expect((await run(t.adapter, ask('svc-model-5.2-fast'))).content).toBe('next');
    expect(t.engine().overlap).toBe(false);
  });

  it('through the scheduler: FIFO, one at a time, an aborted waiting request never reaches web-llm, a running one stops', async () => {
    const t = setup();
    await t.adapter.load('svc-model-5.2-fast');
    const scheduler = new Scheduler(t.adapter, 16);
    const log: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    t.engine().script = (req) => ({ pieces: [String(req.messages.at(-1)!.content)] });
    t.engine().onChunk = async () => gate;
    const done: Record<string, Promise<void>> = {};
    for (const id of ['a', 'b', 'c', 'd']) {
      done[id] = new Promise<void>((resolve) =>
        scheduler.submit(id, ask('svc-model-5.2-fast', { messages: [{ role: 'user', content: id }] }), sink(log, id, resolve)),
      );
    }
    scheduler.abort('b'); // waiting: taken out of the queue
    release();
    await Promise.all([done.a, done.c, done.d]);
    const sent = t.engine().requests.map((r) => r.messages.at(-1)!.content);
    expect(sent).toEqual(['a', 'c', 'd']);
    expect(log.filter((l) => l.endsWith(':end'))).toEqual(['a:end', 'c:end', 'd:end']);
    expect(log.some((l) => l.startsWith('b:') && l !== 'b:accepted')).toBe(false);
    expect(t.engine().overlap).toBe(false);

    // A running request aborted mid-stream: nothing more is sent for it, and the next one runs.
    t.engine().script = () => ({ pieces: ['x', 'y', 'z', 'w'] });
    t.engine().onChunk = (i) => {
      if (i === 1) scheduler.abort('e');
    };
    scheduler.submit('e', ask('svc-model-5.2-fast'), sink(log, 'e'));
    const f = new Promise<void>((resolve) => scheduler.submit('f', ask('svc-model-5.2-fast'), sink(log, 'f', resolve)));
    await f;
    t.engine().onChunk = () => undefined;
    expect(log.filter((l) => l.startsWith('e:'))).toEqual(['e:accepted', 'e:start', 'e:x']);
    expect(log).toContain('f:end');
    expect(t.engine().interrupts).toBeGreaterThanOrEqual(1);
    expect(t.engine().overlap).toBe(false);
  });
});

describe('KV cache across turns: web-llm gets the conversation as it holds it', () => {
  type Msg = ChatCompletionRequest['messages'][number];
  const user = (content: string): Msg => ({ role: 'user', content });
  const assistant = (content: string): Msg => ({ role: 'assistant', content });
  /** Tokens of ChatML turns as the fake's tokenizer counts them. */
  const tokens = (...pieces: string[]) => pieces.reduce((n, piece) => n + fakeTokens(piece).length, 0);
  const userTurn = (text: string) => `<|im_start|>user\n${text}<|im_end|>\n`;
  const EMPTY = '<think>\n\n</think>\n\n';

  it('a plain second and third turn on a fast variant: the empty thinking block goes back, only the new turn is prefilled', async () => {
    const t = setup();
    t.engine().script = () => ({ pieces: ['Hello', ' there'] });
    const first = await run(t.adapter, ask('svc-model-5.2-fast', { messages: [user('hi')] }));
    expect(first.content).toBe('Hello there');
    expect(first.finish.usage.prompt_tokens_details.cached_tokens).toBe(0);
    const second = await run(t.adapter, ask('svc-model-5.2-fast', { messages: [user('hi'), assistant('Hello there'), user('and you?')] }));
    const sent = t.engine().requests[1]!.messages;
    expect(sent[1]).toEqual({ role: 'assistant', content: `${EMPTY}Hello there` });
    expect(t.engine().reused).toEqual([false, true]);
    // Prefilled: the new user turn and the reply header with its empty block; the rest came from the cache.
    expect(t.engine().prefilled[1]).toBe(tokens(userTurn('and you?'), `<|im_start|>assistant\n${EMPTY}`));
    const usage = second.finish.usage;
    expect(usage.prompt_tokens_details.cached_tokens).toBe(usage.prompt_tokens - t.engine().prefilled[1]!);
    expect(usage.prompt_tokens_details.cached_tokens).toBeGreaterThan(0);
    const third = await run(
      t.adapter,
      ask('svc-model-5.2-fast', { messages: [user('hi'), assistant('Hello there'), user('and you?'), assistant('Hello there'), user('ok')] }),
    );
    expect(t.engine().reused).toEqual([false, true, true]);
    expect(
      t
        .engine()
        .requests[2]!.messages.filter((m) => m.role === 'assistant')
        .map((m) => m.content),
    ).toEqual([`${EMPTY}Hello there`, `${EMPTY}Hello there`]);
    expect(third.finish.usage.prompt_tokens_details.cached_tokens).toBe(third.finish.usage.prompt_tokens - t.engine().prefilled[2]!);
  });

  it('a thinking variant with a content-only history: its thinking goes back to web-llm, the cache is kept', async () => {
    const t = setup();
    t.engine().script = () => ({ pieces: ['<think>', '\n', 'Let', ' me', ' see', '\n', '</think>', '\n\n', 'Hello', ' world'] });
    const first = await run(t.adapter, ask('svc-model-5.2', { messages: [{ role: 'system', content: 'Be kind.' }, user('hi')] }));
    expect(first.content).toBe('Hello world');
    expect(first.reasoning).toBe('Let me see');
    const second = await run(
      t.adapter,
      ask('svc-model-5.2', { messages: [{ role: 'system', content: 'Be kind.' }, user('hi'), assistant('Hello world'), user('more')] }),
    );
    expect(t.engine().requests[1]!.messages[2]).toEqual({ role: 'assistant', content: '<think>\nLet me see\n</think>\n\nHello world' });
    expect(t.engine().reused).toEqual([false, true]);
    expect(second.finish.usage.prompt_tokens_details.cached_tokens).toBe(second.finish.usage.prompt_tokens - t.engine().prefilled[1]!);
    expect(second.finish.usage.prompt_tokens_details.cached_tokens).toBeGreaterThan(0);
    // Switching to the fast variant of the same weights continues the same conversation.
    await run(
      t.adapter,
      ask('svc-model-5.2-fast', {
        messages: [{ role: 'system', content: 'Be kind.' }, user('hi'), assistant('Hello world'), user('more'), assistant('Hello world'), user('fast now')],
      }),
    );
    expect(t.engine().reused).toEqual([false, true, true]);
  });

  it('a stop web-llm can apply (fast variant) ends "stop" without an interrupt and keeps the cache', async () => {
    const t = setup();
    t.engine().script = () => ({ pieces: ['Done', ' E', 'N', 'D', ' after'] });
    const cut = await run(t.adapter, ask('svc-model-5.2-fast', { messages: [user('go')], stop: 'END' }));
    expect(cut.content).toBe('Done ');
    expect(cut.finish.finish_reason).toBe('stop');
    expect(t.engine().interrupts).toBe(0);
    t.engine().script = () => ({ pieces: ['Next'] });
    const next = await run(t.adapter, ask('svc-model-5.2-fast', { messages: [user('go'), assistant('Done '), user('again')] }));
    expect(t.engine().reused).toEqual([false, true]);
    expect(t.engine().requests[1]!.messages[1]).toEqual({ role: 'assistant', content: `${EMPTY}Done ` });
    expect(next.finish.usage.prompt_tokens_details.cached_tokens).toBeGreaterThan(0);
  });

  it('a stop cut by inpage (thinking variant) costs only the cut turn: the next one prefills all, the one after reuses again', async () => {
    const t = setup();
    t.engine().script = () => ({ pieces: ['<think>', 'a', '\n', 'b', '</think>', '\n\n', 'One', '\n', 'two'] });
    const cut = await run(t.adapter, ask('svc-model-5.2', { messages: [user('go')], stop: '\n' }));
    expect(cut.content).toBe('One');
    expect(cut.finish.finish_reason).toBe('stop');
    expect(t.engine().interrupts).toBeGreaterThan(0);
    t.engine().script = () => ({ pieces: ['<think>', 'c', '</think>', '\n\n', 'Fine'] });
    const history = [user('go'), assistant('One'), user('next')];
    const after = await run(t.adapter, ask('svc-model-5.2', { messages: history }));
    expect(t.engine().reused).toEqual([false, false]);
    expect(t.engine().requests[1]!.messages[1]).toEqual({ role: 'assistant', content: 'One' });
    expect(after.finish.usage.prompt_tokens_details.cached_tokens).toBe(0);
    const again = await run(t.adapter, ask('svc-model-5.2', { messages: [...history, assistant('Fine'), user('last')] }));
    expect(t.engine().reused).toEqual([false, false, true]);
    expect(again.finish.usage.prompt_tokens_details.cached_tokens).toBeGreaterThan(0);
  });

  it('a changed system message or an edited earlier message: sent as the client wrote it, web-llm resets, nothing cached', async () => {
    const t = setup();
    t.engine().script = () => ({ pieces: ['Sure'] });
    const system = (content: string): Msg => ({ role: 'system', content });
    await run(t.adapter, ask('svc-model-5.2-fast', { messages: [system('A'), user('hi')] }));
    const changed = await run(t.adapter, ask('svc-model-5.2-fast', { messages: [system('B'), user('hi'), assistant('Sure'), user('x')] }));
    expect(t.engine().requests[1]!.messages[2]).toEqual({ role: 'assistant', content: 'Sure' });
    expect(t.engine().reused).toEqual([false, false]);
    expect(changed.finish.usage.prompt_tokens_details.cached_tokens).toBe(0);
    // The conversation just sent (system B) is the one held now; an edited earlier message does not match it.
    const edited = await run(
      t.adapter,
      ask('svc-model-5.2-fast', { messages: [system('B'), user('hello'), assistant('Sure'), user('x'), assistant('Sure'), user('y')] }),
    );
    expect(t.engine().reused).toEqual([false, false, false]);
    expect(edited.finish.usage.prompt_tokens_details.cached_tokens).toBe(0);
    // An edited answer of the assistant does not match either.
    await run(
      t.adapter,
      ask('svc-model-5.2-fast', {
        messages: [system('B'), user('hello'), assistant('Sure'), user('x'), assistant('Sure'), user('y'), assistant('Not what you said'), user('z')],
      }),
    );
    expect(t.engine().reused.at(-1)).toBe(false);
  });

  it('a reply cut by max_tokens, an aborted turn or another model in between: no reuse', async () => {
    const t = setup();
    t.engine().script = () => ({ pieces: ['1', ' 2', ' 3'] });
    const short = await run(t.adapter, ask('svc-model-5.2-fast', { messages: [user('count')], max_tokens: 2 }));
    expect(short.finish.finish_reason).toBe('length');
    await run(t.adapter, ask('svc-model-5.2-fast', { messages: [user('count'), assistant(short.content), user('go on')] }));
    expect(t.engine().reused).toEqual([false, false]);
    const full = [user('count'), assistant(short.content), user('go on'), assistant('1 2 3')];
    await run(t.adapter, ask('svc-vision', { messages: [user('look')] }));
    await run(t.adapter, ask('svc-model-5.2-fast', { messages: [...full, user('more')] }));
    expect(t.engine().reused.at(-1)).toBe(false);
  });
});

describe('embeddings (svc-embed)', () => {
  const embedRequest = (input: (string | number[])[]) => parseEmbeddingRequest({ model: 'svc-embed', input });

  async function embed(adapter: WebLlmEngine, request: EmbeddingRequest) {
    const generation = await adapter.embed(request, new AbortController().signal);
    const events: EngineEvent[] = [];
    for await (const event of generation.events) events.push(event);
    return { fingerprint: generation.fingerprint, events };
  }

  it('loads snowflake-arctic-embed-s on a second MLCEngine, beside the chat model, and passes text and token ids to web-llm', async () => {
    const t = setup();
    await run(t.adapter, ask('svc-model-5.2-fast'));
    const { fingerprint, events } = await embed(t.adapter, embedRequest(['one two', 'three']));
    expect(fingerprint).toBe('fp_snowflake-arctic-embed-s-q0f32-MLC-b4');
    expect(t.embedder()!.reloads.map((r) => r.modelId)).toEqual(['snowflake-arctic-embed-s-q0f32-MLC-b4']);
    expect(t.embedder()!.embeddingRequests).toEqual([{ input: ['one two', 'three'], model: 'snowflake-arctic-embed-s-q0f32-MLC-b4' }]);
    // The chat model stayed loaded: no reload of it, no unload.
    expect(t.engine().loaded).toBe('Qwen3-8B-q4f32_1-MLC');
    expect(t.engine().reloads).toHaveLength(1);
    const vectors = events.filter((e) => e.type === 'embedding');
    expect(vectors.map((v) => [v.index, v.embedding.length, v.embedding[0]])).toEqual([
      [0, 384, 1],
      [1, 384, 2],
    ]);
    const finish = events.at(-1) as Finish;
    expect(finish.usage.prompt_tokens).toBe(fakeTokens('one two').length + fakeTokens('three').length);
    expect(finish.usage.total_tokens).toBe(finish.usage.prompt_tokens);
    const states = Object.fromEntries(t.adapter.status().map((s) => [s.id, s.state]));
    expect(states['svc-model-5.2-fast']).toBe('ready');
    expect(states['svc-embed']).toBe('ready');
    // A second request (token ids this time) reuses the loaded embedder.
    const ids = await embed(t.adapter, embedRequest([[101, 102, 103]]));
    expect(t.embedder()!.reloads).toHaveLength(1);
    expect(t.embedder()!.embeddingRequests[1]!.input).toEqual([[101, 102, 103]]);
    expect((ids.events.at(-1) as Finish).usage.prompt_tokens).toBe(3);
    await t.adapter.unload();
    expect(t.embedder()!.loaded).toBeNull();
    expect(t.adapter.status().find((s) => s.id === 'svc-embed')!.state).toBe('cached');
  });

  it('an input over 512 tokens is 400 context_length_exceeded; a failed load is 503 model_load_failed with the state kept truthful', async () => {
    const t = setup();
    const long = await rejection(embed(t.adapter, embedRequest([Array.from({ length: 513 }, (_, i) => i)])));
    expect([long.status, long.code, long.param]).toEqual([400, 'context_length_exceeded', 'input']);
    await t.adapter.unload();
    t.embedder()!.onReload = () => {
      throw new Error('Failed to fetch');
    };
    const failed = await rejection(embed(t.adapter, embedRequest(['x'])));
    expect([failed.status, failed.code]).toEqual([503, 'model_load_failed']);
    expect(failed.message).toContain('snowflake-arctic-embed-s-q0f32-MLC-b4');
    const status = t.adapter.status().find((s) => s.id === 'svc-embed')!;
    expect(status.error).toContain('Failed to fetch');
  });

  it("sets the embedding model's memory aside from the chat models' budget", async () => {
    const budget = 4000;
    const t = setup({}, { gpuMemoryMB: budget });
    await t.adapter.ready();
    const ctx = t.adapter.status().find((s) => s.id === 'svc-model-5.2-short')!.context_length;
    const sized = (memoryMB: number) =>
      contextLength({
        shape: kvShape(DEFAULT_CATALOG, VARIANTS['svc-model-5.2-short'])!,
        precision: 'f32',
        vramRequiredMB: prebuiltRecord('Qwen3-1.7B-q4f32_1-MLC').vram_required_MB!,
        trainedContext: VARIANTS['svc-model-5.2-short'].trainedContext,
        budget: { memoryMB, maxBufferBytes: swiftShaderProbe().maxBufferBytes! },
      });
    const embedderMB = prebuiltRecord('snowflake-arctic-embed-s-q0f32-MLC-b4').vram_required_MB!;
    expect(ctx).toBe(sized(budget - embedderMB));
    expect(ctx).toBeLessThan(sized(budget));
  });
});
