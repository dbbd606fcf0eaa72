// Issue 51, the queue's depth: as many requests wait as `queueDepth` says (docs/configuration.md), the rest get 429
// `queue_full` with `retry-after`. The queue is the engine's, in the tab that hosts it, which started it with the
// settings it read then: before issue 51 a deployment's new depth (256) did not reach a tab already hosting the engine
// (the default 16 stayed in force), and 89 of 200 concurrent streams were refused (139 completed and 61 refused in the
// hostile run that found it).
import { expect, test, type Page } from '@playwright/test';
import { deployConfig, makeKey, openApp } from './helpers';

interface Outcome {
  status: number;
  retryAfter: string | null;
  code: string | null;
  message: string | null;
  /** A stream's content deltas, joined, and whether it ended with [DONE]. */
  content: string;
  done: boolean;
}

/** `n` concurrent streams of `count 3`…`count 5` from `page`, each read to its end. */
async function streams(page: Page, key: string, n: number): Promise<Outcome[]> {
  return page.evaluate(
    async ({ key, n }) => {
      const one = async (i: number): Promise<Outcome> => {
        const res = await fetch('/v1/chat/completions', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: `count ${3 + (i % 3)}` }], stream: true }),
        });
        const text = await res.text();
        if (res.status !== 200) {
          const error = (JSON.parse(text) as { error?: { code?: string; message?: string } }).error;
          return {
            status: res.status,
            retryAfter: res.headers.get('retry-after'),
            code: error?.code ?? null,
            message: error?.message ?? null,
            content: '',
            done: false,
          };
        }
        const data = text
          .split('\n\n')
          .filter((b) => b.startsWith('data: '))
          .map((b) => b.slice(6));
        const content = data
          .filter((d) => d !== '[DONE]')
          .map((d) => (JSON.parse(d) as { choices: { delta?: { content?: string } }[] }).choices[0]?.delta?.content ?? '')
          .join('');
        return { status: res.status, retryAfter: null, code: null, message: null, content, done: data.at(-1) === '[DONE]' };
      };
      return Promise.all(Array.from({ length: n }, (_, i) => one(i)));
    },
    { key, n },
  );
}

function expectAllComplete(outcomes: Outcome[]): void {
  // The refusals first, so a failure names what refused them.
  expect(outcomes.filter((o) => o.status !== 200).slice(0, 3)).toEqual([]);
  expect(outcomes.filter((o) => o.done)).toHaveLength(outcomes.length);
  outcomes.forEach((o, i) => expect(o.content).toBe(Array.from({ length: 3 + (i % 3) }, (_, n) => n + 1).join(' ')));
}

test('depth 256: 200 concurrent streams all complete', async ({ page }) => {
  await deployConfig(page.context(), { queueDepth: 256 });
  await openApp(page, '/?tokenDelayMs=1');
  const key = await makeKey(page);
  expectAllComplete(await streams(page, key, 200));
});

test("a deployment's new depth reaches the tab already hosting the engine: 200 concurrent streams at 256 all complete", async ({ context }) => {
  // The host tab starts on the default settings (depth 16)…
  const host = await context.newPage();
  await openApp(host);
  // …then the deployment sets 256, and a page opened since calls the API.
  await deployConfig(context, { queueDepth: 256 });
  const client = await context.newPage();
  await openApp(client, '/?tokenDelayMs=1');
  const key = await makeKey(client);
  expectAllComplete(await streams(client, key, 200));
  // The host tab hosts still (the streams ran on its engine), and its page is the one it was.
  expect(await host.evaluate(() => window.inpage?.engine !== null)).toBe(true);
});

test('beyond the depth: exactly the requests past it get 429 queue_full with retry-after; those waiting complete', async ({ page }) => {
  await deployConfig(page.context(), { queueDepth: 8 });
  await openApp(page, '/?tokenDelayMs=2');
  const key = await makeKey(page);
  const outcome = await page.evaluate(async (key) => {
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const body = (content: string) => JSON.stringify({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content }], stream: true });
    // One holds the engine (until aborted)…
    const holder = new AbortController();
    const running = await fetch('/v1/chat/completions', { method: 'POST', headers, body: body('count 100000'), signal: holder.signal });
    const reader = running.body!.getReader();
    await reader.read();
    // …while 8 + 5 more come at once: 8 wait, 5 are refused.
    const answers = Array.from({ length: 13 }, () => fetch('/v1/chat/completions', { method: 'POST', headers, body: body('count 3') }));
    const settled: { status: number; retryAfter: string | null; code: string | null }[] = [];
    const refusedFirst = answers.map((p) =>
      p.then(async (res) => {
        const text = res.status === 200 ? '' : await res.text();
        settled.push({
          status: res.status,
          retryAfter: res.headers.get('retry-after'),
          code: text ? (JSON.parse(text) as { error: { code: string } }).error.code : null,
        });
        return res;
      }),
    );
    // The refusals come while the holder runs; the waiting ones do not start before it ends.
    await new Promise((r) => setTimeout(r, 1500));
    const whileHeld = settled.map((s) => s.status);
    holder.abort();
    await reader.cancel().catch(() => undefined);
    const all = await Promise.all(refusedFirst);
    const texts = await Promise.all(all.map((res) => (res.status === 200 ? res.text() : Promise.resolve(''))));
    return { whileHeld, refused: settled.filter((s) => s.status !== 200), done: texts.filter((t) => t.trim().endsWith('data: [DONE]')).length };
  }, key);
  expect(outcome.whileHeld).toEqual([429, 429, 429, 429, 429]);
  expect(outcome.refused).toHaveLength(5);
  for (const r of outcome.refused) {
    expect(r.code).toBe('queue_full');
    expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
  }
  expect(outcome.done).toBe(8);
});
