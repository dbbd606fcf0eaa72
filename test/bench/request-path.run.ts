// `npm run bench` part: which product code one chat request with tools runs through in the engine worker, per
// engine: the scheduler, the engine, its translation and its run, measured with V8's precise coverage (call
// counts) around one request after a warm-up one. web-llm runs over its typed fake (test/unit/fakes/webllm-fake.ts),
// llama.cpp over a fake wllama that streams a tool call; both are the production engines' own code. Writes
// JSON to INPAGE_BENCH_PATH_OUT: per engine the product files with a function called, and the calls made.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '#shared/config';
import type { EngineEvent } from '#shared/wire/engine-port';
import { validateChatRequest } from '#shared/protocol/validate';
import type { Engine } from '../../worker/engine/engine';
import { Scheduler } from '../../worker/engine/scheduler';
import { WebLlmEngine } from '../../worker/engine/webllm/adapter';
import { rig } from '../unit/fakes/webllm-fake';
import { fakeWllama, llamaEngineWith } from '../unit/fakes/wllama-fake';

const BODY = {
  model: 'svc-model-5.2-short-fast',
  messages: [
    { role: 'system', content: 'Use the tools.' },
    { role: 'user', content: 'Weather in Oslo?' },
  ],
  tools: [
    { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
  ],
  max_tokens: 64,
  temperature: 0,
};

function webllm(): Engine {
  const r = rig();
  const engine = new WebLlmEngine({ ...DEFAULT_CONFIG, gpuMemoryMB: 65536 }, r.deps);
  return {
    generate: async (request, signal) => {
      r.engine().script = () => ({ pieces: ['<tool_call>', '\n{"name": "get_weather", "arguments": {"city": "Oslo"}}', '\n</tool_call>'] });
      return engine.generate(request, signal);
    },
    status: () => engine.status(),
    onStatus: (l) => engine.onStatus(l),
    supports: (request) => engine.supports(request),
  };
}

function llamacpp(): Engine {
  return llamaEngineWith(
    {},
    fakeWllama({
      chunks: [
        { choices: [{ delta: { tool_calls: [{ index: 0, id: 'c1', function: { name: 'get_weather', arguments: '' } }] }, finish_reason: null }] },
        { choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":"Oslo"}' } }] }, finish_reason: null }] },
        { choices: [{ delta: {}, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 30, completion_tokens: 12 } },
      ],
    }),
  );
}

/** One request through the scheduler, as the engine worker submits it; resolves with its events. */
function submit(scheduler: Scheduler, request = validateChatRequest(structuredClone(BODY))): Promise<EngineEvent[]> {
  return new Promise((resolve, reject) => {
    const events: EngineEvent[] = [];
    scheduler.submit('r', request, {
      accepted: () => undefined,
      start: () => undefined,
      event: (e) => events.push(e),
      end: () => resolve(events),
      error: (err) => reject(err),
    });
  });
}

const root = new URL('../../', import.meta.url).pathname;

async function measure(make: () => Engine) {
  const scheduler = new Scheduler(make(), 4);
  await submit(scheduler); // warm-up: loads the model, imports what is imported on first use
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  // The request as the service worker hands it over (checked there), outside what is measured.
  // The request as the service worker hands it over (checked there), outside what is measured.
  const request = validateChatRequest(structuredClone(BODY));
  await session.post('Profiler.takePreciseCoverage'); // resets the counts
  const events = await submit(scheduler, request);
  const { result } = await session.post('Profiler.takePreciseCoverage');
  await session.post('Profiler.stopPreciseCoverage');
  session.disconnect();
  expect(events.some((e) => e.type === 'tool_call')).toBe(true);
  const files: Record<string, { functions: number; calls: number }> = {};
  for (const script of result) {
    const path = script.url.replace(/^file:\/\//, '');
    if (!path.startsWith(root) || path.includes('/node_modules/') || path.includes('/test/')) continue;
    const file = path.slice(root.length).replace(/\?.*$/, '');
    if (!/^(src|worker)\//.test(file)) continue;
    // The first entry of a script is its module body (run once at import), not a call of this request.
    const called = script.functions.filter((f, i) => i > 0 && f.functionName !== '' && f.ranges[0]!.count > 0);
    if (called.length === 0) continue;
    files[file] = { functions: called.length, calls: called.reduce((sum, f) => sum + f.ranges[0]!.count, 0) };
  }
  return { files: Object.keys(files).length, functions: Object.values(files).reduce((s, f) => s + f.functions, 0), byFile: files };
}

it('measures the engine-worker path of a chat request with tools on web-llm and llama.cpp', async () => {
  const out = { webllm: await measure(webllm), llamacpp: await measure(llamacpp) };
  for (const [name, m] of Object.entries(out)) {
    console.log(`${name}: ${m.files} files, ${m.functions} functions called`);
    for (const [file, f] of Object.entries(m.byFile)) console.log(`  ${file}: ${f.functions} functions, ${f.calls} calls`);
  }
  if (process.env.INPAGE_BENCH_PATH_OUT) writeFileSync(process.env.INPAGE_BENCH_PATH_OUT, JSON.stringify(out));
  expect(out.webllm.files).toBeGreaterThan(0);
}, 60_000);
