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
import type { Browser, Page } from 'puppeteer-core';
import { storeWhy } from '../../worker/engine/llamacpp/stores';
import { GREETING, assertGreetingAnswer } from '../smoke/llamacpp-answer';
import { SETUP_MS, build, evaluator, firefox, newPage, openApp } from './firefox';

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

/** The engine's report of svc-model-5.2-short in /v1/models. */
async function engineReport(page: Page, key: string): Promise<Record<string, unknown>> {
  const models = (await page.evaluate(async (key: string) => (await fetch('/v1/models', { headers: { authorization: `Bearer ${key}` } })).json(), key)) as {
    data: { id: string; engine: Record<string, unknown> }[];
  };
  return models.data.find((m) => m.id === 'svc-model-5.2-short')!.engine;
}

/**
 * Asks svc-model-5.2-short for 12 tokens and checks the answer whole. If it fails, the error says what the engine
 * reported, the site's storage and what the page logged (a failure here once came after 60 s with no cause).
 */
async function realAnswer(page: Page, key: string): Promise<void> {
  const logs: string[] = [];
  page.on('console', (message) => logs.push(`${message.type()}: ${message.text()}`));
  const asked = performance.now();
  const answer = await chat(evaluator(page), key, GREETING).catch(async (err: unknown) => {
    const states = await page
      .evaluate(async (key: string) => (await fetch('/v1/models', { headers: { authorization: `Bearer ${key}` } })).text(), key)
      .catch((e: unknown) => String(e));
    const storage = await page.evaluate(async () => JSON.stringify(await navigator.storage.estimate())).catch((e: unknown) => String(e));
    throw new Error(
      `${String(err)} after ${Math.round(performance.now() - asked)} ms; /v1/models: ${states}; storage: ${storage}; page console: ${logs.join(' | ')}`,
    );
  });
  assert.equal(answer.status, 200, answer.text);
  assertGreetingAnswer(answer.json);
}

/** Opens the app in a fresh context, checks the engine chose llama.cpp (no WebGPU adapter), makes a key. */
async function start(browser: Browser): Promise<{ page: Page; key: string }> {
  const page = await newPage(browser);
  const started = await openApp(page, `${host!.server.origin}/`);
  assert.deepEqual(started, { controlled: true, webgpu: false });
  const adapter = await page.evaluate(async () => (await window.inpageReady)!.engine!.control.adapter());
  assert.equal(adapter.available, false);
  return { page, key: await makeKey(evaluator(page)) };
}

describe('Firefox ESR, production build, llama.cpp', { timeout: 240_000 }, () => {
  const browser = firefox();

  test('a real answer from llama.cpp on the CPU through /v1', async () => {
    const { page, key } = await start(browser());
    await realAnswer(page, key);
    // Firefox ESR 153 has Memory64 and JSPI: wllama's main build, its relaxed-SIMD kernels (as wasm-kernels.test.ts
    // finds Firefox's detection gives); every core (this server sends no isolation headers, so the first visit
    // reloaded once under the service worker, which sends them: src/page/isolation-reload.ts); OPFS keeps the files.
    assert.equal(await page.evaluate(() => self.crossOriginIsolated), true);
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    const engine = await engineReport(page, key);
    assert.deepEqual(
      {
        build: engine.build,
        build_why: engine.build_why,
        wasm: engine.wasm,
        wasm_why: engine.wasm_why,
        threads: engine.threads,
        storage: engine.storage,
      },
      {
        build: 'main',
        build_why: "wllama's main build (Memory64, JSPI).",
        wasm: 'relaxed',
        wasm_why: WASM_VARIANT_WHY.relaxed,
        threads: cores,
        storage: { store: 'opfs', why: storeWhy('opfs', []) },
      },
    );
  });
});

describe('Firefox ESR, production build, llama.cpp, a site whose storage is full', { timeout: 240_000 }, () => {
  // A small quota (in KiB) for the site, filled by the test but for ROOM bytes, fewer than the model's 95 KB.
  const browser = firefox({ 'dom.quotaManager.temporaryStorage.fixedLimit': 8000 });
  const ROOM = 30_000;

  test('the model is kept in memory, the answer comes back whole, and /v1/models says why', async () => {
    const { page, key } = await start(browser());
    const filled = await page.evaluate(async (room: number) => {
      const { quota = 0, usage = 0 } = await navigator.storage.estimate();
      const writable = await (await (await navigator.storage.getDirectory()).getFileHandle('filler', { create: true })).createWritable();
      await writable.write(new Uint8Array(Math.max(0, quota - usage - room)));
      await writable.close();
      const after = await navigator.storage.estimate();
      return (after.quota ?? 0) - (after.usage ?? 0);
    }, ROOM);
    assert.ok(filled <= ROOM, `room left: ${filled} bytes`);
    await realAnswer(page, key);
    const storage = (await engineReport(page, key)).storage as { store: string; why: string };
    assert.equal(storage.store, 'opfs');
    assert.match(
      storage.why,
      /^OPFS \(the origin private file system\): kept across visits; a cut download resumes\. But it is full \(the browser kept \d+ of \d+ bytes written at \d+\): 1 model file\(s\) kept in memory for this page's life only, downloaded again on the next visit\./,
    );
  });
});
