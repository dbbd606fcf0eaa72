// Test build only: the page the floor service worker (floor-sw.ts) controls. It registers that worker at the
// scope of this page only, hands it a MessagePort to a token-feeding worker, and offers `window.floor` to the
// benchmark driver: timed requests against the fixed body and the port-fed stream.
import type { Sample } from './bench';

async function start(): Promise<void> {
  const sw = navigator.serviceWorker;
  await sw.register('/floor-sw.js', { type: 'module', scope: '/test/pages/floor' });
  // The first visit was served (and is controlled) by inpage's own worker until the floor worker claims it.
  const ours = () => sw.controller?.scriptURL.endsWith('/floor-sw.js') === true;
  while (!ours()) await new Promise((resolve) => sw.addEventListener('controllerchange', resolve, { once: true }));
  await connect();
}

/** (Re)connects the feeding worker to the controlling service worker (a stopped one forgets its port). */
let feeder: Worker | null = null;
async function connect(): Promise<void> {
  feeder ??= new Worker(new URL('./floor-worker.ts', import.meta.url), { type: 'module' });
  const channel = new MessageChannel();
  feeder.postMessage({ port: channel.port1 }, [channel.port1]);
  const acked = new Promise((resolve) => navigator.serviceWorker.addEventListener('message', resolve, { once: true }));
  navigator.serviceWorker.controller!.postMessage({ port: channel.port2 }, [channel.port2]);
  await acked;
}

/** One request, timed as bench.ts's swRun times inpage's. */
async function run(kind: 'fixed' | 'port', n: number): Promise<Sample> {
  const t0 = performance.now();
  const res = await fetch(`/floor/${kind}?n=${n}`);
  if (res.status !== 200) throw new Error(`floor ${kind}: status ${res.status}`);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let ttfb = -1;
  let ttft = -1;
  let tokens = 0;
  let bytes = 0;
  for (;;) {
    const read = await reader.read();
    if (read.done) break;
    if (ttfb < 0) ttfb = performance.now() - t0;
    bytes += read.value.byteLength;
    const text = decoder.decode(read.value, { stream: true });
    for (let at = text.indexOf('"content":" '); at >= 0; at = text.indexOf('"content":" ', at + 1)) {
      if (tokens === 0) ttft = performance.now() - t0;
      tokens++;
    }
  }
  return { ttfb, ttft, total: performance.now() - t0, tokens, bytes };
}

const floor = { ready: start(), connect, run };

declare global {
  interface Window {
    floor: typeof floor;
  }
}
window.floor = floor;
