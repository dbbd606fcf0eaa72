// The WebKit smoke set's harness: Debian's WebKitGTK MiniBrowser (Safari's engine) under Xvfb, driven by
// WebKitWebDriver (`webkit2gtk-driver`) over classic WebDriver, spoken here with fetch: no client library. The
// builds it serves come from the Firefox set's harness (test/firefox/firefox.ts). Run by node's own test runner
// (`npm run test:webkit`); TypeScript through test/firefox/register-ts.mjs.
import { existsSync, readdirSync } from 'node:fs';
import { after, before } from 'node:test';
import { displayForm, isWellFormedKey } from '#shared/keys/key-format';
import type { Evaluator } from '../browser/helpers';
import { ProcessError, Processes, suiteBound } from '../harness/processes';

export { SETUP_MS, build } from '../firefox/firefox';

/** Every wait of the smoke set (an element, a condition, a navigation, a driver call) ends by then. */
export const WAIT_MS = 30_000;
/** A script that waits on the engine (a llama.cpp load and answer on one thread, on a loaded machine) ends by then. */
export const SCRIPT_MS = 150_000;
/** A smoke file ends by then, whatever it waits on (its processes are stopped and named: test/harness/processes.ts). */
const SUITE_MS = 600_000;
/** WebKitWebDriver's port, plus INPAGE_PORT_OFFSET (the servers of the set use 4184 and 4185). */
const DRIVER_PORT = 4186 + Number(process.env.INPAGE_PORT_OFFSET ?? 0);

/** MiniBrowser: `WEBKIT_MINIBROWSER`, else the one webkit2gtk-driver's WebKitGTK installs (any architecture). */
export function miniBrowserPath(): string {
  if (process.env.WEBKIT_MINIBROWSER) return process.env.WEBKIT_MINIBROWSER;
  for (const lib of [
    '/usr/lib',
    ...readdirSync('/usr/lib')
      .filter((d) => d.includes('-linux-'))
      .map((d) => `/usr/lib/${d}`),
  ]) {
    for (const version of ['webkit2gtk-4.1', 'webkit2gtk-4.0', 'webkitgtk-6.0']) {
      const path = `${lib}/${version}/MiniBrowser`;
      if (existsSync(path)) return path;
    }
  }
  throw new Error('No WebKitGTK MiniBrowser found (apt-get install webkit2gtk-driver), or set WEBKIT_MINIBROWSER');
}

/** Starts Xvfb on a free display (it picks one and says which on stdout: -displayfd 1); resolves to ":N". */
async function startXvfb(processes: Processes): Promise<string> {
  const xvfb = processes.start('Xvfb', 'Xvfb', ['-displayfd', '1', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp']);
  const line = await xvfb.waitForLine(/^\d+$/, WAIT_MS).catch((err: unknown) => {
    throw new Error(`${(err as Error).message}\n(on Debian: apt-get install xvfb)`, { cause: err });
  });
  return `:${line}`;
}

interface WebDriverAnswer {
  value: unknown;
}

/** One classic WebDriver command; a WebDriver error is thrown with its name and message. */
async function command(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, timeoutMs = WAIT_MS): Promise<unknown> {
  const res = await fetch(`http://127.0.0.1:${DRIVER_PORT}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const answer = (await res.json()) as WebDriverAnswer;
  const value = answer.value as { error?: string; message?: string } | null;
  if (!res.ok || (value && typeof value === 'object' && 'error' in value && value.error))
    throw new Error(`WebDriver ${method} ${path}: ${value?.error}: ${value?.message}`);
  return answer.value;
}

/** A WebDriver element reference's id (the spec's key is element-6066-11e4-a52e-4f735466cecc). */
function elementId(reference: unknown): string {
  const id = Object.values((reference ?? {}) as Record<string, unknown>)[0];
  if (typeof id !== 'string') throw new Error(`not a WebDriver element reference: ${JSON.stringify(reference)}`);
  return id;
}

/** A MiniBrowser session: its page, found elements, and scripts run in it. */
export class WebKitPage implements Evaluator {
  constructor(private readonly session: string) {}

  private cmd(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, timeoutMs?: number): Promise<unknown> {
    return command(method, `/session/${this.session}${path}`, body, timeoutMs);
  }

  goto(url: string): Promise<unknown> {
    return this.cmd('POST', '/url', { url });
  }

  /** Runs `fn(arg)` in the page (awaited), as Playwright's and Puppeteer's evaluate do: `fn` must be self-contained. */
  async evaluate<R, Arg>(fn: (arg: Arg) => R | Promise<R>, arg: Arg): Promise<R> {
    const script = `const done = arguments[arguments.length - 1];
      Promise.resolve().then(() => (${fn.toString()})(arguments[0])).then(
        (value) => done({ ok: value === undefined ? null : value }),
        (err) => done({ error: String(err && err.stack || err) }),
      );`;
    const result = (await this.cmd('POST', '/execute/async', { script, args: [arg === undefined ? null : arg] }, SCRIPT_MS + WAIT_MS)) as {
      ok?: R;
      error?: string;
    };
    if (result && 'error' in result && result.error !== undefined) throw new Error(`in WebKit: ${result.error}`);
    return result.ok as R;
  }

  /** Polls `fn(arg)` in the page until it returns something other than null; fails after WAIT_MS. */
  async waitFor<R, Arg>(what: string, fn: (arg: Arg) => R | null, arg: Arg, timeoutMs = WAIT_MS): Promise<R> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const value = await this.evaluate(fn, arg).catch(() => null);
      if (value !== null && value !== undefined) return value;
      if (Date.now() > end) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The first element matching a CSS selector once there is one. */
  async find(selector: string): Promise<string> {
    await this.waitFor(selector, (sel: string) => (document.querySelector(sel) ? true : null), selector);
    return elementId(await this.cmd('POST', '/element', { using: 'css selector', value: selector }));
  }

  /** The first element whose text is `text` among those matching `selector`. */
  async findByText(selector: string, text: string): Promise<string> {
    const index = await this.waitFor(
      `${selector} "${text}"`,
      ({ sel, text }: { sel: string; text: string }) => {
        const i = Array.from(document.querySelectorAll(sel)).findIndex((el) => el.textContent?.trim() === text);
        return i >= 0 ? i : null;
      },
      { sel: selector, text },
    );
    const all = (await this.cmd('POST', '/elements', { using: 'css selector', value: selector })) as unknown[];
    return elementId(all[index]);
  }

  async click(element: string): Promise<void> {
    await this.cmd('POST', `/element/${element}/click`, {});
  }

  /** Types `text` into the element (WebDriver's keys: "\uE007" is Enter). */
  async type(element: string, text: string): Promise<void> {
    await this.cmd('POST', `/element/${element}/value`, { text });
  }

  /** The text of the first element matching `selector` once one's text matches `pattern`. */
  textOnceMatching(selector: string, pattern: RegExp): Promise<string> {
    return this.waitFor(
      `${selector} ~ ${pattern}`,
      ({ sel, source, flags }: { sel: string; source: string; flags: string }) => {
        const texts = Array.from(document.querySelectorAll(sel), (el) => el.textContent ?? '');
        return texts.find((t) => new RegExp(source, flags).test(t)) ?? null;
      },
      { sel: selector, source: pattern.source, flags: pattern.flags },
    );
  }
}

/**
 * Starts Xvfb, WebKitWebDriver and one MiniBrowser session for the file's tests; ends all three after them,
 * failed or not. The session's website data is its own (WebDriver's automation sessions are ephemeral).
 */
export function webkit(): () => WebKitPage {
  const processes = new Processes();
  let page: WebKitPage | undefined;
  let session: string | undefined;
  before(
    async () => {
      // Whatever ends this process (a failed hook, a signal, the file's hard bound) ends them too.
      suiteBound(SUITE_MS, 'a WebKit smoke file', processes);
      const display = await startXvfb(processes);
      const driver = processes.start('WebKitWebDriver', 'WebKitWebDriver', [`--port=${DRIVER_PORT}`], { env: { ...process.env, DISPLAY: display } });
      const end = Date.now() + WAIT_MS;
      for (;;) {
        const ready = await command('GET', '/status', undefined, 2000).then(
          (v) => (v as { ready?: boolean }).ready === true,
          () => false,
        );
        if (ready) break;
        if (driver.exit) throw new ProcessError(driver, `ended before it answered on port ${DRIVER_PORT} (on Debian: apt-get install webkit2gtk-driver)`);
        if (Date.now() > end) throw new ProcessError(driver, `did not answer on port ${DRIVER_PORT} within ${WAIT_MS / 1000} s`);
        await new Promise((r) => setTimeout(r, 200));
      }
      const created = (await command(
        'POST',
        '/session',
        {
          capabilities: { alwaysMatch: { browserName: 'MiniBrowser', 'webkitgtk:browserOptions': { binary: miniBrowserPath(), args: ['--automation'] } } },
        },
        2 * WAIT_MS,
      )) as { sessionId: string };
      session = created.sessionId;
      await command('POST', `/session/${session}/timeouts`, { script: SCRIPT_MS + WAIT_MS, pageLoad: 2 * WAIT_MS, implicit: 0 });
      page = new WebKitPage(session);
    },
    { timeout: 4 * WAIT_MS },
  );
  after(
    async () => {
      if (session) await command('DELETE', `/session/${session}`).catch(() => undefined);
      // Gone before the next file's (or suite's) driver takes the port.
      await processes.stopAll();
    },
    { timeout: 2 * WAIT_MS },
  );
  return () => {
    if (!page) throw new Error('WebKit is used before it was started');
    return page;
  };
}

/** Opens `url` and waits until the service worker controls it and the engine is hosted; says what the page has. */
export async function openApp(page: WebKitPage, url: string): Promise<{ controlled: boolean; webgpu: boolean }> {
  await page.goto(url);
  // Polled with short scripts, not one script awaiting inpageReady: a first visit to a server without isolation
  // headers reloads once under the service worker before it is ready (src/page/isolation-reload.ts; WebKit stays
  // unisolated after it), and WebKitWebDriver does not end a script whose page went away until the script's own
  // timeout (3 min: the WebKit llama.cpp test took 184 s instead of 43). Each poll reaches the page there is now;
  // WebKitWebDriver may also answer the navigation before the page's module scripts ran.
  return page.waitFor(
    'inpageReady',
    () => {
      const w = window as unknown as {
        inpageReady?: Promise<unknown>;
        inpageOpening?: Promise<unknown>;
        inpageOpened?: { controlled: boolean; webgpu: boolean };
      };
      if (!w.inpageReady) return null;
      w.inpageOpening ??= w.inpageReady.then(() => (w.inpageOpened = { controlled: navigator.serviceWorker.controller !== null, webgpu: 'gpu' in navigator }));
      return w.inpageOpened ?? null;
    },
    null,
    SCRIPT_MS,
  );
}

/** Signs up through the workspace page's form; returns the org id. */
export async function registerThroughForm(page: WebKitPage, name: string): Promise<string> {
  await page.type(await page.find('#workspace-name'), name);
  await page.click(await page.findByText('button[type="submit"]', 'Create workspace'));
  return page.textOnceMatching('[data-testid="org-id"]', /^org-[a-z0-9]+$/);
}

/** Creates a key through the API Keys area's form; returns the key shown once, and checks its display form. */
export async function createKeyThroughForm(page: WebKitPage, name: string): Promise<string> {
  await page.type(await page.find('#key-name'), name);
  await page.click(await page.findByText('button[type="submit"]', 'Create key'));
  const key = await page.waitFor(
    'the new key',
    () => {
      const value = (document.querySelector('#new-key-value') as HTMLInputElement | null)?.value ?? '';
      return value.startsWith('sk-') ? value : null;
    },
    null,
  );
  if (!isWellFormedKey(key)) throw new Error(`the new key is not well formed: ${key}`);
  await page.click(await page.findByText('button', 'Done, I saved it'));
  await page.textOnceMatching('code.key-display', new RegExp(`^${displayForm(key).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
  return key;
}
