// Test build only: boots inpage like index.html does, and adds what the benchmark driver (scripts/bench.mjs)
// and the hostile-input tests need on `window.bench`:
//  - a second engine worker, spoken to directly over a MessageChannel with the engine protocol: the
//    baseline that `fetch` → service worker → engine worker is measured against;
//  - runners for the overhead, ceiling, load and sequential scenarios, all timed in this page;
//  - the property-based run over /v1 (bench.hostile.ts).
import * as Comlink from 'comlink';
import '../../src/page/main';
import { loadConfig } from '#shared/config';
import type { EngineControl } from '#shared/wire/engine-control';
import { unpackEvents, type FromEngine, type ToEngine } from '#shared/wire/engine-port';
import type { ChatCompletionRequest } from '#shared/protocol/types';
import { validateChatRequest } from '#shared/protocol/validate';
import { runHostile } from './bench.hostile';

const MODEL = 'svc-model-5.2-fast';

/** Timings of one request, in ms from the moment it was sent. */
export interface Sample {
  /** First byte of the body (service worker) / the engine's `start` (direct). */
  ttfb: number;
  /** First content token. */
  ttft: number;
  /** Last event ([DONE] / `end`). */
  total: number;
  /** Content tokens received. */
  tokens: number;
  /** Body bytes received (the floor's runs). */
  bytes?: number;
}

// ---- The direct baseline: an engine worker of our own, the engine protocol over a MessageChannel ----

interface Direct {
  port: MessagePort;
  handlers: Map<string, (m: FromEngine) => void>;
}

let direct: Direct | null = null;
let nextId = 0;

async function startDirect(): Promise<Direct> {
  if (direct) return direct;
  const config = await loadConfig(location);
  const worker = new Worker(new URL('../../worker/engine/engine-worker.ts', import.meta.url), { type: 'module', name: 'bench-direct-engine' });
  const control = Comlink.wrap<EngineControl>(worker);
  await control.init(config);
  const channel = new MessageChannel();
  await control.connect(Comlink.transfer(channel.port1, [channel.port1]));
  const handlers = new Map<string, (m: FromEngine) => void>();
  channel.port2.onmessage = (e: MessageEvent<FromEngine>) => {
    if (e.data.type !== 'holding') handlers.get(e.data.id)?.(e.data);
  };
  channel.port2.start();
  direct = { port: channel.port2, handlers };
  return direct;
}

function directRun(request: ChatCompletionRequest): Promise<Sample> {
  const d = direct;
  if (!d) throw new Error('startDirect() first');
  const id = `d${++nextId}`;
  return new Promise<Sample>((resolve, reject) => {
    const t0 = performance.now();
    let ttfb = -1;
    let ttft = -1;
    let tokens = 0;
    d.handlers.set(id, (m) => {
      switch (m.type) {
        case 'start':
          ttfb = performance.now() - t0;
          return;
        case 'events':
          for (const event of unpackEvents(m.events)) {
            if (event.type === 'delta' && event.content) {
              if (tokens === 0) ttft = performance.now() - t0;
              tokens++;
            }
          }
          return;
        case 'end':
          d.handlers.delete(id);
          resolve({ ttfb, ttft, total: performance.now() - t0, tokens });
          return;
        case 'error':
          d.handlers.delete(id);
          reject(new Error(`direct engine error: ${m.error.code}: ${m.error.message}`));
          return;
        default:
          return;
      }
    });
    d.port.postMessage({ type: 'generate', id, request } satisfies ToEngine);
  });
}

// ---- Through the service worker ----

const headersFor = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

/** One streamed request through fetch → service worker → engine, timed like `directRun`. */
async function swRun(key: string, request: ChatCompletionRequest): Promise<Sample> {
  const t0 = performance.now();
  const res = await fetch('/v1/chat/completions', { method: 'POST', headers: headersFor(key), body: JSON.stringify({ ...request, stream: true }) });
  if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let ttfb = -1;
  let ttft = -1;
  let tokens = 0;
  let buffer = '';
  let done = false;
  while (!done) {
    const read = await reader.read();
    if (read.done) break;
    if (ttfb < 0) ttfb = performance.now() - t0;
    buffer += decoder.decode(read.value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(6, cut);
      buffer = buffer.slice(cut + 2);
      if (event === '[DONE]') {
        done = true;
        break;
      }
      const chunk = JSON.parse(event) as { choices: { delta: { content?: string } }[]; error?: unknown };
      if (chunk.error) throw new Error(`in-band error: ${event}`);
      if (chunk.choices[0]?.delta.content) {
        if (tokens === 0) ttft = performance.now() - t0;
        tokens++;
      }
    }
  }
  return { ttfb, ttft, total: performance.now() - t0, tokens };
}

const countRequest = (n: number): ChatCompletionRequest => validateChatRequest({ model: MODEL, messages: [{ role: 'user', content: `count ${n}` }] });

/** `n` streamed requests of `count` tokens each way, alternating, so both paths see the same machine state. */
async function overhead(key: string, n: number, count: number, warm = 10): Promise<{ sw: Sample[]; direct: Sample[] }> {
  await startDirect();
  const request = countRequest(count);
  // Warm both paths (JIT, model "load" of the test engine, IndexedDB connection).
  for (let i = 0; i < warm; i++) {
    await swRun(key, request);
    await directRun(request);
  }
  const sw: Sample[] = [];
  const dir: Sample[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) {
      sw.push(await swRun(key, request));
      dir.push(await directRun(request));
    } else {
      dir.push(await directRun(request));
      sw.push(await swRun(key, request));
    }
  }
  return { sw, direct: dir };
}

/** Streamed chunks per second: one long stream of `count` tokens, counted without parsing. */
async function ceiling(key: string, count: number): Promise<{ sw: { chunks: number; ms: number; bytes: number }; direct: { chunks: number; ms: number } }> {
  await startDirect();
  const request = countRequest(count);
  // Through the service worker: every event is one chunk; count the content ones (all but role, finish, [DONE]).
  const t0 = performance.now();
  const res = await fetch('/v1/chat/completions', { method: 'POST', headers: headersFor(key), body: JSON.stringify({ ...request, stream: true }) });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let events = 0;
  let first = -1;
  let bytes = 0;
  for (;;) {
    const read = await reader.read();
    if (read.done) break;
    if (first < 0) first = performance.now();
    bytes += read.value.byteLength;
    const text = decoder.decode(read.value, { stream: true });
    for (let at = text.indexOf('\n\n'); at >= 0; at = text.indexOf('\n\n', at + 2)) events++;
  }
  const swMs = performance.now() - (first >= 0 ? first : t0);
  const d = await directRun(request);
  return { sw: { chunks: events - 3, ms: swMs, bytes }, direct: { chunks: d.tokens, ms: d.total - d.ttfb } };
}

type Outcome = 'completed' | 'aborted' | '429' | 'error' | 'hung';

interface LoadReport {
  counts: Record<Outcome, number>;
  errors: string[];
  /** Status codes other than 200 and 429, with counts. */
  statuses: Record<string, number>;
}

/**
 * One client: streaming or JSON, optionally aborting after `abortAfterMs`. Its outcome, or `hung` if it has not
 * settled within `deadlineMs` (the request is then aborted so the run can end).
 */
async function client(
  key: string,
  kind: 'stream' | 'json' | 'abort',
  count: number,
  deadlineMs: number,
): Promise<{ outcome: Outcome; detail?: string; status?: number }> {
  const controller = new AbortController();
  const body = JSON.stringify({ ...countRequest(count), stream: kind !== 'json' });
  let hung = false;
  const deadline = setTimeout(() => {
    hung = true;
    controller.abort();
  }, deadlineMs);
  try {
    const res = await fetch('/v1/chat/completions', { method: 'POST', headers: headersFor(key), body, signal: controller.signal });
    if (res.status === 429) {
      await res.text();
      return { outcome: '429', status: 429 };
    }
    if (res.status !== 200) return { outcome: 'error', status: res.status, detail: await res.text() };
    if (kind === 'json') {
      const json = (await res.json()) as { choices?: { message: { content: string } }[] };
      const expected = Array.from({ length: count }, (_, i) => String(i + 1)).join(' ');
      return json.choices?.[0]?.message.content === expected ? { outcome: 'completed' } : { outcome: 'error', detail: JSON.stringify(json).slice(0, 200) };
    }
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    for (;;) {
      const read = await reader.read();
      if (read.done) break;
      text += decoder.decode(read.value, { stream: true });
      if (kind === 'abort' && text.split('\n\n').length > 3) {
        controller.abort();
        return { outcome: 'aborted' };
      }
    }
    if (text.includes('"error"')) return { outcome: 'error', detail: text.slice(-300) };
    return text.endsWith('data: [DONE]\n\n') ? { outcome: 'completed' } : { outcome: 'error', detail: `no [DONE]: ${text.slice(-200)}` };
  } catch (err) {
    if (hung) return { outcome: 'hung' };
    if (kind === 'abort' && controller.signal.aborted) return { outcome: 'aborted' };
    return { outcome: 'error', detail: String(err) };
  } finally {
    clearTimeout(deadline);
  }
}

function report(results: { outcome: Outcome; detail?: string; status?: number }[]): LoadReport {
  const counts: Record<Outcome, number> = { completed: 0, aborted: 0, '429': 0, error: 0, hung: 0 };
  const statuses: Record<string, number> = {};
  const errors: string[] = [];
  for (const r of results) {
    counts[r.outcome]++;
    if (r.status && r.status !== 429) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    if (r.outcome === 'error' && errors.length < 5) errors.push(`${r.status ?? ''} ${r.detail ?? ''}`);
  }
  return { counts, errors, statuses };
}

const kindOf = (i: number): 'stream' | 'json' | 'abort' => (i % 5 === 4 ? 'abort' : i % 2 === 0 ? 'stream' : 'json');

/** `clients` concurrent fetch clients: streaming and JSON mixed, every fifth one aborting mid-stream. */
async function load(key: string, clients: number, count: number, deadlineMs: number): Promise<LoadReport> {
  const results = await Promise.all(Array.from({ length: clients }, (_, i) => client(key, kindOf(i), count, deadlineMs)));
  return report(results);
}

/** `n` requests one after another, the same mix. */
async function sequential(key: string, n: number, count: number, deadlineMs: number): Promise<LoadReport & { ms: number }> {
  const t0 = performance.now();
  const results = [];
  for (let i = 0; i < n; i++) results.push(await client(key, kindOf(i), count, deadlineMs));
  return { ...report(results), ms: performance.now() - t0 };
}

async function makeKey(name: string): Promise<string> {
  const api = await window.inpageReady!;
  await api.workspace.register('Bench workspace');
  return (await api.keys.create({ name })).key;
}

/** The first request with a key the service worker has not verified yet: a key-cache miss (digest, IndexedDB). */
async function keyMiss(count: number): Promise<Sample> {
  const api = await window.inpageReady!;
  // Making a key tells the service worker, which empties its key memory.
  const { key } = await api.keys.create({ name: `miss-${performance.now()}` });
  return swRun(key, countRequest(count));
}

/** Ceiling through the service worker only (no direct run), as chunks/s over the stream's body. */
async function swCeiling(key: string, count: number): Promise<number> {
  const res = await fetch('/v1/chat/completions', { method: 'POST', headers: headersFor(key), body: JSON.stringify({ ...countRequest(count), stream: true }) });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let events = 0;
  let first = -1;
  for (;;) {
    const read = await reader.read();
    if (read.done) break;
    if (first < 0) first = performance.now();
    const text = decoder.decode(read.value, { stream: true });
    for (let at = text.indexOf('\n\n'); at >= 0; at = text.indexOf('\n\n', at + 2)) events++;
  }
  return ((events - 3) / (performance.now() - first)) * 1000;
}

const bench = { startDirect, overhead, ceiling, swCeiling, load, sequential, makeKey, keyMiss, swRun, directRun, hostile: runHostile };

declare global {
  interface Window {
    bench: typeof bench;
  }
}

window.bench = bench;
