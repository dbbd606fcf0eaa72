// Firefox stops a service worker `dom.serviceWorkers.idle_timeout` + `idle_extended_timeout` after its last event,
// even while a fetch event is in progress (30 s + 30 s by default): before worker/sw/stay-awake.ts, a JSON answer
// that took longer came back as a NetworkError (or a 200 with an empty body) and a stream was cut without its end.
// This profile shortens both (12 s + 3 s, so a worker that gets no event is stopped 15 s after the last one); the
// service worker's asks every STAY_AWAKE_MS (10 s) are answered by the page and keep it going. Two answers of
// about 20 s each, JSON then SSE, come back whole.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { makeKey } from '../browser/helpers';
import { serveStatic, TEST_BUILD_DIR, type StaticServer } from '../browser/static-server';
import { STAY_AWAKE_MS } from '../../worker/sw/stay-awake';
import { SETUP_MS, build, evaluator, firefox, newPage, openApp } from './firefox';

const IDLE_MS = 12_000;
const EXTENDED_MS = 3_000;
/** Milliseconds between the deterministic engine's tokens: "count 50" is 54 tokens, about 19 s. */
const TOKEN_DELAY_MS = 350;

describe('Firefox ESR: answers longer than the browser lets an event run', { timeout: 240_000 }, () => {
  let server: StaticServer | undefined;
  before(
    async () => {
      build('test');
      server = await serveStatic(4182, { '/': TEST_BUILD_DIR });
    },
    { timeout: SETUP_MS },
  );
  after(async () => {
    await server?.close();
  });
  const browser = firefox({ 'dom.serviceWorkers.idle_timeout': IDLE_MS, 'dom.serviceWorkers.idle_extended_timeout': EXTENDED_MS });

  test('a JSON answer and a stream that outlast the idle timeouts come back whole', async () => {
    assert.ok(STAY_AWAKE_MS < IDLE_MS, 'the asks come more often than the idle timeout');
    const page = await newPage(browser());
    await openApp(page, `${server!.origin}/?tokenDelayMs=${TOKEN_DELAY_MS}`);
    const key = await makeKey(evaluator(page));
    const numbers = Array.from({ length: 50 }, (_, i) => String(i + 1)).join(' ');
    for (const stream of [false, true]) {
      const answer = await page.evaluate(
        async (key: string, stream: boolean) => {
          const started = performance.now();
          try {
            const res = await fetch('/v1/chat/completions', {
              method: 'POST',
              headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
              body: JSON.stringify({ model: 'svc-model-5.2', stream, max_tokens: 200, messages: [{ role: 'user', content: 'count 50' }] }),
            });
            return { status: res.status, text: await res.text(), ms: performance.now() - started };
          } catch (err) {
            return { status: 0, text: String(err), ms: performance.now() - started };
          }
        },
        key,
        stream,
      );
      assert.equal(answer.status, 200, answer.text);
      // Longer than a worker that got no event would have lived.
      assert.ok(answer.ms > IDLE_MS + EXTENDED_MS, `the answer took ${answer.ms} ms`);
      if (!stream) {
        const body = JSON.parse(answer.text) as { choices: { message: { content: string }; finish_reason: string }[] };
        assert.deepEqual([body.choices[0]!.message.content, body.choices[0]!.finish_reason], [numbers, 'stop']);
        continue;
      }
      const data = answer.text
        .split('\n\n')
        .filter((block) => block.startsWith('data: '))
        .map((block) => block.slice('data: '.length));
      assert.equal(data.at(-1), '[DONE]');
      const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as { choices: { delta: { content?: string }; finish_reason: string | null }[] });
      assert.equal(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), numbers);
      assert.equal(chunks.at(-1)!.choices[0]!.finish_reason, 'stop');
    }
  });
});
