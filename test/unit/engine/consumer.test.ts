// Consumer mode, split (docs/shared-models.md): this site's engine with the model provider's beside it
// (worker/engine/consumer.ts, worker/engine/provider/). The provider here is the real relay (src/provider/relay.ts,
// the person's consent per model) in front of a scheduler over the deterministic engine, served on a MessagePort as
// the engine worker serves one; its answers say `servedBy: the-provider`, this site's say `local`.
import { describe, expect, it, onTestFinished } from 'vitest';
import { DEFAULT_CONFIG } from '#shared/config';
import { packEvents, type FromEngine, type ToEngine } from '#shared/wire/engine-port';
import { ApiError } from '#shared/protocol/errors';
import { relay } from '../../../src/provider/relay';
import { localIds, type Consent } from '../../../src/provider/consent';
import { DEFAULT_CATALOG } from '#shared/model-config';
import { validateChatRequest } from '#shared/protocol/validate';
import { DeterministicEngine } from '../../engine/deterministic-engine';
import { ConsumerEngine } from '../../../worker/engine/consumer';
import { ProviderEngine } from '../../../worker/engine/provider';
import { Scheduler, type RequestSink } from '../../../worker/engine/scheduler';
import { engineContract } from './engine-contract';

const PROVIDER = 'https://models.example';
const ALLOWED = 'svc-model-5.2-short-fast';
const OTHER = 'svc-model-5.2-fast';

/**
 * The provider: its relay checks `consent` (changeable), its engine end runs the deterministic engine through a
 * scheduler. `fail` answers a generate with that error instead (the provider's own failure, past the consent check).
 */
function provider(consent: Consent, fail?: () => ApiError | null, depth = 4) {
  const consumer = new MessageChannel();
  const engineEnd = new MessageChannel();
  const scheduler = new Scheduler(new DeterministicEngine({ ...DEFAULT_CONFIG }), depth);
  const engine = new DeterministicEngine({ ...DEFAULT_CONFIG });
  const generated: string[] = [];
  const refused: (string | undefined)[] = [];
  const port = engineEnd.port1;
  const post = (message: FromEngine) => port.postMessage(message);
  port.onmessage = (event) => {
    const m = event.data as ToEngine;
    if (m.type === 'status') return post({ type: 'status', id: m.id, models: engine.status() });
    if (m.type === 'abort') return scheduler.abort(m.id);
    if (m.type !== 'generate' && m.type !== 'embed') return;
    generated.push(String((m.request as { model: string }).model));
    const failure = fail?.();
    if (failure) return post({ type: 'error', id: m.id, error: failure.toData() });
    const sink: RequestSink = {
      accepted: () => post({ type: 'accepted', id: m.id }),
      start: (fingerprint) => post({ type: 'start', id: m.id, fingerprint, servedBy: 'the-provider' }),
      event: (e) => post({ type: 'events', id: m.id, events: packEvents([e]) }),
      end: () => post({ type: 'end', id: m.id }),
      error: (error) => post({ type: 'error', id: m.id, error: error.toData() }),
    };
    scheduler.submit(m.id, m.request, sink);
  };
  relay({
    consumer: consumer.port2,
    engine: engineEnd.port2,
    provider: PROVIDER,
    catalog: DEFAULT_CATALOG,
    localIds: localIds(DEFAULT_CATALOG),
    check: async () => consent,
    onRefused: (_why, model) => refused.push(model),
  });
  onTestFinished(() => [consumer.port1, consumer.port2, engineEnd.port1, engineEnd.port2].forEach((p) => p.close()));
  return { port: consumer.port1, generated, refused, close: () => consumer.port1.close() };
}

/** Every model the provider keeps, named one by one (as consent is stored). */
const EVERY = localIds(DEFAULT_CATALOG);
const granted = (models: string[]): Consent => ({ origin: 'https://site.example', state: 'granted', models, at: 0 });

async function composite(consent: Consent, fail?: () => ApiError | null, depths = { provider: 4, site: 4 }) {
  const p = provider(consent, fail, depths.provider);
  const remote = new ProviderEngine(p.port, PROVIDER);
  await remote.start();
  onTestFinished(() => void remote.refresh()); // stops its timer once the port is closed
  const engine = new ConsumerEngine(new DeterministicEngine({ ...DEFAULT_CONFIG }), remote);
  return { engine, remote, scheduler: new Scheduler(engine, depths.site), ...p };
}

/** Runs one request through the scheduler: where it ran, and its text (or its error's code). */
function ask(scheduler: Scheduler, model: string, content = 'hi'): Promise<string> {
  return new Promise((resolve) => {
    let where = '';
    let text = '';
    scheduler.submit(`r${Math.random()}`, validateChatRequest({ model, messages: [{ role: 'user', content }] }), {
      accepted: () => undefined,
      start: (_fp, servedBy) => (where = servedBy ?? 'local'),
      event: (e) => void (e.type === 'delta' && e.content ? (text += e.content) : undefined),
      end: () => resolve(`${where}: ${text}`),
      error: (err) => resolve(`error: ${err.code}`),
    });
  });
}

describe("this site's engine with the model provider's beside it", () => {
  it('a model the provider allows runs there, one it does not runs here; the statuses say which, per model', async () => {
    const c = await composite(granted([ALLOWED]));
    expect(await ask(c.scheduler, ALLOWED)).toBe('the-provider: Echo: hi');
    expect(await ask(c.scheduler, OTHER)).toBe('local: Echo: hi');
    expect(c.generated).toEqual([ALLOWED]);
    const notes = Object.fromEntries(c.engine.status().map((s) => [s.id, s.provider]));
    expect(notes[ALLOWED]).toMatchObject({ origin: PROVIDER, serving: true });
    expect(notes[OTHER]).toMatchObject({ origin: PROVIDER, serving: false, why: `the model provider ${PROVIDER} does not let this site use this model` });
  });

  it('consent narrowed after the statuses were read: the refusal hands the request to this site, and the statuses follow', async () => {
    const consent = granted([ALLOWED, OTHER]);
    const c = await composite(consent);
    expect(c.remote.serves(OTHER)).toBe(true);
    consent.models = [ALLOWED];
    expect(await ask(c.scheduler, OTHER)).toBe('local: Echo: hi');
    expect(c.refused).toEqual([OTHER]);
    await expect.poll(() => c.remote.serves(OTHER)).toBe(false);
    // Widened again: read within a status period, the provider serves it again.
    consent.models = EVERY;
    await c.remote.refresh();
    expect(await ask(c.scheduler, OTHER)).toBe('the-provider: Echo: hi');
  });

  it("the provider gone (its port closed): this site's engine answers, and the statuses say so", async () => {
    const c = await composite(granted(EVERY));
    expect(await ask(c.scheduler, ALLOWED)).toBe('the-provider: Echo: hi');
    c.close();
    await expect.poll(() => c.remote.connected, { timeout: 2000 }).toBe(false);
    expect(await ask(c.scheduler, ALLOWED)).toBe('local: Echo: hi');
    expect(c.engine.status().find((s) => s.id === ALLOWED)!.provider).toMatchObject({ serving: false, why: expect.stringContaining('is gone') });
  });

  it("a field the provider's engine cannot honour: its 400 unsupported_parameter is the answer, naming the field", async () => {
    const c = await composite(granted(EVERY));
    const refusal = await new Promise<ApiError>((resolve, reject) =>
      c.scheduler.submit('n2', validateChatRequest({ model: ALLOWED, messages: [{ role: 'user', content: 'hi' }], n: 2 }), {
        accepted: () => undefined,
        start: () => reject(new Error('it started')),
        event: () => undefined,
        end: () => reject(new Error('it ended')),
        error: resolve,
      }),
    );
    expect(refusal).toMatchObject({ status: 400, code: 'unsupported_parameter', param: 'n' });
    expect(c.generated).toEqual([ALLOWED]);
  });

  it("the provider's lane holds as many as this site's queue: at depth 40, 41 of 45 at once run there, 4 get 429", async () => {
    // Before issue 51 the lane held 16 whatever the depth: 29 of these were refused.
    const c = await composite(granted(EVERY), undefined, { provider: 64, site: 40 });
    const answers = await Promise.all(Array.from({ length: 45 }, (_, i) => ask(c.scheduler, ALLOWED, `n${i}`)));
    expect(answers.filter((a) => a === 'error: queue_full')).toHaveLength(4);
    expect(answers.filter((a) => a.startsWith('the-provider: Echo: n'))).toHaveLength(41);
  });

  it("the provider's own failures are the answer: its queue full is 429 here, not a download on this site", async () => {
    const c = await composite(granted(EVERY), () => new ApiError('queue_full', 'The generation queue is full (4 waiting); retry in 3 s.', { retryAfter: 3 }));
    expect(await ask(c.scheduler, ALLOWED)).toBe('error: queue_full');
  });
});

// The provider's engine through its port alone, every request allowed: the one contract every engine meets.
// Skips: what the provider's own engine does on its side of the port (its page manages its models; its scheduler
// refuses an unsupported field before queueing, there).
const ON_ITS_SIDE =
  "checked by the provider's engine when the request arrives there (its scheduler refuses before queueing): this side cannot ask it synchronously; the refusal comes back from generate";
engineContract(
  "the model provider's engine over its port (the deterministic engine behind the relay)",
  () => new ProviderEngine(provider(granted(EVERY)).port, PROVIDER),
  {
    rules: true,
    skip: {
      'refuses what it cannot honour with 400 unsupported_parameter naming the field, before it generates': ON_ITS_SIDE,
      'through the scheduler: one at a time in order; aborted in the queue it never starts, in flight it stops': ON_ITS_SIDE,
      'status lists the five ids with a context; load makes a group ready, unload leaves it cached':
        "the provider's models are loaded and unloaded on the provider's own page; here its statuses are read (ProviderEngine.start), as the composite's tests check",
    },
  },
);
