// Many tabs, one engine: the tab holding the Web Lock hosts it, the others wait and take over when it closes.
// Requests in flight on a closed host end (503 or a [DONE]-terminated stream); queued ones move to the new host.
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { chat, makeKey, openApp, sseEvents } from './helpers';

const fast = 'svc-model-5.2-fast';

async function openTab(context: BrowserContext, path: string): Promise<Page> {
  const page = await context.newPage();
  await openApp(page, path);
  return page;
}

const hosts = (page: Page) => page.evaluate(() => window.inpage?.engine != null);

/** Starts, from `page`, a long stream and a queued JSON request behind it; both are kept on `window`. */
async function startWork(page: Page, key: string, label: string): Promise<void> {
  await page.evaluate(
    ({ key, label }) => {
      const w = window as unknown as Record<string, unknown>;
      const post = (body: unknown) =>
        fetch('/v1/chat/completions', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      w[`${label}Chunks`] = 0;
      w[`${label}Stream`] = (async () => {
        const res = await post({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'count 100000' }], stream: true });
        const reader = res.body!.getReader();
        const decoder = new TextDecoder();
        let text = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return { status: res.status, text };
          text += decoder.decode(value, { stream: true });
          w[`${label}Chunks`] = text.split('\n\n').length;
        }
      })();
      // Queued behind the stream on the same engine (it runs one generation at a time).
      w[`${label}Queued`] = new Promise((r) => setTimeout(r, 150)).then(async () => {
        const res = await post({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: `queued ${label}` }] });
        return { status: res.status, body: await res.json() };
      });
    },
    { key, label },
  );
  await page.waitForFunction((label) => ((window as unknown as Record<string, number>)[`${label}Chunks`] ?? 0) > 10, label);
  await page.waitForTimeout(300); // let the queued request reach the engine's queue
}

async function outcome(page: Page, label: string) {
  return page.evaluate(async (label) => {
    const w = window as unknown as Record<string, Promise<unknown>>;
    return {
      stream: (await w[`${label}Stream`]) as { status: number; text: string },
      queued: (await w[`${label}Queued`]) as { status: number; body: unknown },
    };
  }, label);
}

/** The stream from a host that closed: it began, then an in-band engine_unavailable error, then [DONE]. */
function expectCutStream(stream: { status: number; text: string }): void {
  expect(stream.status).toBe(200);
  const events = sseEvents(stream.text);
  expect(events.at(-1)).toBe('[DONE]');
  const error = JSON.parse(events.at(-2)!) as { error: { code: string; type: string } };
  expect(error.error).toMatchObject({ code: 'engine_unavailable', type: 'server_error' });
  expect(events.length).toBeGreaterThan(10);
}

/** Waits (bounded) until one of `pages` hosts the engine; returns it and the wall-clock ms it took since `since`. */
async function nextHost(pages: Page[], since: number): Promise<{ page: Page; ms: number }> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    for (const page of pages) {
      if (await hosts(page)) {
        const at = await page.evaluate(() => performance.timeOrigin + (window.inpage as unknown as { engineAt?: number }).engineAt!);
        return { page, ms: at - since };
      }
    }
    if (Date.now() > deadline) throw new Error('No tab took over the engine within 15 s.');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Records, in each tab, when it started hosting (performance.now()), for the takeover figure. */
async function noteHosting(page: Page): Promise<void> {
  await page.evaluate(() => {
    const api = window.inpage as unknown as { engineAt?: number; onEngine(l: () => void): void };
    api.onEngine(() => (api.engineAt ??= performance.now()));
  });
}

test('two tabs: one hosts; closing it mid-stream ends the stream with [DONE], the queued request moves to the other tab', async ({ context }) => {
  const first = await openTab(context, '/?tokenDelayMs=5');
  const second = await openTab(context, '/?tokenDelayMs=5');
  expect(await hosts(first)).toBe(true);
  expect(await hosts(second)).toBe(false);
  await noteHosting(second);
  const key = await makeKey(second);
  // The second tab's requests are served by the first tab's engine.
  const before = await chat(second, key, { model: fast, messages: [{ role: 'user', content: 'who answers?' }] });
  expect(before.json).toMatchObject({ choices: [{ message: { content: 'Echo: who answers?' } }] });

  await startWork(second, key, 'a');
  const closedAt = Date.now();
  await first.close();
  const { stream, queued } = await outcome(second, 'a');
  expectCutStream(stream);
  expect(queued.status).toBe(200);
  expect(queued.body).toMatchObject({ choices: [{ message: { content: 'Echo: queued a' } }] });

  const takeover = await nextHost([second], closedAt);
  test.info().annotations.push({ type: 'takeover-ms', description: String(Math.round(takeover.ms)) });
  console.log(`takeover (two tabs): ${Math.round(takeover.ms)} ms from closing the host tab to the new host's engine`);
  const after = await chat(second, key, { model: fast, messages: [{ role: 'user', content: 'still here' }] });
  expect(after.json).toMatchObject({ choices: [{ message: { content: 'Echo: still here' } }] });
});

test('three tabs: the host closes twice; each time another tab takes over and requests keep being answered', async ({ context }) => {
  const tabs = [await openTab(context, '/?tokenDelayMs=5'), await openTab(context, '/?tokenDelayMs=5'), await openTab(context, '/?tokenDelayMs=5')];
  expect(await Promise.all(tabs.map(hosts))).toEqual([true, false, false]);
  for (const tab of tabs) await noteHosting(tab);
  const key = await makeKey(tabs[2]!);

  let host = tabs[0]!;
  let others = [tabs[1]!, tabs[2]!];
  for (const round of ['b', 'c']) {
    const client = others.at(-1)!;
    await startWork(client, key, round);
    const closedAt = Date.now();
    await host.close();
    const { stream, queued } = await outcome(client, round);
    expectCutStream(stream);
    expect(queued.status).toBe(200);
    expect(queued.body).toMatchObject({ choices: [{ message: { content: `Echo: queued ${round}` } }] });
    const next = await nextHost(others, closedAt);
    console.log(`takeover (three tabs, round ${round}): ${Math.round(next.ms)} ms`);
    test.info().annotations.push({ type: 'takeover-ms', description: String(Math.round(next.ms)) });
    // Exactly one tab hosts.
    expect((await Promise.all(others.map(hosts))).filter(Boolean)).toHaveLength(1);
    host = next.page;
    others = others.filter((p) => p !== host);
    for (const page of [host, ...others]) {
      const answer = await chat(page, key, { model: fast, messages: [{ role: 'user', content: `round ${round}` }] });
      expect(answer.json).toMatchObject({ choices: [{ message: { content: `Echo: round ${round}` } }] });
    }
  }
});

test('with the host closed and no tab to take over, queued requests end with 503 engine_unavailable', async ({ context }) => {
  const host = await openTab(context, '/?tokenDelayMs=5');
  const client = await openTab(context, '/?engine=off');
  expect(await hosts(client)).toBe(false);
  const key = await makeKey(client);
  await startWork(client, key, 'z');
  await host.close();
  const { stream, queued } = await outcome(client, 'z');
  expectCutStream(stream);
  expect(queued.status).toBe(503);
  expect(queued.body).toMatchObject({ error: { code: 'engine_unavailable', type: 'server_error' } });
});

test('a JSON request running on the closed host breaks off like a dropped connection; a queued stream moves and completes', async ({ context }) => {
  const host = await openTab(context, '/?tokenDelayMs=5');
  const other = await openTab(context, '/?tokenDelayMs=5');
  const key = await makeKey(other);
  await other.evaluate((key) => {
    const w = window as unknown as Record<string, unknown>;
    const post = (body: unknown) =>
      fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    // A JSON answer's status and headers come when generation begins; its body when the reply is complete.
    w.running = post({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'count 100000' }] }).then(async (res) => {
      w.runningStatus = res.status;
      return res.json().then(
        () => 'parsed',
        (e: Error) => e.name,
      );
    });
    w.queued = new Promise((r) => setTimeout(r, 150)).then(async () => {
      const res = await post({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'count 3' }], stream: true });
      return { status: res.status, text: await res.text() };
    });
  }, key);
  await other.waitForFunction(() => (window as unknown as { runningStatus?: number }).runningStatus === 200);
  await other.waitForTimeout(300);
  await host.close();
  const { running, queued } = await other.evaluate(async () => {
    const w = window as unknown as Record<string, Promise<unknown>>;
    return { running: await w.running, queued: (await w.queued) as { status: number; text: string } };
  });
  expect(running).toBe('TypeError');
  expect(queued.status).toBe(200);
  const events = sseEvents(queued.text);
  expect(events.at(-1)).toBe('[DONE]');
  const content = events
    .slice(0, -1)
    .map((e) => (JSON.parse(e) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '')
    .join('');
  expect(content).toBe('1 2 3');
});

test('a dedicated worker, a shared worker and a frame of the page reach the engine through /v1', async ({ page }) => {
  await openApp(page);
  const key = await makeKey(page);
  const results = await page.evaluate(async (key) => {
    const code = `
      async function ask(origin, key, text) {
        const res = await fetch(origin + '/v1/chat/completions', {
          method: 'POST',
          headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: text }] }),
        });
        return { status: res.status, body: await res.json() };
      }
      const reply = (port, data) => ask(data.origin, data.key, data.text).then((r) => port.postMessage(r), (e) => port.postMessage({ error: String(e) }));
      if (typeof SharedWorkerGlobalScope !== 'undefined' && self instanceof SharedWorkerGlobalScope) {
        self.onconnect = (e) => { const port = e.ports[0]; port.onmessage = (m) => reply(port, m.data); };
      } else {
        self.onmessage = (m) => reply(self, m.data);
      }`;
    const url = URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
    const origin = location.origin;
    const dedicated = await new Promise((resolve) => {
      const worker = new Worker(url);
      worker.onmessage = (e) => resolve(e.data);
      worker.postMessage({ origin, key, text: 'from a worker' });
    });
    const shared = await new Promise((resolve) => {
      const worker = new SharedWorker(url);
      worker.port.onmessage = (e) => resolve(e.data);
      worker.port.postMessage({ origin, key, text: 'from a shared worker' });
    });
    const frame = document.createElement('iframe');
    frame.src = '/?engine=off';
    document.body.append(frame);
    await new Promise((r) => frame.addEventListener('load', r, { once: true }));
    const res = await frame.contentWindow!.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'from a frame' }] }),
    });
    const framed = { status: res.status, body: await res.json(), controlled: frame.contentWindow!.navigator.serviceWorker.controller !== null };
    return { dedicated, shared, framed };
  }, key);
  expect(results.dedicated).toMatchObject({ status: 200, body: { choices: [{ message: { content: 'Echo: from a worker' } }] } });
  expect(results.shared).toMatchObject({ status: 200, body: { choices: [{ message: { content: 'Echo: from a shared worker' } }] } });
  expect(results.framed).toMatchObject({ status: 200, controlled: true, body: { choices: [{ message: { content: 'Echo: from a frame' } }] } });
});
