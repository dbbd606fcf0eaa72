// Issue 51, an update under traffic: a new sw.js is published and `registration.update()` runs while three clients
// of the page loop without pause (two streams, one JSON) and one long stream, begun before, spans the update. What
// holds: no stream is cut, no request fails (the old version refuses new requests with a 503 and `retry-after-ms`
// while it hands over, worker/sw/handover.ts, and the clients retry as the SDKs do), the long stream ends whole on the
// old version, the tokens booked to the key equal those the answers reported, and the new version takes control
// *under* the traffic within HANDOVER_MS + HANDOVER_GIVE_UP_MS (30 s) of being installed. The figures are logged as
// `update under traffic: {...}` (docs/browsers.md, *An update under continuous traffic*).
import { expect, test } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeKey, openApp } from './helpers';
import { serveStatic, TEST_BUILD_DIR } from './static-server';
import { HANDOVER_GIVE_UP_MS, HANDOVER_MS } from '../../worker/sw/handover';

interface Loops {
  reported: number;
  answers: number;
  cut: number;
  errors: string[];
  /** The 503s of the handover (retried). */
  refused: string[];
  controllerChangeAt: number | null;
  foundAt?: number;
  installedAt?: number;
}

test('an update under three looping clients: no stream cut, every reported token booked once, the new version in control under the traffic within the bound', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const server = await serveStatic(4661, { '/': TEST_BUILD_DIR });
  try {
    // (A first visit to a server without isolation headers reloads once under the worker: openApp waits it out.)
    await openApp(page, `${server.origin}/?tokenDelayMs=2`);
    const key = await makeKey(page, { name: 'busy' });
    // The loops, in the page, until told to stop.
    await page.evaluate((key) => {
      const w = window as unknown as { loops: Loops; stop: boolean; running: Promise<void>[] };
      w.loops = { reported: 0, answers: 0, cut: 0, errors: [], refused: [], controllerChangeAt: null };
      w.stop = false;
      navigator.serviceWorker.addEventListener('controllerchange', () => (w.loops.controllerChangeAt ??= performance.now()));
      void navigator.serviceWorker.getRegistration('/').then((registration) =>
        registration!.addEventListener('updatefound', () => {
          w.loops.foundAt ??= performance.now();
          const installing = registration!.installing!;
          installing.addEventListener('statechange', () => {
            if (installing.state === 'installed') w.loops.installedAt ??= performance.now();
          });
        }),
      );
      const one = async (stream: boolean, n: number): Promise<void> => {
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
          // The old version hands over: sent again after retry-after-ms, as the openai SDK and the AI SDK do.
          const body = (await res.json()) as { error: { code: string } };
          w.loops.refused.push(`${res.headers.get('retry-after')} ${res.headers.get('retry-after-ms')} ${body.error.code}`);
          await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get('retry-after-ms'))));
          return one(stream, n);
        }
        if (res.status !== 200) {
          w.loops.errors.push(`${res.status} ${await res.text()}`);
          return;
        }
        if (!stream) {
          const body = (await res.json()) as { usage: { total_tokens: number } };
          w.loops.reported += body.usage.total_tokens;
          w.loops.answers++;
          return;
        }
        const text = await res.text().catch(() => null);
        const usage = text
          ?.split('\n\n')
          .filter((b) => b.startsWith('data: {'))
          .map((b) => JSON.parse(b.slice(6)) as { usage?: { total_tokens: number } | null })
          .find((c) => c.usage)?.usage?.total_tokens;
        if (text === null || !text.trimEnd().endsWith('data: [DONE]') || usage === undefined) {
          w.loops.cut++;
          return;
        }
        w.loops.reported += usage;
        w.loops.answers++;
      };
      const loop = async (stream: boolean, seed: number) => {
        for (let i = 0; !w.stop; i++) await one(stream, 5 + ((seed + i * 7) % 20)).catch((err: unknown) => void w.loops.errors.push(String(err)));
      };
      w.running = [loop(true, 1), loop(true, 2), loop(false, 3)];
    }, key);
    await page.waitForTimeout(2000);
    // One long stream, begun on the old version before the update and still going when the new one takes over.
    await page.evaluate((key) => {
      const w = window as unknown as { long: Promise<{ status: number; usage: number | null; done: boolean; endedAt: number }> };
      w.long = (async () => {
        const res = await fetch('/v1/chat/completions', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'svc-model-5.2-fast',
            messages: [{ role: 'user', content: 'count 2000' }],
            stream: true,
            stream_options: { include_usage: true },
          }),
        });
        const text = await res.text().catch(() => '');
        const usage = text
          .split('\n\n')
          .filter((b) => b.startsWith('data: {'))
          .map((b) => JSON.parse(b.slice(6)) as { usage?: { total_tokens: number } | null })
          .find((c) => c.usage)?.usage?.total_tokens;
        return { status: res.status, usage: usage ?? null, done: text.trimEnd().endsWith('data: [DONE]'), endedAt: performance.now() };
      })();
    }, key);
    await page.waitForTimeout(300);
    const original = await readFile(join(TEST_BUILD_DIR, 'sw.js'), 'utf8');
    server.override('/sw.js', `${original}\n// version 2\n`);
    const timing = await page.evaluate(async () => {
      const began = performance.now();
      await (await navigator.serviceWorker.getRegistration('/'))!.update();
      return { began, updated: performance.now() };
    });
    // The traffic goes on until the new version takes control (or the bound has passed).
    const changedAt = () => page.evaluate(() => (window as unknown as { loops: Loops }).loops.controllerChangeAt);
    await expect
      .poll(changedAt, { timeout: HANDOVER_MS + HANDOVER_GIVE_UP_MS + 5_000, intervals: [250] })
      .not.toBeNull()
      .catch(() => undefined);
    const underTraffic = await changedAt();
    const loops = await page.evaluate(async () => {
      const w = window as unknown as { loops: Loops; stop: boolean; running: Promise<void>[] };
      w.stop = true;
      await Promise.all(w.running);
      return { ...w.loops, stoppedAt: performance.now() };
    });
    await expect
      .poll(changedAt, { timeout: 15_000, intervals: [100] })
      .not.toBeNull()
      .catch(() => undefined);
    const takenAt = await changedAt();
    const long = await page.evaluate(async () => {
      const r = await (window as unknown as { long: Promise<{ status: number; usage: number | null; done: boolean; endedAt: number }> }).long;
      return r;
    });
    if (long.usage !== null) loops.reported += long.usage;
    const bookedNow = () => page.evaluate(async () => (await window.inpage!.keys.list()).find((k) => k.name === 'busy')!.tokensUsed);
    await expect
      .poll(bookedNow, { timeout: 20_000 })
      .toBe(loops.reported)
      .catch(() => undefined);
    const booked = await bookedNow();
    const figures = {
      updateMs: Math.round(timing.updated - timing.began),
      foundMs: loops.foundAt === undefined ? null : Math.round(loops.foundAt - timing.began),
      installedMs: loops.installedAt === undefined ? null : Math.round(loops.installedAt - timing.began),
      long: { ...long, endedAt: Math.round(long.endedAt - timing.began) },
      takeOverUnderTrafficMs: underTraffic === null ? null : Math.round(underTraffic - timing.began),
      takeOverAfterInstalledMs: underTraffic === null || loops.installedAt === undefined ? null : Math.round(underTraffic - loops.installedAt),
      refused: loops.refused.length,
      refusedFirst: loops.refused[0] ?? null,
      takeOverAfterTrafficStoppedMs: takenAt === null ? null : Math.max(0, Math.round(takenAt - loops.stoppedAt)),
      trafficStoppedMs: Math.round(loops.stoppedAt - timing.began),
      answers: loops.answers,
      cut: loops.cut,
      errors: loops.errors.slice(0, 3),
      reported: loops.reported,
      booked,
    };
    console.log(`update under traffic: ${JSON.stringify(figures)}`);
    expect(figures.errors).toEqual([]);
    expect(figures.cut).toBe(0);
    expect(figures.answers).toBeGreaterThan(20); // 314 here; a loaded machine answers fewer
    expect(booked).toBe(loops.reported);
    // The long stream, begun before the update, ends whole on the old version.
    expect(long).toMatchObject({ status: 200, done: true });
    expect(long.usage).toBeGreaterThan(2000);
    // Under the traffic, the new version took control within the bound of its being installed.
    expect(underTraffic).not.toBeNull();
    expect(underTraffic! - loops.installedAt!).toBeLessThan(HANDOVER_MS + HANDOVER_GIVE_UP_MS);
    expect(figures.refused).toBeGreaterThan(0);
    expect(loops.refused.every((r) => r.endsWith(' service_unavailable'))).toBe(true);
  } finally {
    await server.close();
  }
});
