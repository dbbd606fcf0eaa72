// Nothing hangs, nothing is lost: aborts, no engine, a restarted service worker, a full queue.
import { expect, test, type Page } from '@playwright/test';
import { auth, call, chat, deployConfig, makeKey, openApp, stopServiceWorker } from './helpers';

const long = { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'count 100000' }], stream: true };

/** Starts a long stream in the page, reads `chunks` events of it, aborts it; returns what it read. */
async function abortAfter(page: Page, key: string, chunks: number): Promise<string> {
  return page.evaluate(
    async ({ key, body, chunks }) => {
      const controller = new AbortController();
      const res = await fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: controller.signal,
      });
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      while (text.split('\n\n').length <= chunks) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      controller.abort();
      return text;
    },
    { key, body: long, chunks },
  );
}

test('aborting a stream stops its generation: the next request is served at once', async ({ page }) => {
  // 100,000 tokens at 2 ms each would hold the engine for minutes if the abort did not stop it.
  await openApp(page, '/?tokenDelayMs=2');
  const key = await makeKey(page);
  const read = await abortAfter(page, key, 5);
  expect(read).toContain('"content":"1"');
  expect(read).not.toContain('[DONE]');
  const next = await chat(page, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'still there?' }] });
  expect(next.status).toBe(200);
  expect((next.json as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe('Echo: still there?');
});

test('an aborted queued request is dropped when its turn comes; aborting a JSON request stops it', async ({ page }) => {
  await openApp(page, '/?tokenDelayMs=2');
  const key = await makeKey(page);
  const outcome = await page.evaluate(
    async ({ key, body }) => {
      const post = (b: unknown, signal?: AbortSignal) =>
        fetch('/v1/chat/completions', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(b),
          signal,
        });
      const first = new AbortController();
      const queued = new AbortController();
      // A JSON answer's headers come when generation begins; its body when the reply is complete.
      const running = post({ ...body, stream: false }, first.signal)
        .then((r) => r.json())
        .catch((e: Error) => e.name);
      await new Promise((r) => setTimeout(r, 200));
      const waiting = post({ ...body, stream: false }, queued.signal)
        .then((r) => r.json())
        .catch((e: Error) => e.name);
      await new Promise((r) => setTimeout(r, 100));
      queued.abort();
      first.abort();
      const after = await post({ model: body.model, messages: [{ role: 'user', content: 'next' }] });
      return { running: await running, waiting: await waiting, after: after.status, content: (await after.json()).choices[0].message.content };
    },
    { key, body: long },
  );
  expect(outcome).toEqual({ running: 'AbortError', waiting: 'AbortError', after: 200, content: 'Echo: next' });
});

test('with no engine connected, /v1 answers 503 engine_unavailable instead of hanging', async ({ page }) => {
  await openApp(page, '/?engine=off');
  const key = await makeKey(page);
  const answer = await chat(page, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'anyone?' }] });
  expect(answer.status).toBe(503);
  expect(answer.json).toEqual({
    error: { message: expect.stringContaining('No inference engine'), type: 'server_error', param: null, code: 'engine_unavailable' },
  });
  const streamed = await chat(page, key, { ...long, messages: [{ role: 'user', content: 'anyone?' }] });
  expect(streamed.status).toBe(503);
  // The model list still answers, saying the models cannot be used now.
  const models = await call(page, '/v1/models', { headers: { authorization: `Bearer ${key}` } });
  expect(models.status).toBe(200);
  expect((models.json as { data: { state: string }[] }).data.every((m) => m.state === 'unavailable')).toBe(true);
});

test('a service worker the browser stopped gets its engine port back without a reload', async ({ page }) => {
  await openApp(page);
  const key = await makeKey(page);
  const ask = () => chat(page, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'again' }] });
  expect((await ask()).status).toBe(200);

  await stopServiceWorker(page);

  const after = await ask();
  expect(after.status).toBe(200);
  expect((after.json as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe('Echo: again');
});

test('a restarted service worker asks for its port both ways; the page answers each ask with one port', async ({ page }) => {
  await openApp(page);
  const key = await makeKey(page);
  // Count the page's port offers, and the asks that reach it on the BroadcastChannel and by postMessage.
  await page.evaluate(() => {
    const w = window as unknown as { __offers: number; __asks: string[] };
    w.__offers = 0;
    w.__asks = [];
    const post = ServiceWorker.prototype.postMessage;
    ServiceWorker.prototype.postMessage = function (this: ServiceWorker, ...args: Parameters<ServiceWorker['postMessage']>) {
      if ((args[0] as { type?: string } | null)?.type === 'inpage:engine-port') w.__offers++;
      return post.apply(this, args as never);
    } as ServiceWorker['postMessage'];
    const note = (how: string) => (e: MessageEvent) => {
      if ((e.data as { type?: string } | null)?.type === 'inpage:engine-port-request') w.__asks.push(`${how}:${(e.data as { ask: string }).ask}`);
    };
    new BroadcastChannel('inpage-engine-port').addEventListener('message', note('broadcast'));
    navigator.serviceWorker.addEventListener('message', note('post'));
  });
  await stopServiceWorker(page);
  const after = await chat(page, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'again' }] });
  expect(after.status).toBe(200);
  expect((after.json as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe('Echo: again');
  await expect.poll(() => page.evaluate(() => (window as unknown as { __asks: string[] }).__asks.length)).toBe(2);
  const seen = await page.evaluate(() => {
    const w = window as unknown as { __offers: number; __asks: string[] };
    return { offers: w.__offers, asks: w.__asks };
  });
  // One ask, come both ways, under one name; answered once.
  const names = seen.asks.map((a) => a.split(':')[1]);
  expect(seen.asks.map((a) => a.split(':')[0]).sort()).toEqual(['broadcast', 'post']);
  expect(names[0]).toBe(names[1]);
  expect(seen.offers).toBe(1);
});

test('a full queue answers 429 queue_full with retry-after, and frees up afterwards', async ({ page }) => {
  await deployConfig(page.context(), { queueDepth: 1 });
  await openApp(page, '/?tokenDelayMs=2');
  const key = await makeKey(page);
  const outcome = await page.evaluate(
    async ({ key, body }) => {
      const controllers: AbortController[] = [];
      const post = (b: unknown) => {
        const c = new AbortController();
        controllers.push(c);
        return fetch('/v1/chat/completions', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(b),
          signal: c.signal,
        });
      };
      const running = post(body).catch(() => null);
      await new Promise((r) => setTimeout(r, 200));
      const queued = post(body).catch(() => null);
      await new Promise((r) => setTimeout(r, 100));
      const rejected = await post(body);
      const result = { status: rejected.status, retryAfter: rejected.headers.get('retry-after'), body: await rejected.json() };
      for (const c of controllers) c.abort();
      await Promise.all([running, queued]);
      // A polite client: on 429, wait as told and try again (bounded).
      let after = 0;
      for (let attempt = 0; attempt < 10; attempt++) {
        const res = await fetch('/v1/chat/completions', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'room now?' }] }),
        });
        after = res.status;
        if (after !== 429) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      return { ...result, after };
    },
    { key, body: long },
  );
  expect(outcome.status).toBe(429);
  expect(Number(outcome.retryAfter)).toBeGreaterThanOrEqual(1);
  expect(outcome.body.error).toMatchObject({ type: 'rate_limit_exceeded', code: 'queue_full', param: null });
  expect(outcome.after).toBe(200);
});

test('errors that can be checked before generation keep their status for streams too', async ({ page }) => {
  await openApp(page);
  const key = await makeKey(page);
  const answer = await call(page, '/v1/chat/completions', {
    method: 'POST',
    headers: auth(key),
    body: JSON.stringify({ ...long, model: 'svc-model-5.2-fast', n: 3 }),
  });
  expect(answer.status).toBe(400);
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
});

test('a JSON request that fails after generation began breaks its body, like a dropped connection', async ({ page }) => {
  await openApp(page);
  const key = await makeKey(page);
  const outcome = await page.evaluate(async (key) => {
    const res = await fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'fail after 2' }] }),
    });
    const body = await res.json().then(
      () => 'parsed',
      (e: Error) => e.name,
    );
    return { status: res.status, body };
  }, key);
  expect(outcome).toEqual({ status: 200, body: 'TypeError' });
  // And the next request is fine.
  expect((await chat(page, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'ok?' }] })).status).toBe(200);
});
