// The first visit's one reload for cross-origin isolation (src/page/isolation-reload.ts): when a page reloads, and
// every case where it must not (opted out, a client page, served by a worker already, the tab's guard set, a worker
// that does not isolate this page or does not answer).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answersIsolated, isolationAnswer, isolationAsk, isolationAskUrl } from '#shared/wire/page-messages';

const GUARD = 'inpage:isolation-reload';

interface Page {
  isolated?: boolean;
  /** The worker controlling the page when its script ran (its navigation was served under it). */
  controlledAtLoad?: boolean;
  /** What the controlling worker answers the ask with; undefined: it never answers. */
  answer?: boolean;
  guard?: string;
}

/** A page's globals as the module sees them, and the module evaluated afresh in it. */
async function page(setup: Page) {
  const storage = new Map<string, string>();
  if (setup.guard !== undefined) storage.set(GUARD, setup.guard);
  const asked: unknown[] = [];
  const controller = {
    postMessage(message: unknown, ports: MessagePort[]) {
      asked.push(message);
      if (setup.answer !== undefined) ports[0]!.postMessage(isolationAnswer(setup.answer));
    },
  };
  const serviceWorker: { controller: typeof controller | null } = { controller: setup.controlledAtLoad ? controller : null };
  const reload = vi.fn();
  vi.stubGlobal('navigator', { serviceWorker });
  vi.stubGlobal('location', { href: 'http://127.0.0.1:8000/?x=1', reload });
  vi.stubGlobal('self', {
    crossOriginIsolated: setup.isolated === true,
    sessionStorage: {
      getItem: (key: string) => storage.get(key) ?? null,
      setItem: (key: string, value: string) => void storage.set(key, value),
      removeItem: (key: string) => void storage.delete(key),
    },
  });
  vi.resetModules();
  const { reloadForIsolation } = await import('../../../src/page/isolation-reload');
  // The worker takes control after the script ran (a first visit), or had it from the start.
  serviceWorker.controller = controller;
  return { reloadForIsolation, reload, asked, storage };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the first visit reloads once for isolation', () => {
  it('reloads a first visit the controlling worker isolates, setting the guard first', async () => {
    const p = await page({ answer: true });
    expect(await p.reloadForIsolation({ mode: 'once', host: true })).toBe(true);
    expect(p.reload).toHaveBeenCalledTimes(1);
    expect(p.storage.has(GUARD)).toBe(true);
    expect(p.asked).toEqual([isolationAsk('http://127.0.0.1:8000/?x=1')]);
  });

  it('never loops: the reloaded page, still not isolated, carries on with the guard kept', async () => {
    const p = await page({ answer: true, guard: '1' });
    expect(await p.reloadForIsolation({ mode: 'once', host: true })).toBe(false);
    expect(p.reload).not.toHaveBeenCalled();
    expect(p.storage.get(GUARD)).toBe('1');
  });

  it('an isolated page removes the guard and does not reload', async () => {
    const p = await page({ isolated: true, answer: true, guard: '1' });
    expect(await p.reloadForIsolation({ mode: 'once', host: true })).toBe(false);
    expect(p.reload).not.toHaveBeenCalled();
    expect(p.storage.has(GUARD)).toBe(false);
  });

  it('does not reload when opted out, in a page that does not host the engine, or one served under a worker already', async () => {
    for (const [setup, options] of [
      [{ answer: true }, { mode: 'off', host: true }],
      [{ answer: true }, { mode: 'sometimes', host: true }],
      [{ answer: true }, { mode: 'once', host: false }],
      [
        { answer: true, controlledAtLoad: true },
        { mode: 'once', host: true },
      ],
    ] as const) {
      const p = await page(setup);
      expect(await p.reloadForIsolation(options), JSON.stringify({ setup, options })).toBe(false);
      expect(p.reload).not.toHaveBeenCalled();
      expect(p.asked).toEqual([]);
      expect(p.storage.has(GUARD)).toBe(false);
    }
  });

  it('does not reload when the worker says it does not isolate this page, or does not answer within a second', async () => {
    for (const answer of [false, undefined]) {
      const p = await page({ answer });
      expect(await p.reloadForIsolation({ mode: 'once', host: true })).toBe(false);
      expect(p.reload).not.toHaveBeenCalled();
      expect(p.asked).toHaveLength(1);
      expect(p.storage.has(GUARD)).toBe(false);
    }
  });
});

describe('the isolation ask and its answer', () => {
  it('carry the URL and a yes only when it says so', () => {
    expect(isolationAskUrl(isolationAsk('http://a/b'))).toBe('http://a/b');
    expect(isolationAskUrl({ type: 'inpage:isolation-ask' })).toBeUndefined();
    expect(isolationAskUrl({ type: 'inpage:ping', url: 'http://a/' })).toBeUndefined();
    expect(answersIsolated(isolationAnswer(true))).toBe(true);
    expect(answersIsolated(isolationAnswer(false))).toBe(false);
    expect(answersIsolated({ type: 'inpage:isolation-answer', isolates: 'yes' })).toBe(false);
  });
});
