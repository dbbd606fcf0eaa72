// Bench build only (`vite build --mode bench-llama`, driven by scripts/bench-llama.mjs): boots inpage like
// index.html does (the production engine worker, llama.cpp chosen by the deployment's config), and beside it
// wllama called directly in this page, made the way the engine makes it (llamaCppDeps: the same Wllama options
// and cache), loaded with the same file, context and thread count, and asked with the very parameters the engine
// derives from the same /v1 request (translateRequest). Both paths are timed here, in this page.
import '../../src/page/main';
import { activeCatalog, variantOf } from '#shared/catalog';
import { loadConfig } from '#shared/config';
import type { ChatCompletionRequest, Timings } from '#shared/protocol/types';
import { validateChatRequest } from '#shared/protocol/validate';
import type { ModelId } from '#shared/variants';
import { llamaCppDeps } from '../../worker/engine/llamacpp';
import type { WllamaLike } from '../../worker/engine/llamacpp/engine';
import { ggufSource } from '../../worker/engine/llamacpp/models';
import { wasmVariant, type WasmVariant } from '../../worker/engine/llamacpp/wasm-variants';
import type { LlamaChunk } from '../../worker/engine/llamacpp/run';
import { translateRequest } from '../../worker/engine/llamacpp/translate';
import { WEBLLM_DEFAULT_CONTEXT } from '../../worker/engine/webllm/models';
import { withPlan } from '../../worker/engine/common/plan';

/** One generation, timed from the moment it was asked for. */
export interface LlamaSample {
  /** Until the first content token arrived (prefill + one decode step + the path's own cost). */
  ttft: number;
  /** From the first to the last content token. */
  decodeMs: number;
  /** Content deltas received (the decode rate counts the ones after the first). */
  deltas: number;
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
  text: string;
  /** The time between each content delta and the one before it, in ms (the decode's pace, token by token). */
  gaps: number[];
  /** llama.cpp's own timings: /v1 sends them on its finish chunk; directly, wllama's last chunk carries them. */
  timings?: Timings;
}

const api = async () => (await window.inpageReady)!;

async function makeKey(): Promise<string> {
  const inpage = await api();
  await inpage.workspace.register('Bench workspace');
  return (await inpage.keys.create({ name: 'bench' })).key;
}

/** Loads `model` on the engine (the page's engine worker), in ms. */
async function engineLoad(model: ModelId): Promise<number> {
  const inpage = await api();
  await inpage.engine;
  const t0 = performance.now();
  await inpage.engine!.control.load(model);
  return performance.now() - t0;
}

/** A /v1 request, checked once as the service worker checks it (the direct path gets the same one). */
const checked = (body: Record<string, unknown>): ChatCompletionRequest => validateChatRequest(body);

/** One streamed request through fetch → service worker → engine worker → llama.cpp. */
async function viaV1(key: string, body: Record<string, unknown>): Promise<LlamaSample> {
  const t0 = performance.now();
  const res = await fetch('/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true } }),
  });
  if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let first = -1;
  let last = -1;
  let deltas = 0;
  let text = '';
  const gaps: number[] = [];
  type Usage = { prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens?: number } };
  let usage = null as Usage | null;
  let timings: Timings | undefined;
  for (;;) {
    const read = await reader.read();
    if (read.done) break;
    const now = performance.now();
    buffer += decoder.decode(read.value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(6, cut);
      buffer = buffer.slice(cut + 2);
      if (event === '[DONE]') continue;
      const chunk = JSON.parse(event) as { choices: { delta: { content?: string } }[]; usage?: Usage; timings?: Timings; error?: unknown };
      if (chunk.error) throw new Error(`in-band error: ${event}`);
      const content = chunk.choices[0]?.delta.content;
      if (content) {
        if (first < 0) first = now;
        else gaps.push(now - last);
        last = now;
        deltas++;
        text += content;
      }
      if (chunk.usage) usage = chunk.usage;
      if (chunk.timings) timings = chunk.timings;
    }
  }
  if (!usage) throw new Error('no usage chunk');
  if (!timings) throw new Error('no timings on the finish chunk');
  return {
    ttft: first - t0,
    decodeMs: last - first,
    deltas,
    promptTokens: usage.prompt_tokens,
    cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
    completionTokens: usage.completion_tokens,
    text,
    gaps,
    timings,
  };
}

// ---- wllama directly, in this page ----

let direct: { wllama: WllamaLike; threads: number } | null = null;

/**
 * Loads the variant's GGUF into a Wllama of this page's own, as the engine does (same file, context, threads).
 * `wasm`: which of llama.cpp's wasm files (wasm-variants.ts); by default the one the engine picks in this browser.
 */
async function directLoad(
  model: ModelId,
  overrides: Record<string, unknown> = {},
  wasm: WasmVariant = wasmVariant(),
): Promise<{ ms: number; threads: number; url: string; wasm: WasmVariant }> {
  await directExit();
  const config = await loadConfig(location);
  const variant = variantOf(model)!;
  const deps = llamaCppDeps(config, 'bench: wllama directly', false, wasm);
  const source = ggufSource(variant, config, location.origin, activeCatalog());
  const wllama = deps.create();
  const t0 = performance.now();
  await wllama.loadModelFromUrl(
    { url: source.url },
    // `overrides`: load parameters to compare (scripts/profile-llama.mjs --load '{"flash_attn":false}').
    { n_ctx: Math.min(WEBLLM_DEFAULT_CONTEXT, variant.trainedContext), n_threads: deps.threads, n_gpu_layers: 0, useCache: true, ...overrides },
  );
  const ms = performance.now() - t0;
  const info = wllama.getLoadedContextInfo();
  if (info.success === false || !(info.n_ctx > 0)) throw new Error('wllama could not load the model directly');
  direct = { wllama, threads: wllama.getNumThreads() };
  return { ms, threads: direct.threads, url: source.url, wasm };
}

async function directExit(): Promise<void> {
  await direct?.wllama.exit().catch(() => undefined);
  direct = null;
}

/** The same request straight to wllama, with the parameters the engine derives from it (translateRequest). */
async function viaWllama(body: Record<string, unknown>): Promise<LlamaSample> {
  if (!direct) throw new Error('directLoad() first');
  const request = checked(body);
  const variant = variantOf(request.model)!;
  const params = translateRequest(withPlan({ ...request, variant }), new Map());
  const t0 = performance.now();
  const stream = await direct.wllama.createChatCompletion({
    ...params,
    stream: true,
    stream_options: { include_usage: true },
    timings_per_token: true,
    return_progress: true,
    abortSignal: new AbortController().signal,
  });
  let first = -1;
  let last = -1;
  let deltas = 0;
  let text = '';
  const gaps: number[] = [];
  let usage = null as LlamaChunk['usage'];
  let timings: LlamaSample['timings'];
  for await (const chunk of stream) {
    const now = performance.now();
    let content = chunk.choices[0]?.delta.content;
    // The engine drops the answer's leading newlines (llama.cpp's echo of the empty thinking block, run.ts):
    // so is the first content token here the one /v1 sends first.
    if (content && !text) content = content.replace(/^\n+/, '');
    if (content) {
      if (first < 0) first = now;
      else gaps.push(now - last);
      last = now;
      deltas++;
      text += content;
    }
    if (chunk.usage) usage = chunk.usage;
    if (chunk.timings) timings = chunk.timings as Timings;
  }
  if (!usage) throw new Error('no usage from wllama');
  return {
    ttft: first - t0,
    decodeMs: last - first,
    deltas,
    promptTokens: usage.prompt_tokens,
    cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
    completionTokens: usage.completion_tokens,
    text,
    gaps,
    timings,
  };
}

/**
 * What the engine reports about where it runs the model (/v1/models), whether the page is isolated, and the wasm
 * variant this browser's detection picks (the engine worker runs the same detection in the same browser).
 */
async function runtime(key: string, model: ModelId): Promise<{ isolated: boolean; engine: unknown; wasm: WasmVariant }> {
  const res = await fetch('/v1/models', { headers: { authorization: `Bearer ${key}` } });
  const json = (await res.json()) as { data: { id: string; engine?: unknown }[] };
  return { isolated: self.crossOriginIsolated, engine: json.data.find((m) => m.id === model)?.engine, wasm: wasmVariant() };
}

const benchLlama = { makeKey, engineLoad, viaV1, directLoad, directExit, viaWllama, runtime };

declare global {
  interface Window {
    benchLlama: typeof benchLlama;
  }
}

window.benchLlama = benchLlama;
