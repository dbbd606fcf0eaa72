// Firefox smoke set, production build: one real llama.cpp answer on the CPU (Firefox has no WebGPU here, so
// this is the path its users get), from the GGUF synthesized at test time and served by the same deployment
// the Chromium llama.cpp specs use (test/browser/llamacpp-host.ts). The synthesized model at temperature 0
// thinks "<think> Let me think.</think>" first (see scripts/gguf/synthesize.ts), as in llamacpp.prod.spec.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { synthesizeGguf } from '../../scripts/gguf/synthesize';
import { chat, makeKey } from '../browser/helpers';
import { ggufPath, hostLlamaCppDeployment, type LlamaCppHost } from '../browser/llamacpp-host';
import { WASM_VARIANT_WHY } from '../../worker/engine/llamacpp/wasm-detect';
import { SETUP_MS, build, evaluator, firefox, newPage, openApp } from './firefox';

interface Completion {
  choices: { message: { content: string | null; reasoning_content?: string }; finish_reason: string }[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number; completion_tokens_details: { reasoning_tokens: number } };
  system_fingerprint: string;
}

describe('Firefox ESR, production build, llama.cpp', { timeout: 240_000 }, () => {
  let host: LlamaCppHost | undefined;
  before(
    async () => {
      build('production');
      const model = synthesizeGguf({ seed: 7 });
      host = await hostLlamaCppDeployment({ port: 4181, prefix: 'firefox-gguf', files: (put) => put(ggufPath('qwen3-1.7b'), model.bytes) });
    },
    { timeout: SETUP_MS },
  );
  after(async () => {
    await host?.close();
  });
  const browser = firefox();

  test('a real answer from llama.cpp on the CPU through /v1', async () => {
    const page = await newPage(browser());
    const started = await openApp(page, `${host!.server.origin}/`);
    assert.deepEqual(started, { controlled: true, webgpu: false });
    // No WebGPU adapter: the engine chose llama.cpp by itself.
    const adapter = await page.evaluate(async () => (await window.inpageReady)!.engine!.control.adapter());
    assert.equal(adapter.available, false);
    const key = await makeKey(evaluator(page));
    // What the page logged, printed if the answer fails (a failure here once came after 60 s with no cause).
    const logs: string[] = [];
    page.on('console', (message) => logs.push(`${message.type()}: ${message.text()}`));
    const asked = performance.now();
    const answer = await chat(evaluator(page), key, {
      model: 'svc-model-5.2-short',
      messages: [{ role: 'user', content: 'Hello' }],
      temperature: 0,
      max_tokens: 12,
    }).catch(async (err: unknown) => {
      const states = await page
        .evaluate(async (key: string) => (await fetch('/v1/models', { headers: { authorization: `Bearer ${key}` } })).text(), key)
        .catch((e: unknown) => String(e));
      throw new Error(`${String(err)} after ${Math.round(performance.now() - asked)} ms; /v1/models: ${states}; page console: ${logs.join(' | ')}`);
    });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json as Completion;
    assert.match(body.system_fingerprint, /llamacpp/);
    const choice = body.choices[0]!;
    // "<think> Let me think . </think>": 6 tokens of thinking, then 6 of answer, in printable ASCII.
    assert.equal(choice.message.reasoning_content, 'Let me think.');
    assert.match(choice.message.content ?? '', /^[\x20-\x7e]+$/);
    assert.equal(choice.finish_reason, 'length');
    // Prompt tokens by the model's own tokenizer: <|im_start|> user \n Hello <|im_end|> \n <|im_start|> assistant \n.
    assert.deepEqual(
      {
        prompt: body.usage.prompt_tokens,
        completion: body.usage.completion_tokens,
        total: body.usage.total_tokens,
        reasoning: body.usage.completion_tokens_details.reasoning_tokens,
      },
      { prompt: 9, completion: 12, total: 21, reasoning: 6 },
    );
    // Firefox ESR 153 has Memory64 and JSPI: wllama's main build, its relaxed-SIMD kernels (as wasm-kernels.test.ts
    // finds Firefox's detection gives); one thread (this server sends no isolation
    // headers); OPFS keeps the files.
    const models = (await page.evaluate(async (key: string) => (await fetch('/v1/models', { headers: { authorization: `Bearer ${key}` } })).json(), key)) as {
      data: { id: string; engine: Record<string, unknown> }[];
    };
    const engine = models.data.find((m) => m.id === 'svc-model-5.2-short')!.engine;
    assert.deepEqual(
      {
        build: engine.build,
        build_why: engine.build_why,
        wasm: engine.wasm,
        wasm_why: engine.wasm_why,
        threads: engine.threads,
        store: (engine.storage as { store: string }).store,
      },
      { build: 'main', build_why: "wllama's main build (Memory64, JSPI).", wasm: 'relaxed', wasm_why: WASM_VARIANT_WHY.relaxed, threads: 1, store: 'opfs' },
    );
  });
});
