// WebKit smoke set, production build: one real llama.cpp answer on the CPU in Safari's engine (WebKitGTK: no
// WebGPU, no JSPI, no Memory64, no OPFS, not cross-origin isolated), from the GGUF synthesized at test time and
// served by the same deployment the Chromium and Firefox llama.cpp tests use (test/browser/llamacpp-host.ts). What
// it takes there: wllama's compat build from the deployment's own files, with llama.cpp's SIMD kernels of the variant
// WebKit's own detection picks (scripts/wasm-kernels: the 32-bit kernels checked against ggml's references in this
// browser first), one thread, and the model files kept in the store this browser has; /v1/models and the Models
// area say each, with why. The answer is native llama.cpp's on the same file, token for token.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { synthesizeGguf } from '../../scripts/gguf/synthesize';
import { chat, makeKey } from '../browser/helpers';
import { engineCache } from '#shared/engine-files';
import { isolationHeaders } from '#shared/isolation';
import { WASM_VARIANT_WHY, type WasmVariant } from '../../worker/engine/llamacpp/wasm-detect';
import { assertKernelResults, checkKernelFileInPage, detectInPage, kernelFileBytes, kernelHarness } from '../kernels/harness';
import { nativeGreedyText } from '../kernels/native-greedy';
import { ggufPath, hostLlamaCppDeployment, type LlamaCppHost } from '../browser/llamacpp-host';
import { SETUP_MS, build, createKeyThroughForm, openApp, registerThroughForm, webkit } from './webkit';
import { GREETING, assertGreetingAnswer } from '../smoke/llamacpp-answer';

interface Models {
  data: {
    id: string;
    state: string;
    why?: string;
    engine?: {
      name: string;
      device: string;
      threads: number;
      threads_why: string;
      build: string;
      build_why: string;
      wasm: WasmVariant;
      wasm_why: string;
      storage: { store: string; why: string };
    };
  }[];
}

describe('WebKit (MiniBrowser), production build, llama.cpp', { timeout: 420_000 }, () => {
  let host: LlamaCppHost | undefined;
  /** Native llama.cpp's greedy answer on the same file to the prompt /v1 makes of one user message "Hello". */
  let native = '';
  before(
    async () => {
      build('production');
      const model = synthesizeGguf({ seed: 7 });
      native = await nativeGreedyText({ model: { seed: 7 }, prompt: '<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n', tokens: 12 });
      host = await hostLlamaCppDeployment({ port: 4185, prefix: 'webkit-gguf', files: (put) => put(ggufPath('qwen3-1.7b'), model.bytes) });
    },
    { timeout: SETUP_MS },
  );
  after(async () => {
    await host?.close();
  });
  const browser = webkit();

  test("the 32-bit kernels are exact here; native llama.cpp's answer from the compat build's detected variant on one thread through /v1; /v1/models and the Models area say build, variant, threads and store, with why", async (t) => {
    const page = browser();
    // WebKit's own detection (wasm-detect.ts) and the kernels of the compat build's memory (32-bit), on a blank page.
    await page.goto('about:blank');
    await page.evaluate(
      (code: string) => {
        const script = document.createElement('script');
        script.textContent = code;
        document.documentElement.append(script);
      },
      await kernelHarness(),
    );
    const detected = await page.evaluate(detectInPage, null);
    t.diagnostic(`WebKit: ${JSON.stringify(detected)}`);
    assert.equal(detected.simd128, true);
    assert.equal(detected.variant, detected.relaxed && detected.exact ? 'relaxed' : 'simd128');
    for (const file of ['wasm32-simd128', 'wasm32-relaxed'] as const) {
      if (file.endsWith('relaxed') && detected.variant !== 'relaxed') continue;
      assertKernelResults(file, await page.evaluate(checkKernelFileInPage, kernelFileBytes(file)));
    }

    const started = await openApp(page, `${host!.server.origin}/`);
    assert.deepEqual(started, { controlled: true, webgpu: false });
    // This server sends no isolation headers: the first visit reloaded once under the service worker (the tab's
    // guard says so), which cannot isolate it here (no COEP credentialless), and did not again.
    assert.deepEqual(
      await page.evaluate(() => ({ isolated: self.crossOriginIsolated, reloaded: sessionStorage.getItem('inpage:isolation-reload') !== null }), null),
      {
        isolated: false,
        reloaded: true,
      },
    );
    // Signed up and a key made through the UI, so the page's Models area is the registered workspace's.
    await registerThroughForm(page, 'WebKit llama.cpp');
    const key = await createKeyThroughForm(page, 'webkit llama key');

    const answer = await chat(page, key, GREETING);
    assert.equal(answer.status, 200, answer.text);
    // The same model, prompt and sampling as in Chromium and Firefox: the same thinking, split the same way.
    const choice = assertGreetingAnswer(answer.json);
    // Token for token native llama.cpp's greedy answer (thinking split off as /v1 splits it).
    assert.equal(`<think> ${choice.message.reasoning_content}</think>${choice.message.content}`, native);

    const models = (await page.evaluate(
      async (key: string) => (await fetch('/v1/models', { headers: { authorization: `Bearer ${key}` } })).json(),
      key,
    )) as Models;
    const short = models.data.find((m) => m.id === 'svc-model-5.2-short')!;
    assert.equal(short.state, 'ready');
    assert.equal(short.why, undefined);
    const engine = short.engine!;
    assert.deepEqual(
      { name: engine.name, device: engine.device, build: engine.build, threads: engine.threads },
      { name: 'llamacpp', device: 'cpu', build: 'compat', threads: 1 },
    );
    assert.match(engine.build_why, /no WebAssembly Memory64 and no JSPI/);
    // The compat build's wasm of the variant WebKit's detection picked, and why; and that file is the one wasm
    // llama.cpp fetched (the service worker keeps the engine's files on first use, in its own cache).
    assert.deepEqual({ wasm: engine.wasm, wasm_why: engine.wasm_why }, { wasm: detected.variant, wasm_why: WASM_VARIANT_WHY[detected.variant as WasmVariant] });
    const kept = await page.evaluate(
      async (name: string) => (await (await caches.open(name)).keys()).map((r) => new URL(r.url).pathname).filter((p) => p.endsWith('.wasm')),
      engineCache('llamacpp'),
    );
    assert.equal(kept.length, 1, JSON.stringify(kept));
    assert.match(kept[0]!, new RegExp(`/wllama-compat-${detected.variant}-[\\w-]+\\.wasm$`));
    assert.match(engine.threads_why, /^One thread: the page is not cross-origin isolated/);
    // WebKitGTK has no OPFS: Cache Storage keeps the files, and says why.
    assert.equal(engine.storage.store, 'cache-storage');
    assert.match(engine.storage.why, /^Cache Storage, because OPFS cannot be used here \(OPFS: this browser has no OPFS/);
    // Every model that cannot run here says why (svc-embed: web-llm only).
    for (const m of models.data.filter((m) => m.state === 'unavailable')) assert.ok(m.why, `${m.id} is unavailable without a why`);

    // The Models area's card says the same.
    await page.click(await page.find('nav a[href="#models"]'));
    const card = await page.textOnceMatching('article[data-model="svc-model-5.2-short"] [data-testid="build"]', /compat build/);
    assert.equal(card, engine.build_why);
    assert.equal(await page.textOnceMatching('article[data-model="svc-model-5.2-short"] [data-testid="wasm"]', /kernels/), engine.wasm_why);
    assert.equal(await page.textOnceMatching('article[data-model="svc-model-5.2-short"] [data-testid="storage"]', /Cache Storage/), engine.storage.why);
    assert.equal(
      await page.textOnceMatching('article[data-model="svc-model-5.2-short"] [data-testid="runtime"]', /thread/),
      'llama.cpp on the CPU, 1 thread (the page is not cross-origin isolated)',
    );
  });
});

// The require-corp variant (docs/engines.md, Threads and cross-origin isolation): a deployment whose server sends
// COOP same-origin and COEP require-corp isolates the page it answers in WebKit. This WebKitGTK gives an isolated
// page no SharedArrayBuffer, so llama.cpp runs one thread here either way.
describe('WebKit (MiniBrowser), production build, llama.cpp, served with COEP require-corp', { timeout: 420_000 }, () => {
  let host: LlamaCppHost | undefined;
  before(
    async () => {
      const model = synthesizeGguf({ seed: 7 });
      host = await hostLlamaCppDeployment({
        port: 4187,
        prefix: 'webkit-corp',
        headers: { ...isolationHeaders('require-corp') },
        files: (put) => put(ggufPath('qwen3-1.7b'), model.bytes),
      });
    },
    { timeout: SETUP_MS },
  );
  after(async () => {
    await host?.close();
  });
  const browser = webkit();

  test('the page is cross-origin isolated, without SharedArrayBuffer; the compat build answers on one thread', async () => {
    const page = browser();
    await openApp(page, `${host!.server.origin}/`);
    assert.deepEqual(await page.evaluate(() => ({ isolated: self.crossOriginIsolated, sharedMemory: typeof SharedArrayBuffer }), null), {
      isolated: true,
      sharedMemory: 'undefined',
    });
    const key = await makeKey(page);
    const answer = await chat(page, key, GREETING);
    assert.equal(answer.status, 200, answer.text);
    assertGreetingAnswer(answer.json);
    const models = (await page.evaluate(
      async (key: string) => (await fetch('/v1/models', { headers: { authorization: `Bearer ${key}` } })).json(),
      key,
    )) as Models;
    const engine = models.data.find((m) => m.id === 'svc-model-5.2-short')!.engine!;
    assert.deepEqual({ build: engine.build, threads: engine.threads }, { build: 'compat', threads: 1 });
    assert.match(engine.threads_why, /^One thread: /);
  });
});
