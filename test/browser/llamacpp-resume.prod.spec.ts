// Resumable GGUF downloads (worker/engine/llamacpp/resumable-cache.ts) on the production build: the model host
// (cross-origin, CORS, as Hugging Face) drops the connection half way through the file; the engine asks again
// with `Range: bytes=<what it has>-`, gets the rest (206), and the model loads and answers. Bytes fetched in all
// are the file's size: nothing is downloaded twice.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { expect, test } from '@playwright/test';
import { synthesizeGguf } from '../../scripts/gguf/synthesize';
import { GGUF_DEFAULTS } from '../../worker/engine/llamacpp/models';
import { call, chat, makeKey, openApp } from './helpers';
import { PROD_BUILD_DIR, serveStatic, type StaticServer } from './static-server';

const offset = Number(process.env.INPAGE_PORT_OFFSET ?? 0);
const spec = GGUF_DEFAULTS['qwen3-1.7b']!;
const FILE = `/${spec.repo}/resolve/main/${spec.file}`;
const model = synthesizeGguf({ seed: 7 });
const half = Math.floor(model.bytes.length / 2);

interface Get {
  range: string | undefined;
  sent: number;
}

let app: StaticServer;
let host: Server;
const gets: Get[] = [];
let dropNext = true;

test.beforeAll(async () => {
  host = createServer((req: IncomingMessage, res) => {
    const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': 'range', 'access-control-expose-headers': 'content-range, etag' };
    if (req.method === 'OPTIONS') return void res.writeHead(204, cors).end();
    if (req.url !== FILE) return void res.writeHead(404, cors).end();
    const size = model.bytes.length;
    const headers = { ...cors, 'content-type': 'application/octet-stream', etag: '"synth-7"', 'accept-ranges': 'bytes' };
    if (req.method === 'HEAD') return void res.writeHead(200, { ...headers, 'content-length': String(size) }).end();
    const range = req.headers.range;
    const get: Get = { range, sent: 0 };
    gets.push(get);
    const start = range ? Number(/^bytes=(\d+)-$/.exec(range)?.[1] ?? NaN) : 0;
    if (Number.isNaN(start)) return void res.writeHead(416, cors).end();
    const body = model.bytes.subarray(start);
    res.writeHead(range ? 206 : 200, {
      ...headers,
      'content-length': String(body.length),
      ...(range ? { 'content-range': `bytes ${start}-${size - 1}/${size}` } : {}),
    });
    if (dropNext) {
      // Half the file, then the connection closes: the client sees the body end short of its length.
      dropNext = false;
      res.write(body.subarray(0, half), () => {
        get.sent = half;
        // Time for the client to read what came (Chromium may drop unread bytes of a broken body).
        setTimeout(() => res.socket?.end(), 1500);
      });
      return;
    }
    res.end(body, () => (get.sent = body.length));
  });
  await new Promise<void>((ok) => host.listen(4644 + offset, '127.0.0.1', ok));
  app = await serveStatic(4643, { '/': PROD_BUILD_DIR });
  app.override('/inpage.config.json', JSON.stringify({ engineChoice: 'llamacpp', ggufBaseUrl: `http://127.0.0.1:${4644 + offset}`, engineHeartbeatMs: 0 }));
});

test.afterAll(async () => {
  await app?.close();
  await new Promise((ok) => host?.close(ok));
});

test('a GGUF download cut half way resumes with a Range request; the model loads and answers; no byte is fetched twice', async ({ browser }) => {
  test.setTimeout(120_000);
  const context = await browser.newContext({ baseURL: app.origin });
  const page = await context.newPage();
  await openApp(page, '/');
  const key = await makeKey(page);
  const answer = await chat(page, key, { model: 'svc-model-5.2-short-fast', messages: [{ role: 'user', content: 'Hello' }], temperature: 0, max_tokens: 5 });
  expect(answer.status).toBe(200);
  expect((answer.json as { usage: { completion_tokens: number } }).usage.completion_tokens).toBe(5);

  // Two GETs: the whole file (cut after half), then the rest from where the first stopped.
  expect(gets.map((g) => g.range)).toEqual([undefined, `bytes=${half}-`]);
  const fetched = gets.reduce((n, g) => n + g.sent, 0);
  expect(fetched).toBe(model.bytes.length);

  // The model is cached whole: /v1/models says so after it is unloaded, and a reload reads it with no GET.
  await page.evaluate(async () => (await window.inpageReady)!.engine!.control.unload());
  const models = (await call(page, '/v1/models', { headers: { authorization: `Bearer ${key}` } })).json as { data: { id: string; state: string }[] };
  expect(models.data.find((m) => m.id === 'svc-model-5.2-short')!.state).toBe('cached');
  await page.reload();
  await page.evaluate(async () => {
    await window.inpageReady;
  });
  const again = await chat(page, key, { model: 'svc-model-5.2-short-fast', messages: [{ role: 'user', content: 'Hello' }], temperature: 0, max_tokens: 5 });
  expect(again.json).toMatchObject({
    choices: [{ message: { content: (answer.json as { choices: { message: { content: string } }[] }).choices[0]!.message.content } }],
  });
  expect(gets).toHaveLength(2);
  await context.close();
});
