// Shared steps of the browser tests: open a page under the service worker, make a key, call /v1 from the page.
import type { BrowserContext, Frame, Page } from '@playwright/test';
import type { ModelId } from '#shared/variants';

/**
 * What `makeKey`, `call` and `chat` use of a page: a script run in it with one argument. Playwright's Page is one; the
 * Firefox smoke set (test/firefox) passes Puppeteer's.
 */
export interface Evaluator {
  evaluate<R, Arg>(fn: (arg: Arg) => R | Promise<R>, arg: Arg): Promise<R>;
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  json: unknown;
}

/**
 * Deploys settings as a site would: every page of `context` reads them from `/inpage.config.json` (the only
 * place, with `installInpage({config})`, that model sources, queue depth and heartbeat come from).
 */
export async function deployConfig(context: BrowserContext, config: Record<string, unknown>): Promise<void> {
  await context.route('**/inpage.config.json', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(config) }));
}

/**
 * Waits for `window.inpageReady`. A first visit to a server that sends no isolation headers reloads once under the
 * service worker before it is ready (src/page/isolation-reload.ts), which ends the first wait: it waits again in
 * the reloaded page.
 */
export async function awaitReady(page: Page): Promise<void> {
  // The old document's context ends as the reload starts, before the new one commits: wait for that commit.
  let committed = 0;
  const onNavigated = (frame: Frame) => void (frame === page.mainFrame() && committed++);
  page.on('framenavigated', onNavigated);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        // The reloaded document may be reached before its module script ran and set inpageReady.
        await page.evaluate(async () => {
          for (const until = Date.now() + 30_000; window.inpageReady === undefined && Date.now() < until;) await new Promise((r) => setTimeout(r, 20));
          await window.inpageReady;
        });
        return;
      } catch (err) {
        if (attempt > 0 || !/Execution context was destroyed|navigat/i.test(String(err))) throw err;
        if (committed === 0) await page.waitForEvent('framenavigated', { predicate: (frame) => frame === page.mainFrame() });
      }
    }
  } finally {
    page.off('framenavigated', onNavigated);
  }
}

/** Opens `path`, waits until the service worker controls it (and the engine is hosted), returns nothing. */
export async function openApp(page: Page, path = '/'): Promise<void> {
  await page.goto(path);
  await awaitReady(page);
}

/** Registers the workspace (if needed) and makes a key; returns the full key. */
export async function makeKey(page: Evaluator, options: { name?: string; models?: ModelId[] } = {}): Promise<string> {
  return page.evaluate(
    async ({ name, models }) => {
      const api = await window.inpageReady!;
      await api.workspace.register('Test workspace');
      const created = await api.keys.create(models ? { name, models } : { name });
      return created.key;
    },
    { name: options.name ?? 'test key', models: options.models },
  );
}

/** A fetch made by a script of the page, as any client of the origin would. */
export async function call(page: Evaluator, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return page.evaluate(
    async ({ path, init }) => {
      const res = await fetch(path, init);
      const text = await res.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
      return { status: res.status, headers: Object.fromEntries(res.headers.entries()), text, json };
    },
    { path, init },
  );
}

export function auth(key: string, extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...extra };
}

/** Posts a chat completion body (an object, serialised here) with the key. */
export function chat(page: Evaluator, key: string, body: unknown): Promise<Answer> {
  return call(page, '/v1/chat/completions', { method: 'POST', headers: auth(key), body: JSON.stringify(body) });
}

/** The `data:` payloads of an SSE body, in order. */
export function sseEvents(text: string): string[] {
  return text
    .split('\n\n')
    .filter((block) => block.length > 0)
    .map((block) => {
      if (!block.startsWith('data: ')) throw new Error(`Not an SSE data event: ${JSON.stringify(block)}`);
      return block.slice('data: '.length);
    });
}

/** Stops the service worker as the browser does when it idles (DevTools protocol). */
export async function stopServiceWorker(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  const stopped = new Promise<void>((resolve) => {
    cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
      if (versions.some((v) => v.runningStatus === 'stopped')) resolve();
    });
  });
  await cdp.send('ServiceWorker.enable');
  await cdp.send('ServiceWorker.stopAllWorkers');
  await stopped;
}
