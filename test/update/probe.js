// The page side of update-without-devtools.test.ts, loaded by the app's index.html as the test's server serves it:
// three clients loop without pause (two streams, one JSON), retrying the hand-over's 503 after retry-after-ms as the
// SDKs do; then the new sw.js is published and registration.update() runs; the figures go to the server (/__result).
const post = (path, body) => fetch(path, { method: 'POST', body: JSON.stringify(body) });
(async () => {
  // The first visit reloads once under the service worker to be isolated (src/page/isolation-reload.ts).
  if (!navigator.serviceWorker.controller || !crossOriginIsolated) return;
  const api = await window.inpageReady;
  await api.workspace.register('Update test');
  const { key } = await api.keys.create({ name: 'busy' });
  const loops = { answers: 0, reported: 0, refused: 0, cut: 0, errors: [] };
  let changeAt = null;
  let stop = false;
  navigator.serviceWorker.addEventListener('controllerchange', () => (changeAt ??= performance.now()));
  const one = async (stream, n) => {
    const res = await fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'svc-model-5.2-fast',
        messages: [{ role: 'user', content: `count ${n}` }],
        stream,
        ...(stream ? { stream_options: { include_usage: true } } : {}),
      }),
    });
    if (res.status === 503 && res.headers.get('retry-after-ms') !== null) {
      loops.refused++;
      await res.text();
      await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get('retry-after-ms'))));
      return one(stream, n);
    }
    if (res.status !== 200) return void loops.errors.push(`${res.status} ${await res.text()}`);
    if (!stream) {
      // The body is read before the sum is touched: `loops.reported += (await res.json())…` reads the sum before
      // the await, so every token another loop added while this JSON answer generated was lost (booked 12,976 vs
      // "reported" 8,574 with three loops; eslint.config.js refuses the form here).
      const usage = (await res.json()).usage.total_tokens;
      loops.reported += usage;
      loops.answers++;
      return;
    }
    const text = await res.text().catch(() => null);
    const usage = text
      ?.split('\n\n')
      .filter((b) => b.startsWith('data: {'))
      .map((b) => JSON.parse(b.slice(6)))
      .find((c) => c.usage)?.usage?.total_tokens;
    if (text === null || !text.trimEnd().endsWith('data: [DONE]') || usage === undefined) return void loops.cut++;
    loops.reported += usage;
    loops.answers++;
  };
  const loop = async (stream, seed) => {
    for (let i = 0; !stop; i++) await one(stream, 5 + ((seed + i * 7) % 20)).catch((err) => void loops.errors.push(String(err)));
  };
  const which = new URLSearchParams(location.search).get('loops') ?? 'ssj';
  const running = [...which].map((c, i) => loop(c === 's', i + 1));
  await new Promise((resolve) => setTimeout(resolve, 3000));
  await post('/__publish', {});
  const registration = await navigator.serviceWorker.getRegistration('/');
  let installedAt = null;
  registration.addEventListener('updatefound', () => {
    const installing = registration.installing;
    installing.addEventListener('statechange', () => installing.state === 'installed' && (installedAt ??= performance.now()));
  });
  const began = performance.now();
  await registration.update();
  const updated = performance.now();
  // The traffic goes on until the new version is in control, or 40 s after it installed (or after update() resolved).
  // (The browser runs the update job at BEST_EFFORT priority: under the loops it often starts ~57 s after update().)
  while (changeAt === null && performance.now() - (installedAt ?? updated) < 40_000) await new Promise((resolve) => setTimeout(resolve, 100));
  const underTraffic = changeAt;
  stop = true;
  await Promise.all(running);
  const booked = async () => (await api.keys.list()).find((k) => k.name === 'busy').tokensUsed;
  for (let i = 0; i < 100 && (await booked()) !== loops.reported; i++) await new Promise((resolve) => setTimeout(resolve, 200));
  const ms = (t) => (t === null ? null : Math.round(t - began));
  await post('/__result', { updateMs: ms(updated), installedMs: ms(installedAt), takeOverMs: ms(underTraffic), ...loops, booked: await booked() });
})().catch((err) => post('/__result', { failed: String(err?.stack ?? err) }));
