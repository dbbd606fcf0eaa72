// Image parts on the llama.cpp engine, around a fake wllama: what reaches llama.cpp (each image's bytes in its
// place among the text, formats it cannot decode re-encoded as PNG), what is refused before the model is touched.
// The real thing (llama.cpp encoding images through a synthesized mmproj) is test/browser/llamacpp-vision.prod.spec.ts.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '#shared/config';
import { ApiError } from '#shared/protocol/errors';
import type { ChatCompletionRequest } from '#shared/protocol/types';
import { VARIANTS } from '#shared/variants';
import { LlamaCppEngine, type WllamaLike } from '../../../worker/engine/llamacpp/engine';
import { imageBytes, type LlamaImageReader } from '../../../worker/engine/llamacpp/images';
import type { LlamaChunk } from '../../../worker/engine/llamacpp/run';
import { translateRequest, type LlamaContentPart } from '../../../worker/engine/llamacpp/translate';
import { withPlan, type PlannedRequest } from '../../../worker/engine/common/plan';

const ORIGIN = 'https://app.example';
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
const dataUrl = (type: string, bytes: Uint8Array) => `data:${type};base64,${Buffer.from(bytes).toString('base64')}`;

const visionRequest = (content: ChatCompletionRequest['messages'][number]['content'], variant = VARIANTS['svc-vision']): PlannedRequest =>
  withPlan({ model: 'svc-vision', variant, temperature: 0, messages: [{ role: 'user', content }] } as ChatCompletionRequest);

/** Reads data: URLs (as the browser's fetch does); "re-encodes" by tagging the bytes. */
function fakeReader(log: string[]): LlamaImageReader {
  return {
    async fetch(url) {
      log.push(`fetch ${url.split(',')[0]}`);
      if (!url.startsWith('data:')) return new Blob([PNG], { type: 'image/png' });
      const [head, body] = url.slice(5).split(',');
      return new Blob([Buffer.from(body!, 'base64')], { type: head!.split(';')[0] });
    },
    async size() {
      return { width: 20, height: 12 };
    },
    async png(blob) {
      log.push(`png ${blob.type}`);
      return new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 9])], { type: 'image/png' });
    },
  };
}

function engineWith(log: string[], calls: Record<string, unknown>[]) {
  const wllama: WllamaLike = {
    async loadModelFromUrl(source) {
      log.push(`load ${source.url.split('/').pop()} + ${source.mmprojUrl?.split('/').pop()}`);
    },
    getLoadedContextInfo: () => ({ n_ctx: 4096, n_ctx_train: 4096, success: true, has_image_input: true }),
    getNumThreads: () => 1,
    async createChatCompletion(options) {
      calls.push(options as Record<string, unknown>);
      const chunks: LlamaChunk[] = [
        { choices: [{ delta: { content: 'ok' }, finish_reason: null }] },
        { choices: [{ delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 30, completion_tokens: 1 } },
      ];
      return (async function* () {
        yield* chunks;
      })();
    },
    exit: async () => undefined,
  };
  return new LlamaCppEngine(DEFAULT_CONFIG, {
    create: () => wllama,
    cache: { list: async () => [], remove: async () => undefined },
    threads: 1,
    memoryBudgetBytes: 0,
    origin: ORIGIN,
    images: fakeReader(log),
    reason: 'test',
  });
}

describe('llama.cpp images', () => {
  it("puts each image's bytes in its place among the text parts, a copy per part", () => {
    const bytes = new Uint8Array([1, 2, 3]).buffer;
    const request = visionRequest([
      { type: 'image_url', image_url: { url: 'https://x/a.png' } },
      { type: 'text', text: 'What is this?' },
      { type: 'image_url', image_url: { url: 'https://x/a.png' } },
    ]);
    const content = translateRequest(request, new Map([['https://x/a.png', bytes]])).messages[0]!.content as LlamaContentPart[];
    expect(content.map((p) => p.type)).toEqual(['image', 'text', 'image']);
    expect(content[1]).toEqual({ type: 'text', text: 'What is this?' });
    const first = content[0] as { data: ArrayBuffer };
    const last = content[2] as { data: ArrayBuffer };
    expect([...new Uint8Array(first.data)]).toEqual([1, 2, 3]);
    expect(first.data).not.toBe(last.data);
    expect(first.data).not.toBe(bytes);
    // Text-only content stays a string; an image not read beforehand is a bug, not a silent drop.
    expect(
      translateRequest(
        visionRequest([
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ]),
      ).messages[0]!.content,
    ).toBe('a\nb');
    expect(() => translateRequest(request)).toThrow(/was not read before translation/);
  });

  it('gives llama.cpp PNG, JPEG, GIF and BMP as they are, and re-encodes other formats as PNG', async () => {
    const log: string[] = [];
    const reader = fakeReader(log);
    const png = await imageBytes({ width: 1, height: 1, dataUrl: dataUrl('image/png', PNG) }, reader);
    expect([...new Uint8Array(png)]).toEqual([...PNG]);
    await imageBytes({ width: 1, height: 1, dataUrl: dataUrl('image/jpeg', PNG) }, reader);
    expect(log).toEqual([]);
    const webp = await imageBytes({ width: 1, height: 1, dataUrl: dataUrl('image/webp', new Uint8Array([0x52, 0x49])) }, reader);
    expect(log).toEqual(['png image/webp']);
    expect([...new Uint8Array(webp)]).toEqual([0x89, 0x50, 0x4e, 0x47, 9]);
  });

  it('loads the model with its mmproj and hands the images to llama.cpp', async () => {
    const log: string[] = [];
    const calls: Record<string, unknown>[] = [];
    const engine = engineWith(log, calls);
    const request = visionRequest([
      { type: 'text', text: 'Hello' },
      { type: 'image_url', image_url: { url: dataUrl('image/webp', new Uint8Array([0x52, 0x49])) } },
    ]);
    const generation = await engine.generate(request, new AbortController().signal);
    const events = [];
    for await (const event of generation.events) events.push(event);
    expect(log).toEqual(['fetch data:image/webp;base64', 'png image/webp', 'load Qwen3VL-2B-Thinking-Q4_K_M.gguf + mmproj-Qwen3VL-2B-Thinking-Q8_0.gguf']);
    const content = (calls[0]!.messages as { content: LlamaContentPart[] }[])[0]!.content;
    expect(content[0]).toEqual({ type: 'text', text: 'Hello' });
    expect([...new Uint8Array((content[1] as { data: ArrayBuffer }).data)]).toEqual([0x89, 0x50, 0x4e, 0x47, 9]);
    expect(events.at(-1)).toMatchObject({ type: 'finish', usage: { prompt_tokens: 30 } });
  });

  it('refuses an image on a host it may not reach before the model is touched', async () => {
    const log: string[] = [];
    const engine = engineWith(log, []);
    const request = visionRequest([
      { type: 'text', text: 'Hi' },
      { type: 'image_url', image_url: { url: 'https://elsewhere.example/cat.png' } },
    ]);
    const error = await engine.generate(request, new AbortController().signal).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'invalid_value', param: 'messages[0].content[1].image_url.url' });
    expect(log).toEqual([]);
  });

  it('a vision variant whose GGUF has no mmproj refuses images as a text model does', () => {
    const engine = engineWith([], []);
    // svc-vision served by weights without a vision projector (as a deployment may configure it).
    const variant = { ...VARIANTS['svc-vision'], weightGroup: 'qwen3-1.7b' };
    const request = visionRequest(
      [
        { type: 'text', text: 'Hi' },
        { type: 'image_url', image_url: { url: dataUrl('image/png', PNG) } },
      ],
      variant,
    );
    let error: unknown;
    try {
      engine.supports(request);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'unsupported_parameter', param: 'messages[0].content[1]' });
    expect((error as ApiError).message).toMatch(
      /^The model 'svc-vision' does not take image input \('messages\[0\]\.content\[1\]'\): .*no vision projector \(mmproj\)/,
    );
    // Without images the same variant is fine.
    expect(() => engine.supports(visionRequest('Hi', variant))).not.toThrow();
  });
});
