/// <reference lib="webworker" />
// Test build only: the floor the benchmark (scripts/bench.mjs) sets inpage's service worker beside. A bare
// service worker with no routing, keys, validation or engine, controlling only test/pages/floor.html:
//  - `fixed?n=N`: answers N chat-completion chunks as one fixed SSE body;
//  - `port?n=N`: asks a worker (test/pages/floor-worker.ts, over a MessagePort the page hands over) for N tokens,
//    which come 32 to a message, and writes each message as one string, one encode, one enqueue.
export {};
declare const self: ServiceWorkerGlobalScope;

const encoder = new TextEncoder();
const HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };
// The same fields, in the same order and of the same lengths, as inpage's chunks for the bench's model (a
// 32-hex-digit id, a 10-digit time, the test build's fingerprint), so both paths carry the same bytes per
// event and the ratio measures the service layer, not the length of the id (an earlier floor sent ~20% fewer
// bytes per event). The bench reports both paths' bytes per event beside the ceiling.
const meta = {
  id: `chatcmpl-${'0123456789abcdef'.repeat(2)}`,
  created: Math.floor(Date.now() / 1000),
  model: 'svc-model-5.2-fast',
  system_fingerprint: 'fp_test_Qwen3-8B-q4f32_1-MLC',
  object: 'chat.completion.chunk',
};
const chunk = (delta: Record<string, string>, finish: string | null = null) =>
  `data: ${JSON.stringify({ ...meta, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
// A content chunk is the least a bare worker can do per token: the same text as `chunk`, from a prefix and a
// suffix written once around the token's JSON string.
const [contentHead, contentTail] = chunk({ content: '\u0000' }).split('"\\u0000"');
const contentChunk = (token: string) => contentHead + JSON.stringify(token) + contentTail;

let feeder: MessagePort | null = null;
let nextId = 0;
const streams = new Map<number, ReadableStreamDefaultController<Uint8Array>>();

self.addEventListener('install', () => void self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('message', (event) => {
  const port = (event.data as { port?: MessagePort } | null)?.port;
  if (!port) return;
  feeder = port;
  feeder.onmessage = (e: MessageEvent<{ id: number; tokens?: string[]; done?: boolean }>) => {
    const controller = streams.get(e.data.id);
    if (!controller) return;
    if (e.data.tokens) {
      let text = '';
      for (const token of e.data.tokens) text += contentChunk(token);
      controller.enqueue(encoder.encode(text));
    }
    if (e.data.done) {
      controller.enqueue(encoder.encode(chunk({}, 'stop') + 'data: [DONE]\n\n'));
      controller.close();
      streams.delete(e.data.id);
    }
  };
  event.source?.postMessage('floor-port');
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (!url.pathname.startsWith('/floor/')) return;
  const n = Number(url.searchParams.get('n') ?? 1);
  if (url.pathname === '/floor/fixed') {
    let body = chunk({ role: 'assistant', content: '' });
    for (let i = 1; i <= n; i++) body += chunk({ content: ` ${i}` });
    body += chunk({}, 'stop') + 'data: [DONE]\n\n';
    event.respondWith(new Response(body, { headers: HEADERS }));
    return;
  }
  if (url.pathname === '/floor/port') {
    if (!feeder) {
      event.respondWith(new Response('no feeder port', { status: 503 }));
      return;
    }
    const id = ++nextId;
    const port = feeder;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        streams.set(id, controller);
        controller.enqueue(encoder.encode(chunk({ role: 'assistant', content: '' })));
        port.postMessage({ id, n });
      },
    });
    event.respondWith(new Response(body, { headers: HEADERS }));
  }
});
