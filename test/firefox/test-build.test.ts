// Firefox smoke set, test build (the deterministic engine of test/engine): the workspace through the UI, then
// /v1 as a client of the origin calls it, then the Playground. Every request is a POST read by the service
// worker, the path that failed in Firefox (no body stream on a fetch event's request).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'puppeteer-core';
import { auth, call, chat, sseEvents, type Answer } from '../browser/helpers';
import { serveStatic, TEST_BUILD_DIR, type StaticServer } from '../browser/static-server';
import { SETUP_MS, build, createKeyThroughForm, evaluator, firefox, newPage, openApp, registerThroughForm, textOnceMatching } from './firefox';

interface Chunk {
  choices: { delta: { role?: string; content?: string }; finish_reason: string | null }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

const ok = (answer: Answer) => assert.equal(answer.status, 200, answer.text);

describe('Firefox ESR, test build', { timeout: 240_000 }, () => {
  let server: StaticServer | undefined;
  before(
    async () => {
      build('test');
      server = await serveStatic(4180, { '/': TEST_BUILD_DIR });
    },
    { timeout: SETUP_MS },
  );
  after(async () => {
    await server?.close();
  });
  const browser = firefox();

  let page: Page;
  let key: string;
  test('the app starts under its service worker, without WebGPU; sign-up and a key through the UI', async () => {
    page = await newPage(browser());
    const started = await openApp(page, `${server!.origin}/`);
    assert.deepEqual(started, { controlled: true, webgpu: false });
    const org = await registerThroughForm(page, 'Firefox workspace');
    key = await createKeyThroughForm(page, 'firefox key');
    // The key works, and the models are the workspace's.
    const models = await call(evaluator(page), '/v1/models', { headers: auth(key) });
    ok(models);
    const data = (models.json as { data: { id: string; owned_by: string }[] }).data;
    assert.ok(data.some((m) => m.id === 'svc-model-5.2-fast'));
    assert.deepEqual(new Set(data.map((m) => m.owned_by)), new Set([org]));
  });

  test('chat completion, JSON', async () => {
    const answer = await chat(evaluator(page), key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'hello firefox' }] });
    ok(answer);
    const body = answer.json as { object: string; model: string; choices: { message: { role: string; content: string }; finish_reason: string }[] };
    assert.equal(body.object, 'chat.completion');
    assert.equal(body.model, 'svc-model-5.2-fast');
    assert.deepEqual(
      body.choices.map((c) => [c.message.role, c.message.content, c.finish_reason]),
      [['assistant', 'Echo: hello firefox', 'stop']],
    );
  });

  test('chat completion, stream with usage', async () => {
    const answer = await chat(evaluator(page), key, {
      model: 'svc-model-5.2-fast',
      messages: [{ role: 'user', content: 'count 5' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    ok(answer);
    assert.match(answer.headers['content-type'] ?? '', /^text\/event-stream/);
    const events = sseEvents(answer.text);
    assert.equal(events.at(-1), '[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e) as Chunk);
    assert.deepEqual(chunks[0]!.choices[0]!.delta, { role: 'assistant', content: '' });
    assert.equal(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), '1 2 3 4 5');
    assert.equal(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]!.finish_reason, 'stop');
    // The usage chunk comes last, with no choices; its completion is the 5 numbers.
    const usage = chunks.at(-1)!;
    assert.deepEqual(usage.choices, []);
    assert.equal(usage.usage!.completion_tokens, 5);
    assert.equal(usage.usage!.total_tokens, usage.usage!.prompt_tokens + 5);
  });

  test('Responses: created, then retrieved by id', async () => {
    const created = await call(evaluator(page), '/v1/responses', {
      method: 'POST',
      headers: auth(key),
      body: JSON.stringify({ model: 'svc-model-5.2-short', input: 'hello responses' }),
    });
    ok(created);
    const response = created.json as { id: string; object: string; status: string; output: { type: string; content: { type: string; text: string }[] }[] };
    assert.equal(response.object, 'response');
    assert.equal(response.status, 'completed');
    assert.deepEqual(
      response.output.map((item) => [item.type, item.content[0]!.text]),
      [
        ['reasoning', 'Thinking about: hello responses'],
        ['message', 'Echo: hello responses'],
      ],
    );
    const got = await call(evaluator(page), `/v1/responses/${response.id}`, { headers: auth(key) });
    ok(got);
    assert.deepEqual(got.json, response);
  });

  test('embeddings: 384 unit-length dimensions, the same input the same vector', async () => {
    const answer = await call(evaluator(page), '/v1/embeddings', {
      method: 'POST',
      headers: auth(key),
      body: JSON.stringify({ model: 'svc-embed', input: ['the cat sat', 'on the mat', 'the cat sat'], encoding_format: 'float' }),
    });
    ok(answer);
    const body = answer.json as { object: string; data: { index: number; embedding: number[] }[]; usage: unknown };
    assert.equal(body.object, 'list');
    assert.deepEqual(
      body.data.map((d) => d.index),
      [0, 1, 2],
    );
    const [a, b, c] = body.data.map((d) => d.embedding);
    for (const v of [a!, b!, c!]) {
      assert.equal(v.length, 384);
      assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5, `norm ${Math.hypot(...v)}`);
    }
    assert.deepEqual(c, a);
    assert.notDeepEqual(b, a);
    // The test engine's tokens: three words each.
    assert.deepEqual(body.usage, { prompt_tokens: 9, total_tokens: 9 });
  });

  test('Playground: a key of its own, a message sent, the answer shown', async () => {
    await page.locator('nav a[href="#playground"]').click();
    await page.locator('button::-p-text("Create a Playground key")').click();
    await textOnceMatching(page, '[data-testid="pg-key"]', /^sk-svc-.{4}….{4}$/);
    await page.locator('#pg-model').wait();
    await page.select('#pg-model', 'svc-model-5.2-fast');
    await page.locator('#pg-message').fill('hello from firefox');
    await page.keyboard.press('Enter');
    const shown = await textOnceMatching(page, '.turn.assistant[data-status="done"] .answer', /\S/);
    assert.equal(shown.trim(), 'Echo: hello from firefox');
  });
});
