// Chromium ends a service worker event that lasts 5 minutes and stops the worker with it, cutting a stream the
// worker writes (worker/sw/stay-awake.ts). A stream of about 6 minutes from the test build's deterministic engine
// comes back whole: the fetch event is held at most EVENT_HOLD_MS, and the asks keep the worker alive after.
// Not in `npm test` (it takes 6 minutes): `npm run test:long`.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { chromium, type Browser } from '@playwright/test';
import chromiumFlags from '../chromium-flags.json' with { type: 'json' };
import { serveStatic, TEST_BUILD_DIR, type StaticServer } from '../browser/static-server';
import { build } from '../firefox/firefox';
import { makeKey, openApp } from '../browser/helpers';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** "count 60" is 64 tokens: about 352 s, past Chromium's 300 s per event. */
const TOKEN_DELAY_MS = 5500;

let server: StaticServer | undefined;
let browser: Browser | undefined;
before(
  async () => {
    build('test');
    server = await serveStatic(4183, { '/': TEST_BUILD_DIR });
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: chromiumFlags });
  },
  { timeout: 240_000 },
);
after(async () => {
  await browser?.close();
  await server?.close();
});

test('a stream longer than 5 minutes comes back whole in Chromium', { timeout: 600_000 }, async () => {
  const page = await browser!.newPage();
  await openApp(page, `${server!.origin}/?tokenDelayMs=${TOKEN_DELAY_MS}`);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  const key = await makeKey(page);
  const answer = await page.evaluate(async (key: string) => {
    const started = performance.now();
    try {
      const res = await fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'svc-model-5.2', stream: true, max_tokens: 200, messages: [{ role: 'user', content: 'count 60' }] }),
      });
      return { status: res.status, text: await res.text(), ms: performance.now() - started };
    } catch (err) {
      return { status: 0, text: String(err), ms: performance.now() - started };
    }
  }, key);
  assert.equal(answer.status, 200, `${answer.text} after ${answer.ms} ms`);
  assert.ok(answer.ms > 300_000, `the answer took ${answer.ms} ms`);
  const data = answer.text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length));
  assert.equal(data.at(-1), '[DONE]');
  const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as { choices: { delta: { content?: string } }[] });
  const numbers = Array.from({ length: 60 }, (_, i) => String(i + 1)).join(' ');
  assert.equal(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), numbers);
});
