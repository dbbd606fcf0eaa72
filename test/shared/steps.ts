// The steps of test:shared (shared.test.ts): the sites' settings, and what a person or a site's script does in the
// pages and the provider's frames. `ctx` holds the servers and the browser once shared.test.ts has started them.
import type { Frame, Page } from 'puppeteer-core';
import { buildCatalog } from '#shared/model-config';
import { localIds } from '../../src/provider/consent';
import { evaluateWithoutGesture, type launch } from '../saa/harness.mjs';
import type { SharedSites } from './server';

/** An answer's JSON, of whichever shape: the tests read it field by field. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each test asserts the fields it reads
type Json = any;

export const ctx = {} as { sites: SharedSites; browser: Awaited<ReturnType<typeof launch>> };

export const MODEL = 'svc-model-5.2-short';
export const WAIT_MS = 60_000;
/** Screenshots of what the person sees (the frame's question, the provider's page), to look at. */
export const SCREENS = 'test-results/shared';
/** The OpenAI-compatible upstream (test/upstream/server.ts) site D falls back to: 4905 + INPAGE_PORT_OFFSET. */
export const UPSTREAM_PORT = 4905 + Number(process.env.INPAGE_PORT_OFFSET ?? 0);
/**
 * The provider's own `models`: an id only its upstream answers, and one of the five it prefers to send upstream. A
 * consumer must reach neither upstream (the provider's frame runs its local models only), which the upstream's log
 * for the tag `shared-p` shows.
 */
export const UP_ONLY = 'shared-up-only';
export const PREFERS_UPSTREAM = 'svc-model-5.2-short-fast';
export const PROVIDER_MODELS = {
  [PREFERS_UPSTREAM]: { mode: 'prefer-upstream', upstream: { model: `up/${PREFERS_UPSTREAM}` } },
  [UP_ONLY]: { mode: 'upstream', upstream: { model: 'up/svc-model-5.2-short' } },
};
export const PROVIDER_CATALOG = buildCatalog(PROVIDER_MODELS);
/** The ids the provider's question offers: its local ones. */
export const LOCAL_IDS = localIds(PROVIDER_CATALOG);

export async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe().catch(() => null);
    if (value) return value;
    if (Date.now() - started > WAIT_MS) throw new Error(`timed out waiting for ${what}`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
}

/** Opens a consumer's workspace page; its provider frame once it shows. */
export async function openConsumer(origin: string): Promise<{ page: Page; frame: () => Frame | undefined }> {
  const page = await ctx.browser.browser.newPage();
  page.setDefaultTimeout(WAIT_MS);
  if (process.env.SHARED_DEBUG === '1') {
    page.on('console', (m) => console.log(`[${origin}] ${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => console.log(`[${origin}] pageerror: ${e}`));
  }
  await page.goto(`${origin}/`);
  return { page, frame: () => page.frames().find((f) => f.url().startsWith(ctx.sites.origins.provider)) };
}

/** A real click (a user gesture) on a button of the provider's frame. */
export async function clickInFrame(page: Page, frame: () => Frame | undefined, selector: string): Promise<void> {
  const f = await until(`the provider frame's ${selector}`, async () => {
    const found = frame();
    return found && (await evaluateWithoutGesture(found, `!!document.querySelector(${JSON.stringify(selector)})`)) ? found : null;
  });
  await page.bringToFront();
  await f.click(selector);
  if (process.env.SHARED_DEBUG === '1') {
    for (let i = 0; i < 6; i++) {
      await new Promise((ok) => setTimeout(ok, 1000));
      console.log(
        '[frame]',
        await evaluateWithoutGesture(f, 'document.body.innerText + " | isolated=" + crossOriginIsolated').catch((e: unknown) => String(e)),
      );
    }
  }
}

/**
 * The person's consent in the provider's frame: ticks `models` (none is ticked in advance), waits until the frame
 * verifies that its question is visible (IntersectionObserver v2: `main[data-seen="true"]`), and clicks *Use the
 * models this browser already has*.
 */
export async function allowInFrame(page: Page, frame: () => Frame | undefined, models: readonly string[] = LOCAL_IDS): Promise<void> {
  await page.bringToFront();
  const f = await until('the question with its models', async () => {
    const found = frame();
    return found && (await evaluateWithoutGesture(found, `document.querySelectorAll('#models input').length > 0`)) ? found : null;
  });
  await evaluateWithoutGesture(
    f,
    `for (const b of document.querySelectorAll('#models input')) { b.checked = ${JSON.stringify(models)}.includes(b.value); b.dispatchEvent(new Event('change', { bubbles: true })); }`,
  );
  await until(
    'the question verifiably visible',
    async () => (await evaluateWithoutGesture(f, `document.getElementById('provider').dataset.seen === 'true'`)) === true,
  );
  await clickInFrame(page, frame, '#allow');
}

/**
 * What any script of a consumer site can do: frame the provider itself and talk to the port it offers. Sends
 * `messages` in order; resolves with every reply once each id of `ids` (an id as often as it is expected) has its
 * last answer (`end`, `error`, `aborted` or `status`).
 */
export async function throughOwnFrame(page: Page, messages: unknown[], ids: string[]): Promise<Json[]> {
  return page.evaluate(
    async (provider, messages, ids, waitMs) => {
      const frame = document.createElement('iframe');
      frame.src = `${provider}/provider.html`;
      frame.allow = 'cross-origin-isolated';
      document.body.append(frame);
      const ports = await new Promise<readonly MessagePort[]>((ok) => {
        addEventListener('message', (e) => e.source === frame.contentWindow && e.data?.type === 'inpage:provider-offer' && ok(e.ports));
        frame.addEventListener('load', () => frame.contentWindow!.postMessage({ type: 'inpage:provider-hello' }, provider));
      });
      const engine = ports[0]!;
      const got: { type: string; id: string }[] = [];
      engine.onmessage = (e) => got.push(e.data);
      for (const message of messages) engine.postMessage(message);
      const last = new Set(['end', 'error', 'aborted', 'status']);
      const done = () => ids.every((id) => got.filter((r) => r.id === id && last.has(r.type)).length >= ids.filter((i) => i === id).length);
      const started = Date.now();
      while (!done() && Date.now() - started < waitMs) await new Promise((ok) => setTimeout(ok, 50));
      frame.remove();
      return got;
    },
    ctx.sites.origins.provider,
    messages,
    ids,
    WAIT_MS,
  );
}

/** What the upstream server heard for the provider's tag (it must hear nothing: no consumer reaches it). */
export async function providerUpstreamLog(): Promise<string[]> {
  return (await fetch(`http://127.0.0.1:${UPSTREAM_PORT}/shared-p/_log`)).json() as Promise<string[]>;
}

/** The sites on the provider's page, with their state. */
export async function listedSites(): Promise<string[][]> {
  const provider = await ctx.browser.browser.newPage();
  await provider.goto(`${ctx.sites.origins.provider}/provider.html`);
  await provider.waitForSelector('#sites, #no-sites');
  const listed = await provider.evaluate(() => [...document.querySelectorAll('tr')].map((r) => [r.dataset.origin!, r.cells[1]!.textContent!]));
  await provider.close();
  return listed;
}

export async function ready(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const api = await window.inpageReady!;
    await api.workspace.register('Test workspace');
    return (await api.keys.create({ name: 'test' })).key;
  });
}

export async function chat(page: Page, key: string, content = 'Hello', model = MODEL): Promise<{ status: number; body: Json; servedBy: string | null }> {
  return page.evaluate(
    async (key, model, content) => {
      const res = await fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content }], max_tokens: 12, temperature: 0 }),
      });
      return { status: res.status, body: await res.json(), servedBy: res.headers.get('x-inpage-served-by') };
    },
    key,
    model,
    content,
  );
}

/**
 * Clicks a site's box for `model` on the provider's page and waits until the change is stored: the page shows the
 * list again from the store after each change (a box's own tick comes at the click, before the store has it).
 */
export async function toggleModel(provider: Page, row: string, model: string, on: boolean): Promise<void> {
  await provider.evaluate(() => (document.getElementById('sites')!.dataset.shown = 'before'));
  await provider.click(`${row} input[value="${model}"]`);
  await provider.waitForFunction(
    (r, m, on) => {
      const table = document.getElementById('sites');
      return !!table && table.dataset.shown !== 'before' && document.querySelector<HTMLInputElement>(`${r} input[value="${m}"]`)?.checked === on;
    },
    {},
    row,
    model,
    on,
  );
}

/** The provider note on a model's card in the page's Models area (null while the card or the note is not shown). */
export function providerCard(page: Page, model: string): Promise<string | null> {
  return page.evaluate((m) => document.querySelector(`article[data-model="${m}"] [data-testid="provider"]`)?.textContent ?? null, model);
}

export async function modelEntry(page: Page, key: string, model = MODEL): Promise<Json> {
  return page.evaluate(async (key, model) => await (await fetch(`/v1/models/${model}`, { headers: { authorization: `Bearer ${key}` } })).json(), key, model);
}
