// One download per browser (docs/shared-models.md): inpage's consumer mode against a provider deployment, in
// Debian's Chromium (puppeteer-core, test/saa/harness.mjs: storage-access grants written into the profile's
// Preferences, as an answered prompt stores them). The production build on five sites (server.ts); a GGUF model
// synthesized here (scripts/gguf/synthesize.ts) is served by each site and counted. `npm run test:shared`.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { synthesizeGguf } from '../../scripts/gguf/synthesize';
import { ggufPath } from '../browser/llamacpp-host';
import { PROD_BUILD_DIR } from '../browser/static-server';
import { launch, storageAccessGrants, evaluateWithoutGesture } from '../saa/harness.mjs';
import { serveSharedSites, type SharedSites } from './server';
import { Processes } from '../harness/processes';
import { validateChatRequest } from '#shared/protocol/validate';
import { engineWorkerCsp } from '#shared/csp';
import {
  allowInFrame,
  chat,
  ctx,
  LOCAL_IDS,
  WAIT_MS,
  listedSites,
  MODEL,
  modelEntry,
  openConsumer,
  PREFERS_UPSTREAM,
  PROVIDER_CATALOG,
  PROVIDER_MODELS,
  providerCard,
  providerUpstreamLog,
  ready,
  SCREENS,
  throughOwnFrame,
  toggleModel,
  until,
  UP_ONLY,
  UPSTREAM_PORT,
} from './steps';

let sites: SharedSites;
let browser: Awaited<ReturnType<typeof launch>>;
/** The upstream server: its output kept and shown if its start fails. */
const processes = new Processes();

before(async () => {
  const model = synthesizeGguf({ seed: 7 });
  ctx.sites = sites = await serveSharedSites(PROD_BUILD_DIR, ggufPath('qwen3-1.7b'), model.bytes);
  const { origins } = sites;
  sites.configure('provider', {
    engineChoice: 'llamacpp',
    ggufBaseUrl: `${origins.provider}/gguf`,
    engineHeartbeatMs: 0,
    upstreams: { gpu: { url: `http://127.0.0.1:${UPSTREAM_PORT}/shared-p/openai/v1`, dialect: 'openai' } },
    models: PROVIDER_MODELS,
  });
  for (const role of ['consumerA', 'consumerB', 'consumerC', 'consumerD'] as const) {
    sites.configure(role, { engineChoice: 'llamacpp', ggufBaseUrl: '/gguf', engineHeartbeatMs: 0, modelProvider: origins.provider, modelProviderWaitMs: 8000 });
  }
  // D also has an upstream for MODEL (hybrid, prefer-local): where the provider cannot serve, the upstream answers
  // while D's own copy is not there.
  sites.configure('consumerD', {
    engineChoice: 'llamacpp',
    ggufBaseUrl: '/gguf',
    engineHeartbeatMs: 0,
    modelProvider: origins.provider,
    modelProviderWaitMs: 8000,
    upstreams: { gpu: { url: `http://127.0.0.1:${UPSTREAM_PORT}/shared-d/openai/v1`, dialect: 'openai' } },
    models: { [MODEL]: { mode: 'prefer-local', upstream: { model: `up/${MODEL}` } } },
  });
  const upstream = processes.start('the upstream server', process.execPath, [
    '--import',
    './test/firefox/register-ts.mjs',
    'test/upstream/server.ts',
    String(UPSTREAM_PORT),
  ]);
  await upstream.waitForLine(/^upstream test server on http/, WAIT_MS);
  await upstream.waitForUrl(`http://127.0.0.1:${UPSTREAM_PORT}/ready/_log`, WAIT_MS);
  // The person allowed the provider under A, B and C (an answered prompt); refused it under D.
  ctx.browser = browser = await launch(storageAccessGrants(origins.provider, [origins.consumerA, origins.consumerB, origins.consumerC], [origins.consumerD]));
});

after(async () => {
  await browser?.close().catch(() => undefined);
  await sites?.close().catch(() => undefined);
  await processes.stopAll();
});

test('clickjacking: a click through a see-through provider frame over a button records no consent', async () => {
  const { origins } = sites;
  // A page of site B (the browser allows the provider there, so the click's storage-access call would resolve): its
  // script lays the provider's frame, fully transparent, over a button of its own.
  const page = await browser.browser.newPage();
  page.setDefaultTimeout(WAIT_MS);
  await page.goto(`${origins.consumerB}/a-game`);
  await page.evaluate((provider) => {
    document.body.innerHTML = '<button id="bait" style="position:fixed;left:40px;top:60px;width:300px;height:60px">Play</button>';
    const frame = document.createElement('iframe');
    frame.src = `${provider}/provider.html`;
    Object.assign(frame.style, { position: 'fixed', left: '0', top: '0', width: '480px', height: '320px', border: '0', opacity: '0', zIndex: '10' });
    document.body.append(frame);
    frame.addEventListener('load', () => frame.contentWindow!.postMessage({ type: 'inpage:provider-hello' }, provider));
  }, origins.provider);
  const frame = () => page.frames().find((f) => f.url().startsWith(origins.provider));
  const f = await until('the question in the hidden frame', async () => {
    const found = frame();
    return found && (await evaluateWithoutGesture(found, `!!document.querySelector('#allow')`)) ? found : null;
  });
  // Every box ticked (as earlier clicks through the frame could do), then the person clicks "Play": where the frame's
  // answer lies under it.
  await evaluateWithoutGesture(
    f,
    `for (const b of document.querySelectorAll('#models input')) { b.checked = true; b.dispatchEvent(new Event('change', { bubbles: true })); }`,
  );
  await page.bringToFront();
  const at = JSON.parse((await evaluateWithoutGesture(f, `JSON.stringify(document.getElementById('allow').getBoundingClientRect())`)) as string) as DOMRect;
  await new Promise((ok) => setTimeout(ok, 1000)); // longer than the question must be visible: it never is
  await page.mouse.click(at.x + at.width / 2, at.y + at.height / 2);
  // The frame turns the click down and says so (it was not visible); nothing is stored.
  const outcome = await until('the frame to answer the click', async () =>
    evaluateWithoutGesture(
      f,
      `document.getElementById('unseen')?.hidden === false ? 'unseen' : document.body.innerText.includes('uses the models') ? 'allowed' : ''`,
    ),
  );
  assert.equal(outcome, 'unseen');
  assert.equal(await evaluateWithoutGesture(f, `document.getElementById('provider').dataset.seen`), 'false');
  // Read while the frame is still open (closing its page could cut short a write the click had started), and after.
  assert.deepEqual(
    (await listedSites()).filter(([o]) => o === origins.consumerB),
    [],
    'no consent recorded for B',
  );
  assert.equal(
    await evaluateWithoutGesture(f, `!!document.getElementById('allow') && document.getElementById('unseen').hidden === false`),
    true,
    'the question is still asked',
  );
  await page.close();
  assert.deepEqual(
    (await listedSites()).filter(([o]) => o === origins.consumerB),
    [],
    'no consent recorded for B',
  );
});

test('a model downloaded through site A is used by site B with 0 model bytes fetched', async () => {
  const { origins, modelRequests, modelBytes } = sites;
  const size = synthesizeGguf({ seed: 7 }).bytes.byteLength;
  const a = await openConsumer(origins.consumerA);
  await allowInFrame(a.page, a.frame);
  const keyA = await ready(a.page);
  const first = await chat(a.page, keyA);
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.body.choices[0].message.reasoning_content, 'Let me think.');
  const entryA = await modelEntry(a.page, keyA);
  assert.deepEqual(entryA.provider, {
    origin: origins.provider,
    serving: true,
    why: `the model provider ${origins.provider} serves this site from the files this browser keeps for it`,
  });
  assert.equal(modelBytes.provider, size, 'the provider downloaded the model once, whole');
  assert.equal(modelRequests.consumerA, 0, "A's own copy was never fetched");
  const requestsAfterA = modelRequests.provider;

  const b = await openConsumer(origins.consumerB);
  await allowInFrame(b.page, b.frame);
  const keyB = await ready(b.page);
  const second = await chat(b.page, keyB);
  assert.equal(second.status, 200, JSON.stringify(second.body));
  assert.deepEqual(second.body.choices[0].message, first.body.choices[0].message, 'the same model answered the same way');
  assert.equal(modelBytes.provider, size, 'B was served from the cache A filled: 0 model bytes fetched');
  assert.equal(modelRequests.provider, requestsAfterA, 'not even a request for the model');
  assert.equal(modelRequests.consumerB, 0, "B's own copy was never fetched");
  pages = { a: a.page, b: b.page, keyA, keyB };
  // The provider's engine worker came from the server (no service worker controls the frame), with the engine
  // worker's policy: the origin and the model hosts only, no upstream.
  const scripts = sites.workerRequests.filter((w) => w.path.includes('engine-worker'));
  assert.ok(scripts.length > 0, JSON.stringify(sites.workerRequests));
  const policy = engineWorkerCsp({ modelBaseUrl: '', modelLibBaseUrl: '', ggufBaseUrl: `${origins.provider}/gguf` }, origins.provider);
  assert.doesNotMatch(policy, new RegExp(String(UPSTREAM_PORT)));
  for (const w of scripts) assert.equal(w.csp, policy);
});

let pages: { a: Page; b: Page; keyA: string; keyB: string };

test("a consumer reaches the provider's local models only: other message kinds are refused, and the provider's upstream is never reached", async () => {
  const upOnly = { ...validateChatRequest({ model: UP_ONLY, messages: [{ role: 'user', content: 'Hello' }], max_tokens: 4 }, PROVIDER_CATALOG) };
  const prefersUpstream = validateChatRequest({ model: PREFERS_UPSTREAM, messages: [{ role: 'user', content: 'Hello' }], max_tokens: 4 }, PROVIDER_CATALOG);
  const replies = await throughOwnFrame(
    pages.b,
    [
      ...[
        { type: 'keys', id: 'k' },
        { type: 'GET', id: 'c', path: ['listKeys'] },
        { type: 'responses', id: 'r' },
        { type: 'conversations', id: 'v' },
      ],
      { type: 'generate', id: 'up', request: upOnly },
      { type: 'generate', id: 'pu', request: prefersUpstream },
    ],
    ['k', 'c', 'r', 'v', 'up', 'pu'],
  );
  const last = (id: string) => replies.filter((r) => r.id === id).at(-1);
  assert.deepEqual(
    ['k', 'c', 'r', 'v'].map((id) => [last(id).type, last(id).error.code]),
    Array(4).fill(['error', 'invalid_value']),
  );
  // The provider's upstream-only id: refused (never an id the person could allow here).
  assert.equal(last('up').error?.code, 'engine_unavailable', JSON.stringify(last('up')));
  assert.match(last('up').error.message, new RegExp(`'${UP_ONLY}'`));
  // The id the provider's own page would send upstream first: the frame's engine runs it locally.
  assert.equal(last('pu').type, 'end', JSON.stringify(replies.filter((r) => r.id === 'pu')));
  const start = replies.find((r) => r.id === 'pu' && r.type === 'start');
  assert.ok(!String(start?.servedBy ?? '').startsWith('upstream'), JSON.stringify(start));
  assert.deepEqual(await providerUpstreamLog(), [], 'the upstream server heard nothing from a consumer');
});

test("revoked on the provider's page: the next request is refused, then the consumer falls back and says why", async () => {
  const { origins, modelBytes } = sites;
  const size = synthesizeGguf({ seed: 7 }).bytes.byteLength;
  const provider = await browser.browser.newPage();
  await provider.goto(`${origins.provider}/provider.html`);
  const row = `tr[data-origin="${origins.consumerA}"] button.revoke`;
  await provider.waitForSelector(row);
  await provider.click(row);
  await provider.waitForFunction((o) => document.querySelector(`tr[data-origin="${o}"]`)?.textContent?.includes('revoked'), {}, origins.consumerA);
  await provider.close();
  const refused = await chat(pages.a, pages.keyA);
  assert.equal(refused.status, 503);
  assert.equal(refused.body.error.code, 'engine_unavailable');
  assert.match(refused.body.error.message, /revoked/);
  const entry = await until('the fallback', async () => {
    const e = await modelEntry(pages.a, pages.keyA);
    return e.provider?.serving === false ? e : null;
  });
  assert.match(entry.provider.why, /revoked this site's use of the provider's models/);
  // The Models area says it on the model's card too. The workspace was made through the API, so the page is reloaded
  // to open its areas; it asks the provider again, is refused (revoked), and falls back again.
  await pages.a.reload();
  await pages.a.evaluate(() => {
    location.hash = '#models';
  });
  const card = await until("the Models area's provider note", () => providerCard(pages.a, MODEL)).catch(async (err: unknown) => {
    const seen = await pages.a.evaluate(() => ({
      hash: location.hash,
      cards: document.querySelectorAll('article[data-model]').length,
      text: document.body.innerText.slice(0, 1500),
    }));
    throw new Error(`${String(err)}: ${JSON.stringify(seen)}`);
  });
  assert.match(card, /^Not used: .*revoked this site's use of the provider's models.*This site's own engine runs it\.$/);
  const local = await chat(pages.a, pages.keyA);
  assert.equal(local.status, 200, JSON.stringify(local.body));
  assert.equal(modelBytes.consumerA, size, "A's own engine downloaded its own copy");
});

test('the provider frame closed mid-stream: the stream ends with a contract-shaped error', async () => {
  const status = await pages.b.evaluate(
    async (key, model) => {
      const res = await fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Tell a long story' }], max_tokens: 3500, temperature: 0, stream: true }),
      });
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      // Mid-stream: the frame goes once the first words arrived (a request begun with nothing sent yet would move
      // to the next provider port instead, docs/tabs.md).
      let text = '';
      while (!/"content":"[^"]/.test(text)) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
      (window as unknown as { rest: Promise<string> }).rest = (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return text;
          text += decoder.decode(value);
        }
      })();
      document.getElementById('inpage-provider-frame')!.remove();
      return res.status;
    },
    pages.keyB,
    MODEL,
  );
  assert.equal(status, 200);
  const text: string = await pages.b.evaluate(() => (window as unknown as { rest: Promise<string> }).rest);
  const events = text
    .split('\n')
    .filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]')
    .map((l) => JSON.parse(l.slice(6)));
  const last = events.at(-1);
  assert.equal(last.error?.code, 'engine_unavailable', text.slice(-400));
  assert.ok(!events.some((e) => e.choices?.[0]?.finish_reason), 'it did not finish: the frame went away first');
});

test('a site never asked and a site the browser refused get nothing; each falls back and says why; the upstream of the refused one answers', async () => {
  const { origins } = sites;
  const c = await openConsumer(origins.consumerC);
  const keyC = await ready(c.page);
  const entryC = await modelEntry(c.page, keyC);
  assert.equal(entryC.provider.serving, false);
  assert.match(entryC.provider.why, /did not offer its models within 8 s/);
  const d = await openConsumer(origins.consumerD);
  await allowInFrame(d.page, d.frame);
  const keyD = await ready(d.page);
  const entryD = await modelEntry(d.page, keyD);
  assert.equal(entryD.provider.serving, false);
  assert.match(entryD.provider.why, /refused: the browser refused storage access \(NotAllowedError/);
  // D's fallback is its own engine with its upstream: the model is not on D, so the upstream answers (prefer-local).
  assert.equal(entryD.serving?.engine, 'upstream', JSON.stringify(entryD));
  const answerD = await chat(d.page, keyD);
  assert.equal(answerD.status, 200, JSON.stringify(answerD.body));
  assert.equal(answerD.servedBy, `upstream; host=127.0.0.1:${UPSTREAM_PORT}`);
  assert.ok(answerD.body.choices[0].message.content.length > 0, JSON.stringify(answerD.body));
  // The provider's list records neither site as allowed.
  const provider = await browser.browser.newPage();
  await provider.goto(`${origins.provider}/provider.html`);
  await provider.waitForSelector('#sites, #no-sites');
  const listed = await provider.evaluate(() => [...document.querySelectorAll('tr')].map((r) => [r.dataset.origin, r.cells[1]!.textContent]));
  assert.deepEqual(
    listed.filter(([o]) => o === origins.consumerC || o === origins.consumerD),
    [],
  );
});

test("consent per model: a site allowed one model runs it from the provider's files and the others on its own engine; the provider's page widens it (no reload), and allows a revoked site again, whose page, shown again, is served again (no reload)", async () => {
  const { origins, modelRequests, modelBytes } = sites;
  const size = synthesizeGguf({ seed: 7 }).bytes.byteLength;
  const allowed = 'svc-model-5.2-short-fast';
  // C was never asked (the test above): the frame asks, with a box per model the provider keeps, none ticked. The
  // tab of the test above, which fell back and hosts C's own engine, goes first: one tab of a site hosts its engine.
  for (const open of await browser.browser.pages()) if (open.url().startsWith(origins.consumerC)) await open.close();
  const c = await openConsumer(origins.consumerC);
  const f = await until('the question with its models', async () => {
    const found = c.frame();
    return found && (await evaluateWithoutGesture(found, `document.querySelectorAll('#models input').length > 0`)) ? found : null;
  });
  const boxes = (await evaluateWithoutGesture(
    f,
    `[...document.querySelectorAll('#models input')].map((b) => b.value + (b.checked ? ' on' : ' off')).join(',')`,
  )) as string;
  // The provider's local ids: not its upstream-only one.
  assert.deepEqual(
    boxes.split(','),
    ['svc-model-5.2', 'svc-model-5.2-fast', 'svc-model-5.2-short', 'svc-model-5.2-short-fast', 'svc-vision', 'svc-embed'].map((id) => `${id} off`),
  );
  assert.equal(await evaluateWithoutGesture(f, `document.getElementById('allow').disabled`), true, 'nothing to allow before a box is ticked');
  // The person ticks one model, looks, and allows.
  await evaluateWithoutGesture(
    f,
    `for (const b of document.querySelectorAll('#models input')) { b.checked = b.value === ${JSON.stringify(allowed)}; b.dispatchEvent(new Event('change', { bubbles: true })); }`,
  );
  // The frame is as tall as its question: the boxes and both buttons show.
  const needed = Number(await evaluateWithoutGesture(f, 'document.documentElement.scrollHeight'));
  const shown = await c.page.evaluate(() => document.getElementById('inpage-provider-frame')!.getBoundingClientRect().height);
  assert.ok(shown >= needed, `the frame is ${shown} px tall, its question ${needed} px`);
  await mkdir(SCREENS, { recursive: true });
  await c.page.screenshot({ path: join(SCREENS, 'consent-question-one-model.png') });
  await allowInFrame(c.page, c.frame, [allowed]);
  const keyC = await ready(c.page);
  const served = await until('the provider serving C', async () => {
    const e = await modelEntry(c.page, keyC, allowed);
    return e.provider?.serving === true ? e : null;
  });
  assert.notEqual(served.state, 'unavailable');
  // The model it was not allowed: C's own engine runs it, beside the provider's (split), and says so per model.
  const mine = await until("C's own engine for the model it was not allowed", async () => {
    const e = await modelEntry(c.page, keyC);
    return e.provider?.serving === false ? e : null;
  });
  assert.equal(mine.provider.origin, origins.provider);
  assert.equal(mine.provider.why, `the model provider ${origins.provider} does not let this site use this model`);
  assert.equal(mine.state, 'not_downloaded');
  assert.equal((await modelEntry(c.page, keyC, allowed)).provider.serving, true);
  const answer = await chat(c.page, keyC, 'Hello', allowed);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.equal(typeof answer.body.choices[0].message.content, 'string');
  assert.equal(modelRequests.consumerC, 0, 'the provider served it from the files it keeps');

  // What a script of C can try on a port of its own: the model it was allowed with the variant of another (the
  // engines run what `variant` names: here svc-model-5.2, another model's weights), and status asked under one id
  // again and again. The variant is refused; the provider fetches no other model's files; every status answer lists
  // only the model C may run.
  const asAllowed = validateChatRequest({ model: allowed, messages: [{ role: 'user', content: 'Hello' }], max_tokens: 4 });
  const other = validateChatRequest({ model: 'svc-model-5.2', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 4 });
  const tried = await throughOwnFrame(
    c.page,
    [
      { type: 'generate', id: 'swap', request: { ...asAllowed, variant: other.variant } },
      ...Array(3).fill({ type: 'status', id: 'dup' }),
      { type: 'generate', id: 'ok', request: asAllowed },
    ],
    ['swap', 'dup', 'dup', 'dup', 'ok'],
  );
  const swap = tried.filter((r) => r.id === 'swap');
  assert.deepEqual(
    swap.map((r) => [r.type, r.error?.code, r.error?.param]),
    [['error', 'invalid_value', 'variant']],
    JSON.stringify(swap),
  );
  assert.deepEqual(
    tried.filter((r) => r.id === 'dup').map((r) => [r.type, r.models.map((m: { id: string }) => m.id)]),
    Array(3).fill(['status', [allowed]]),
  );
  assert.equal(tried.filter((r) => r.id === 'ok').at(-1)?.type, 'end', 'the model C was allowed still runs');
  assert.deepEqual(
    sites.otherModelRequests.filter((url) => url.startsWith(origins.provider)),
    [],
    'the provider fetched no other model',
  );
  // The model C may not run on the provider's: its own engine downloads its own copy and answers.
  const own = await chat(c.page, keyC);
  assert.equal(own.status, 200, JSON.stringify(own.body));
  assert.equal(modelBytes.consumerC, size, "C's own copy, for the model it was not allowed");
  const stillShared = await chat(c.page, keyC, 'Hello again', allowed);
  assert.equal(stillShared.status, 200, JSON.stringify(stillShared.body));
  assert.equal((await modelEntry(c.page, keyC, allowed)).provider.serving, true, 'the allowed model stays with the provider');
  // The Models area says it on each card. The workspace was made through the API, so the page is reloaded to open
  // its areas (it asks the provider again, and splits again; its Models area asks C's server the size of C's files,
  // a request without a byte of the model).
  await c.page.reload();
  await c.page.evaluate(() => {
    location.hash = '#models';
  });
  const cardSays = async (model: string, text: string) => {
    await until(`the Models area's provider note for ${model}`, async () => (await providerCard(c.page, model)) === text).catch(async (err: unknown) => {
      throw new Error(`${String(err)}; it says ${JSON.stringify(await providerCard(c.page, model))}`);
    });
  };
  await cardSays(MODEL, `Not used: the model provider ${origins.provider} does not let this site use this model. This site's own engine runs it.`);
  await cardSays(allowed, `In use: the model provider ${origins.provider} serves this site from the files this browser keeps for it.`);
  await c.page.evaluate((m) => document.querySelector(`article[data-model="${m}"]`)!.scrollIntoView(), MODEL);
  await c.page.screenshot({ path: join(SCREENS, 'consumer-models-split.png') });

  // On the provider's page the person ticks the other model too.
  const provider = await browser.browser.newPage();
  await provider.goto(`${origins.provider}/provider.html`);
  const row = `tr[data-origin="${origins.consumerC}"]`;
  await provider.waitForSelector(`${row} input[value="${MODEL}"]`);
  const ticked = () => provider.evaluate((r) => [...document.querySelectorAll<HTMLInputElement>(`${r} input:checked`)].map((b) => b.value), row);
  assert.deepEqual(await ticked(), [allowed]);
  await toggleModel(provider, row, MODEL, true);
  assert.deepEqual(await ticked(), [MODEL, allowed]);
  // A was revoked (the test above): its row offers to allow it again.
  const rowA = `tr[data-origin="${origins.consumerA}"]`;
  assert.equal(await provider.$eval(`${rowA} button.allow`, (b) => b.textContent), 'Allow again');
  await provider.screenshot({ path: join(SCREENS, 'provider-page-models.png') });
  await provider.click(`${rowA} button.allow`);
  await provider.waitForSelector(`${rowA} button.revoke`);
  assert.match(await provider.$eval(rowA, (r) => r.textContent ?? ''), /granted/);
  await provider.close();
  // C's engine reads what the provider serves it every 2 s: the widened consent reaches it without a reload.
  await c.page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
  const again = await until('the provider serving C that model too', async () => {
    const e = await modelEntry(c.page, keyC);
    return e.provider?.serving === true && e.state !== 'unavailable' ? e : null;
  });
  assert.equal(again.provider.origin, origins.provider);
  const now = await chat(c.page, keyC);
  assert.equal(now.status, 200, JSON.stringify(now.body));
  assert.equal(modelBytes.consumerC, size, 'nothing more fetched by C');
  assert.equal(await c.page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument), true, 'the page was not reloaded');
  // The provider's frame goes away: the heartbeat notices, C's page gives the provider up whole, and an engine of its
  // own, without the provider's beside it, replaces the split one. Its copy serves both ids (they share the weights).
  await c.page.evaluate(() => document.getElementById('inpage-provider-frame')!.remove());
  const gone = await until('C giving the provider up', async () => {
    const e = await modelEntry(c.page, keyC, allowed);
    return e.provider?.serving === false ? e : null;
  });
  assert.match(gone.provider.why, /stopped answering \(its frame or engine is gone\)/);
  const alone = await chat(c.page, keyC, 'Hello', allowed);
  assert.equal(alone.status, 200, JSON.stringify(alone.body));
  assert.equal(modelBytes.consumerC, size, "C's own copy answered: nothing more fetched");

  // A, allowed again: its page, shown again, is served by the provider once more, and its own engine has ended.
  const ownEngine = () => pages.a.workers().filter((w) => w.url().startsWith(origins.consumerA)).length;
  assert.ok(ownEngine() > 0, "A's page runs its own engine since the revocation");
  await pages.a.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
  await pages.a.bringToFront();
  const backA = await until('the provider serving A again', async () => {
    const e = await modelEntry(pages.a, pages.keyA);
    return e.provider?.serving === true ? e : null;
  });
  assert.match(backA.provider.why, /serves this site from the files this browser keeps for it/);
  const answerA = await chat(pages.a, pages.keyA);
  assert.equal(answerA.status, 200, JSON.stringify(answerA.body));
  assert.equal(await pages.a.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument), true, 'the page was not reloaded');
  await until("A's own engine worker ending", async () => ownEngine() === 0);

  // The person now unticks that model for A on the provider's page. A's next request for it meets the refusal (503,
  // naming the model); A's page then runs that model on its own engine, the provider the others.
  const again2 = await browser.browser.newPage();
  await again2.goto(`${origins.provider}/provider.html`);
  await again2.waitForSelector(`${rowA} input[value="${MODEL}"]`);
  await toggleModel(again2, rowA, MODEL, false);
  await again2.close();
  await pages.a.bringToFront();
  const narrowed = await chat(pages.a, pages.keyA);
  assert.equal(narrowed.status, 503, JSON.stringify(narrowed.body));
  assert.match(narrowed.body.error.message, /this site may not use the model 'svc-model-5\.2-short' of the provider/);
  const split = await until("A's own engine for that model", async () => {
    const e = await modelEntry(pages.a, pages.keyA);
    return e.provider?.serving === false ? e : null;
  });
  assert.match(split.provider.why, /does not let this site use this model/);
  const bytesBefore = sites.modelBytes.consumerA;
  const mineA = await chat(pages.a, pages.keyA);
  assert.equal(mineA.status, 200, JSON.stringify(mineA.body));
  assert.equal(sites.modelBytes.consumerA, bytesBefore, 'A ran its own copy, kept since the revocation');
  assert.equal((await modelEntry(pages.a, pages.keyA, allowed)).provider.serving, true, 'the provider still serves A the others');
});

test("the question at top level (where a browser cannot verify a frame is visible): the provider's own page asks about a site, no box ticked; an insecure site is not asked about", async () => {
  const { origins } = sites;
  const site = 'https://app.example';
  const page = await browser.browser.newPage();
  page.setDefaultTimeout(WAIT_MS);
  await page.goto(`${origins.provider}/provider.html?site=${encodeURIComponent(site)}`);
  await page.waitForSelector('#models input');
  assert.deepEqual(
    await page.$$eval('#models input', (boxes) => boxes.map((b) => `${(b as HTMLInputElement).value} ${(b as HTMLInputElement).checked ? 'on' : 'off'}`)),
    LOCAL_IDS.map((id) => `${id} off`),
  );
  await page.click(`#models input[value="${MODEL}"]`);
  await page.click('#allow');
  await page.waitForFunction((s) => document.body.innerText.includes(`${s} may use the models you ticked`), {}, site);
  await page.goto(`${origins.provider}/provider.html?site=${encodeURIComponent('http://app.example')}`);
  await page.waitForFunction(() => document.body.innerText.includes('cannot be asked about'));
  await page.close();
  const provider = await browser.browser.newPage();
  await provider.goto(`${origins.provider}/provider.html`);
  const row = `tr[data-origin="${site}"]`;
  await provider.waitForSelector(row);
  const ticked = await provider.$$eval(`${row} input:checked`, (boxes) => boxes.map((b) => (b as HTMLInputElement).value));
  assert.deepEqual([await provider.$eval(row, (r) => (r as HTMLTableRowElement).cells[1]!.textContent), ticked], ['granted', [MODEL]]);
  assert.equal(await provider.$(`tr[data-origin="http://app.example"]`), null);
  await provider.close();
});

test('an opaque consumer (a sandboxed frame embeds the provider) is neither asked nor served', async () => {
  const { origins } = sites;
  const page = await browser.browser.newPage();
  page.setDefaultTimeout(WAIT_MS);
  await page.goto(`${origins.consumerB}/sandboxed`);
  // A frame sandboxed without allow-same-origin has an opaque origin ('null'); it embeds the provider and says hello.
  await page.evaluate((provider) => {
    const sandboxed = document.createElement('iframe');
    sandboxed.sandbox.add('allow-scripts');
    sandboxed.srcdoc = `<iframe src="${provider}/provider.html" onload="this.contentWindow.postMessage({ type: 'inpage:provider-hello' }, '*')"></iframe>`;
    document.body.append(sandboxed);
  }, origins.provider);
  const said = await until("the provider frame's answer", async () => {
    const frame = page.frames().find((f) => f.url().startsWith(origins.provider));
    const text = frame ? String(await evaluateWithoutGesture(frame, 'document.body.innerText')) : '';
    return /Waiting|Starting/.test(text) ? null : text;
  });
  await page.close();
  assert.match(said, /^Not offered: a site that uses this browser's models must be https \(or plain http on this machine, in development\), not null\.$/);
});
