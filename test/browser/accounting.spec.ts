// Issue 14: a request's tokens are booked to its key whatever happens to the answer. Each test sums what the
// clients were told (usage of complete answers; for a cancelled or failed stream, the prompt's tokens, which the
// same messages cost in a complete answer, plus the content pieces received: the engines send one per token)
// and compares it with what the key has booked, under each fault. A cancelled or failed stream is booked what
// the engine generated until it stopped, prompt included, not only what was delivered.
import { expect, test, type Page } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deployConfig, makeKey, openApp, stopServiceWorker } from './helpers';
import { serveStatic, TEST_BUILD_DIR } from './static-server';

interface Told {
  /** usage.total_tokens of a complete answer, else the content pieces the client received. */
  tokens: number;
  complete: boolean;
}

/** Runs one request in the page and returns what the client was told. `cancelAfter`: pieces read before cancelling. */
function ask(page: Page, key: string, content: string, options: { stream?: boolean; cancelAfter?: number } = {}): Promise<Told> {
  return page.evaluate(
    async ({ key, content, stream, cancelAfter }) => {
      const res = await fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'svc-model-5.2-fast',
          messages: [{ role: 'user', content }],
          stream,
          stream_options: stream ? { include_usage: true } : undefined,
        }),
      });
      if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
      if (!stream) return { tokens: ((await res.json()) as { usage: { total_tokens: number } }).usage.total_tokens, complete: true };
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      let pieces = 0;
      let usage: number | null = null;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const event = buffer.slice(6, cut);
          buffer = buffer.slice(cut + 2);
          if (event === '[DONE]') continue;
          const chunk = JSON.parse(event) as { choices?: { delta: { content?: string } }[]; usage?: { total_tokens: number } | null; error?: unknown };
          if (chunk.usage) usage = chunk.usage.total_tokens;
          if (chunk.choices?.[0]?.delta.content) pieces++;
        }
        if (cancelAfter !== undefined && pieces >= cancelAfter) {
          await reader.cancel();
          return { tokens: pieces, complete: false };
        }
      }
      return usage !== null ? { tokens: usage, complete: true } : { tokens: pieces, complete: false };
    },
    { key, content, stream: options.stream ?? false, cancelAfter: options.cancelAfter },
  );
}

/** What the prompt of `content` costs: usage.prompt_tokens of a one-token answer to the same messages. */
function promptTokens(page: Page, key: string, content: string): Promise<number> {
  return page.evaluate(
    async ({ key, content }) => {
      const res = await fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content }], max_tokens: 1 }),
      });
      return ((await res.json()) as { usage: { prompt_tokens: number } }).usage.prompt_tokens;
    },
    { key, content },
  );
}

function booked(page: Page, name: string): Promise<number> {
  return page.evaluate(async (name) => (await window.inpage!.keys.list()).find((k) => k.name === name)!.tokensUsed, name);
}

const sum = (told: Told[]) => told.reduce((n, t) => n + t.tokens, 0);

test('complete, cancelled and failed streams: every token generated is booked, prompt included', async ({ page }) => {
  await openApp(page, '/?tokenDelayMs=4');
  const probe = await makeKey(page, { name: 'probe' });
  const whole = await makeKey(page, { name: 'whole' });
  const cancelled = await makeKey(page, { name: 'cancelled' });
  const failed = await makeKey(page, { name: 'failed' });
  const prompt100 = await promptTokens(page, probe, 'count 100');
  const promptFail = await promptTokens(page, probe, 'fail after 50');
  expect(prompt100).toBeGreaterThan(0);

  const complete = [await ask(page, whole, 'count 20'), await ask(page, whole, 'count 30', { stream: true })];
  expect(complete.every((t) => t.complete)).toBe(true);
  const cut = await ask(page, cancelled, 'count 100', { stream: true, cancelAfter: 95 });
  expect(cut).toEqual({ tokens: 95, complete: false });
  const broken = await ask(page, failed, 'fail after 50', { stream: true });
  expect(broken).toEqual({ tokens: 50, complete: false });

  await expect.poll(() => booked(page, 'whole')).toBe(sum(complete));
  // Failed after 50 tokens: the prompt and the 50 the engine generated (all of which the client got).
  await expect.poll(() => booked(page, 'failed')).toBe(promptFail + broken.tokens);
  // A cancel races the tokens the engine is still producing: it books what the engine generated until the abort
  // reached it, at least what the client read, at most the whole answer.
  await expect.poll(() => booked(page, 'cancelled')).toBeGreaterThanOrEqual(prompt100 + cut.tokens);
  expect(await booked(page, 'cancelled')).toBeLessThanOrEqual(prompt100 + 100);
});

test('a stream cancelled while the engine waits for its next token books exactly the prompt and the tokens generated', async ({ page }) => {
  // 400 ms a token: the abort reaches the engine long before it would produce the 6th, so it has generated
  // exactly the 5 the client read.
  await openApp(page, '/?tokenDelayMs=400');
  const probe = await makeKey(page, { name: 'probe' });
  const key = await makeKey(page, { name: 'cut' });
  const prompt = await promptTokens(page, probe, 'count 40');
  const cut = await ask(page, key, 'count 40', { stream: true, cancelAfter: 5 });
  expect(cut).toEqual({ tokens: 5, complete: false });
  await expect.poll(() => booked(page, 'cut')).toBe(prompt + 5);
  // And it stays so: nothing more is booked once the engine has stopped.
  await page.waitForTimeout(1000);
  expect(await booked(page, 'cut')).toBe(prompt + 5);
});

test('the service worker stopped right after 30 answers: nothing is lost, the next start books it', async ({ page }) => {
  await deployConfig(page.context(), { queueDepth: 40 });
  await openApp(page);
  const key = await makeKey(page, { name: 'busy' });
  const other = await makeKey(page, { name: 'other' });
  const told = await Promise.all(Array.from({ length: 30 }, (_, i) => ask(page, key, `count ${10 + i}`, { stream: i % 2 === 0 })));
  expect(told.every((t) => t.complete)).toBe(true);
  // And one that failed in-band after 8 tokens: its prompt and those 8.
  const broken = await ask(page, key, 'fail after 8', { stream: true });
  expect(broken).toEqual({ tokens: 8, complete: false });
  const prompt = await promptTokens(page, other, 'fail after 8');
  await stopServiceWorker(page);
  // The next request starts the worker again; it books what the stopped one journaled.
  await ask(page, other, 'count 3');
  await expect.poll(() => booked(page, 'busy'), { timeout: 15_000 }).toBe(sum(told) + prompt + broken.tokens);
});

test('IndexedDB blocked while answers go out: their bookings wait and are made once it opens again', async ({ page }) => {
  await openApp(page);
  const key = await makeKey(page, { name: 'patient' });
  const told: Told[] = [await ask(page, key, 'count 5')]; // the service worker now remembers the key for a while
  await page.evaluate(async () => {
    (window as unknown as { __blocker: unknown }).__blocker = await new Promise((resolve, reject) => {
      const req = indexedDB.open('inpage', 2);
      let stop = false;
      req.onupgradeneeded = () => {
        const tx = req.transaction!;
        const spin = () => {
          if (stop) return tx.abort();
          tx.objectStore('keys').count().onsuccess = spin;
        };
        spin();
        resolve({ release: () => void (stop = true) });
      };
      req.onsuccess = () => reject(new Error('the upgrade was not supposed to finish'));
    });
  });
  // With them, a stream that fails in-band: booked with its prompt once the database opens.
  const [broken, ...rest] = await Promise.all([
    ask(page, key, 'fail after 6', { stream: true }),
    ask(page, key, 'count 7'),
    ask(page, key, 'count 9', { stream: true }),
    ask(page, key, 'count 11'),
  ]);
  told.push(...rest);
  expect(told.every((t) => t.complete)).toBe(true);
  expect(broken).toEqual({ tokens: 6, complete: false });
  // Blocked past the first attempts to book (each waits up to 5 s for the database), then released.
  await page.waitForTimeout(6000);
  await page.evaluate(() => (window as unknown as { __blocker: { release(): void } }).__blocker.release());
  const prompt = await promptTokens(page, await makeKey(page, { name: 'probe' }), 'fail after 6');
  await expect.poll(() => booked(page, 'patient'), { timeout: 30_000 }).toBe(sum(told) + prompt + broken.tokens);
});

test('a new service-worker version taking over under traffic: every token the clients were told of is booked', async ({ page }) => {
  // An origin of our own, so that sw.js can change under the page (a new app version deployed).
  const server = await serveStatic(4647, { '/': TEST_BUILD_DIR });
  try {
    await openApp(page, `${server.origin}/?tokenDelayMs=2`);
    const key = await makeKey(page, { name: 'busy' });
    await page.evaluate(() => {
      const w = window as unknown as { controllerChanges: number };
      w.controllerChanges = 0;
      navigator.serviceWorker.addEventListener('controllerchange', () => w.controllerChanges++);
    });
    const told: Told[] = [];
    let round = 0;
    /** Six requests at once, streamed and not. */
    const burst = async () => {
      const r = round++;
      told.push(...(await Promise.all(Array.from({ length: 6 }, (_, i) => ask(page, key, `count ${5 + ((r * 7 + i * 3) % 30)}`, { stream: i % 2 === 0 })))));
    };
    await burst();
    const original = await readFile(join(TEST_BUILD_DIR, 'sw.js'), 'utf8');
    server.override('/sw.js', `${original}\n// version 2\n`);
    // An update() asked while the page's own check is still in flight (its register() after its isolation reload,
    // which readiness does not wait for) joins that check, which read the old script: asked again below until a new
    // version installs.
    const check = () =>
      page.evaluate(async () => {
        const registration = (await navigator.serviceWorker.getRegistration('/'))!;
        if (registration.installing || registration.waiting || registration.active?.state === 'activating') return;
        await registration.update();
      });
    const update = check();
    // Bursts while the new version installs and waits, until it has taken over, and one after. The old version
    // answers until its fetch events are done (each held until its use is booked, about a second after the last
    // use), so the bursts come with pauses, as a person's or a script's traffic does.
    const changed = () => page.evaluate(() => (window as unknown as { controllerChanges: number }).controllerChanges > 0);
    const until = Date.now() + 60_000;
    while (!(await changed()) && Date.now() < until) {
      await burst();
      await page.waitForTimeout(1500);
      if (!(await changed())) await check();
    }
    await update;
    expect(await changed()).toBe(true);
    await burst();
    expect(told.every((t) => t.complete)).toBe(true);
    // Nothing more is asked: the versions' bookings, whichever makes them, add up to what the clients were told.
    await expect.poll(() => booked(page, 'busy'), { timeout: 20_000 }).toBe(sum(told));
  } finally {
    await server.close();
  }
});
