// The smoke set of the test build (the deterministic engine of test/engine), one list of steps that each browser
// of the smoke runs (test/firefox, test/webkit): the workspace through the UI, then /v1 as a client of the origin
// calls it, then the Playground. Every /v1 request is read by the service worker, the path that failed in
// Firefox (no body stream on a fetch event's request). A browser's file supplies only how it drives a page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { auth, call, chat, sseEvents, type Answer, type Evaluator } from '../browser/helpers';
import { build } from '../firefox/firefox';
import { serveStatic, TEST_BUILD_DIR, type StaticServer } from '../browser/static-server';

/** How one browser's smoke drives a page; `P` is its page type. */
export interface SmokeBrowser<P> {
  /** In the suite's name, e.g. "Firefox ESR". */
  name: string;
  /** In the texts the steps send, e.g. "firefox". */
  word: string;
  /** The test build's static server port (each browser its own, so the sets may run side by side). */
  port: number;
  /** The whole suite's bound. */
  timeoutMs: number;
  /** How long the build and the server may take. */
  setupMs: number;
  /** Registers the browser's start and end around the suite (node:test hooks); returns how to get a fresh page. */
  launch(): () => Promise<P>;
  openApp(page: P, url: string): Promise<{ controlled: boolean; webgpu: boolean }>;
  registerThroughForm(page: P, name: string): Promise<string>;
  createKeyThroughForm(page: P, name: string): Promise<string>;
  /** The page as the shared helpers' Evaluator (call, chat). */
  evaluator(page: P): Evaluator;
  /** In the Playground: creates its key, picks `model`, sends `text`; returns the answer shown once done. */
  playground(page: P, model: string, text: string): Promise<string>;
}

interface Chunk {
  choices: { delta: { role?: string; content?: string }; finish_reason: string | null }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

const ok = (answer: Answer) => assert.equal(answer.status, 200, answer.text);

export function testBuildSmoke<P>(b: SmokeBrowser<P>): void {
  describe(`${b.name}, test build`, { timeout: b.timeoutMs }, () => {
    let server: StaticServer | undefined;
    before(
      async () => {
        build('test');
        server = await serveStatic(b.port, { '/': TEST_BUILD_DIR });
      },
      { timeout: b.setupMs },
    );
    after(async () => {
      await server?.close();
    });
    const newPage = b.launch();

    let page: P;
    let client: Evaluator;
    let key: string;
    test('the app starts under its service worker, without WebGPU; sign-up and a key through the UI', async () => {
      page = await newPage();
      client = b.evaluator(page);
      const started = await b.openApp(page, `${server!.origin}/`);
      assert.deepEqual(started, { controlled: true, webgpu: false });
      const org = await b.registerThroughForm(page, `${b.name} workspace`);
      key = await b.createKeyThroughForm(page, `${b.word} key`);
      // The key works, and the models are the workspace's.
      const models = await call(client, '/v1/models', { headers: auth(key) });
      ok(models);
      const data = (models.json as { data: { id: string; owned_by: string }[] }).data;
      assert.ok(data.some((m) => m.id === 'svc-model-5.2-fast'));
      assert.deepEqual(new Set(data.map((m) => m.owned_by)), new Set([org]));
    });

    test('chat completion, JSON', async () => {
      const answer = await chat(client, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: `hello ${b.word}` }] });
      ok(answer);
      const body = answer.json as { object: string; model: string; choices: { message: { role: string; content: string }; finish_reason: string }[] };
      assert.equal(body.object, 'chat.completion');
      assert.equal(body.model, 'svc-model-5.2-fast');
      assert.deepEqual(
        body.choices.map((c) => [c.message.role, c.message.content, c.finish_reason]),
        [['assistant', `Echo: hello ${b.word}`, 'stop']],
      );
    });

    test('chat completion, stream with usage', async () => {
      const answer = await chat(client, key, {
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
      const created = await call(client, '/v1/responses', {
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
      const got = await call(client, `/v1/responses/${response.id}`, { headers: auth(key) });
      ok(got);
      assert.deepEqual(got.json, response);
    });

    test('embeddings: 384 unit-length dimensions, the same input the same vector', async () => {
      const answer = await call(client, '/v1/embeddings', {
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
      const [x, y, z] = body.data.map((d) => d.embedding);
      for (const v of [x!, y!, z!]) {
        assert.equal(v.length, 384);
        assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5, `norm ${Math.hypot(...v)}`);
      }
      assert.deepEqual(z, x);
      assert.notDeepEqual(y, x);
      // The test engine's tokens: three words each.
      assert.deepEqual(body.usage, { prompt_tokens: 9, total_tokens: 9 });
    });

    test('Playground: a key of its own, a message sent, the answer shown', async () => {
      const shown = await b.playground(page, 'svc-model-5.2-fast', `hello from ${b.word}`);
      assert.equal(shown.trim(), `Echo: hello from ${b.word}`);
    });
  });
}
