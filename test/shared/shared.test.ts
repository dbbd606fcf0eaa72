// One download per browser (docs/shared-models.md): inpage's consumer mode against a provider deployment, in
// Debian's Chromium (puppeteer-core, test/saa/harness.mjs: storage-access grants written into the profile's
// Preferences, as an answered prompt stores them). The production build on five sites (server.ts); a GGUF model
// synthesized here (scripts/gguf/synthesize.ts) is served by each site and counted. `npm run test:shared`.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { join } from 'node:path';
import type { Frame, Page } from 'puppeteer-core';
import { synthesizeGguf } from '../../scripts/gguf/synthesize';
import { ggufPath } from '../browser/llamacpp-host';
import { PROD_BUILD_DIR } from '../browser/static-server';
import { launch, storageAccessGrants, evaluateWithoutGesture } from '../saa/harness.mjs';
import { serveSharedSites, type SharedSites } from './server';

const MODEL = 'svc-model-5.2-short';
const WAIT_MS = 60_000;
let sites: SharedSites;
let browser: Awaited<ReturnType<typeof launch>>;

before(async () => {
  const model = synthesizeGguf({ seed: 7 });
  sites = await serveSharedSites(PROD_BUILD_DIR, ggufPath('qwen3-1.7b'), model.bytes);
  const { origins } = sites;
  sites.configure('provider', { engineChoice: 'llamacpp', ggufBaseUrl: `${origins.provider}/gguf`, engineHeartbeatMs: 0 });
  for (const role of ['consumerA', 'consumerB', 'consumerC', 'consumerD'] as const) {
    sites.configure(role, { engineChoice: 'llamacpp', ggufBaseUrl: '/gguf', engineHeartbeatMs: 0, modelProvider: origins.provider, modelProviderWaitMs: 8000 });
  }
  // The person allowed the provider under A, B and C (an answered prompt); refused it under D.
  browser = await launch(storageAccessGrants(origins.provider, [origins.consumerA, origins.consumerB, origins.consumerC], [origins.consumerD]));
});

after(async () => {
  await browser?.close();
  await sites?.close();
});

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe().catch(() => null);
    if (value) return value;
    if (Date.now() - started > WAIT_MS) throw new Error(`timed out waiting for ${what}`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
}

/** Opens a consumer's workspace page; its provider frame once it shows. */
async function openConsumer(origin: string): Promise<{ page: Page; frame: () => Frame | undefined }> {
  const page = await browser.browser.newPage();
  page.setDefaultTimeout(WAIT_MS);
  if (process.env.SHARED_DEBUG === '1') {
    page.on('console', (m) => console.log(`[${origin}] ${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => console.log(`[${origin}] pageerror: ${e}`));
  }
  await page.goto(`${origin}/`);
  return { page, frame: () => page.frames().find((f) => f.url().startsWith(sites.origins.provider)) };
}

/** A real click (a user gesture) on a button of the provider's frame. */
async function clickInFrame(page: Page, frame: () => Frame | undefined, selector: string): Promise<void> {
  const f = await until(`the provider frame's ${selector}`, async () => {
    const found = frame();
    return found && (await evaluateWithoutGesture(found, `!!document.querySelector(${JSON.stringify(selector)})`)) ? found : null;
  });
  await page.bringToFront();
  await f.click(selector);
  if (process.env.SHARED_DEBUG === '1') {
    for (let i = 0; i < 6; i++) {
      await new Promise((ok) => setTimeout(ok, 1000));
      console.log('[frame]', await evaluateWithoutGesture(f, 'document.body.innerText + " | isolated=" + crossOriginIsolated').catch((e: unknown) => String(e)));
    }
  }
}

async function ready(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const api = await window.inpageReady!;
    await api.workspace.register('Test workspace');
    return (await api.keys.create({ name: 'test' })).key;
  });
}

async function chat(page: Page, key: string, content = 'Hello'): Promise<{ status: number; body: any; servedBy: string | null }> {
  return page.evaluate(async (key, model, content) => {
    const res = await fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content }], max_tokens: 12, temperature: 0 }),
    });
    return { status: res.status, body: await res.json(), servedBy: res.headers.get('x-inpage-served-by') };
  }, key, MODEL, content);
}

async function modelEntry(page: Page, key: string): Promise<any> {
  return page.evaluate(async (key, model) => (await (await fetch(`/v1/models/${model}`, { headers: { authorization: `Bearer ${key}` } })).json()), key, MODEL);
}

test('a model downloaded through site A is used by site B with 0 model bytes fetched', async () => {
  const { origins, modelRequests, modelBytes } = sites;
  const size = synthesizeGguf({ seed: 7 }).bytes.byteLength;
  const a = await openConsumer(origins.consumerA);
  await clickInFrame(a.page, a.frame, '#allow');
  const keyA = await ready(a.page);
  const first = await chat(a.page, keyA);
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.body.choices[0].message.reasoning_content, 'Let me think.');
  const entryA = await modelEntry(a.page, keyA);
  assert.deepEqual(entryA.provider, { origin: origins.provider, serving: true, why: `the model provider ${origins.provider} serves this site from the files this browser keeps for it` });
  assert.equal(modelBytes.provider, size, 'the provider downloaded the model once, whole');
  assert.equal(modelRequests.consumerA, 0, "A's own copy was never fetched");
  const requestsAfterA = modelRequests.provider;

  const b = await openConsumer(origins.consumerB);
  await clickInFrame(b.page, b.frame, '#allow');
  const keyB = await ready(b.page);
  const second = await chat(b.page, keyB);
  assert.equal(second.status, 200, JSON.stringify(second.body));
  assert.deepEqual(second.body.choices[0].message, first.body.choices[0].message, 'the same model answered the same way');
  assert.equal(modelBytes.provider, size, 'B was served from the cache A filled: 0 model bytes fetched');
  assert.equal(modelRequests.provider, requestsAfterA, 'not even a request for the model');
  assert.equal(modelRequests.consumerB, 0, "B's own copy was never fetched");
  await a.page.close();
  await b.page.close();
});
