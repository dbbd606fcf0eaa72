// WebKit smoke set, test build (the deterministic engine of test/engine), in Safari's engine (WebKitGTK's
// MiniBrowser): the workspace through the UI, then /v1 as a client of the origin calls it, then the Playground.
// The same steps as the Firefox set (test/firefox/test-build.test.ts), driven over classic WebDriver.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { auth, call, chat, sseEvents, type Answer } from '../browser/helpers';
import { serveStatic, TEST_BUILD_DIR, type StaticServer } from '../browser/static-server';
import { SETUP_MS, build, createKeyThroughForm, openApp, registerThroughForm, webkit, type WebKitPage } from './webkit';

interface Chunk {
  choices: { delta: { role?: string; content?: string }; finish_reason: string | null }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

const ok = (answer: Answer) => assert.equal(answer.status, 200, answer.text);

describe('WebKit (MiniBrowser), test build', { timeout: 300_000 }, () => {
  let server: StaticServer | undefined;
  before(
    async () => {
      build('test');
      server = await serveStatic(4184, { '/': TEST_BUILD_DIR });
    },
    { timeout: SETUP_MS },
  );
  after(async () => {
    await server?.close();
  });
  const browser = webkit();

  let page: WebKitPage;
  let key: string;
  test('the app starts under its service worker, without WebGPU; sign-up and a key through the UI', async () => {
    page = browser();
    const started = await openApp(page, `${server!.origin}/`);
    assert.deepEqual(started, { controlled: true, webgpu: false });
    const org = await registerThroughForm(page, 'WebKit workspace');
    key = await createKeyThroughForm(page, 'webkit key');
    const models = await call(page, '/v1/models', { headers: auth(key) });
    ok(models);
    const data = (models.json as { data: { id: string; owned_by: string }[] }).data;
    assert.ok(data.some((m) => m.id === 'svc-model-5.2-fast'));
    assert.deepEqual(new Set(data.map((m) => m.owned_by)), new Set([org]));
  });

  test('chat completion, JSON', async () => {
    const answer = await chat(page, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'hello webkit' }] });
    ok(answer);
    const body = answer.json as { object: string; model: string; choices: { message: { role: string; content: string }; finish_reason: string }[] };
    assert.equal(body.object, 'chat.completion');
    assert.equal(body.model, 'svc-model-5.2-fast');
    assert.deepEqual(
      body.choices.map((c) => [c.message.role, c.message.content, c.finish_reason]),
      [['assistant', 'Echo: hello webkit', 'stop']],
    );
  });

  test('chat completion, stream with usage', async () => {
    const answer = await chat(page, key, {
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
    const usage = chunks.at(-1)!;
    assert.deepEqual(usage.choices, []);
    assert.equal(usage.usage!.completion_tokens, 5);
    assert.equal(usage.usage!.total_tokens, usage.usage!.prompt_tokens + 5);
  });

  test('Responses: created, then retrieved by id', async () => {
    const created = await call(page, '/v1/responses', {
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
    const got = await call(page, `/v1/responses/${response.id}`, { headers: auth(key) });
    ok(got);
    assert.deepEqual(got.json, response);
  });

  test('Playground: a key of its own, a message sent, the answer shown', async () => {
    await page.click(await page.find('nav a[href="#playground"]'));
    await page.click(await page.findByText('button', 'Create a Playground key'));
    await page.textOnceMatching('[data-testid="pg-key"]', /^sk-svc-.{4}….{4}$/);
    await page.click(await page.find('#pg-model option[value="svc-model-5.2-fast"]'));
    assert.equal(await page.evaluate(() => (document.querySelector('#pg-model') as HTMLSelectElement).value, null), 'svc-model-5.2-fast');
    await page.type(await page.find('#pg-message'), 'hello from webkit\uE007');
    const shown = await page.textOnceMatching('.turn.assistant[data-status="done"] .answer', /\S/);
    assert.equal(shown.trim(), 'Echo: hello from webkit');
  });
});
