// The model provider's relay (src/provider/relay.ts, docs/shared-models.md): what crosses a consumer's port is
// checked against the site's consent, per model, and against the provider's own catalog; the relay assigns the ids
// it forwards; a status answer lists only the models the site may run.
import { afterEach, describe, expect, it } from 'vitest';
import { relay, type ConsentCheck } from '../../../src/provider/relay';
import { explicitModels, localIds, type Consent } from '../../../src/provider/consent';
import type { FromEngine, ModelStatus, ToEngine } from '#shared/wire/engine-port';
import { buildCatalog, DEFAULT_CATALOG, type ModelCatalog } from '#shared/model-config';
import { validateChatRequest } from '#shared/protocol/validate';
import { secureConsumer } from '../../../src/provider/question';

const PROVIDER = 'https://models.example';
const ALL = ['svc-model-5.2-short', 'svc-model-5.2-short-fast', 'svc-embed'];
const status = (id: string): ModelStatus => ({ id: id as ModelStatus['id'], state: 'ready', context_length: 4096 });
type Status = Extract<FromEngine, { type: 'status' }>;

/**
 * A relay between a consumer end and a pretend engine end; the engine answers each status with every model, and a
 * generate with `start` and `end` under the id it was sent (or holds it while `hold`).
 */
function setup(consent: Consent | null, catalog: ModelCatalog = DEFAULT_CATALOG) {
  const consumer = new MessageChannel();
  const engine = new MessageChannel();
  const seenByEngine: Extract<ToEngine, { id: string }>[] = [];
  const refused: { why: string; model?: string }[] = [];
  engine.port1.onmessage = (event) => {
    const message = event.data as Extract<ToEngine, { id: string }>;
    seenByEngine.push(message);
    if (message.type === 'status') {
      engine.port1.postMessage({ type: 'status', id: message.id, models: ALL.map(status) } satisfies FromEngine);
    }
    if (message.type === 'generate') {
      engine.port1.postMessage({ type: 'start', id: message.id, fingerprint: 'fp' } satisfies FromEngine);
      engine.port1.postMessage({ type: 'end', id: message.id } satisfies FromEngine);
    }
  };
  const check: ConsentCheck = async () => consent;
  relay({
    consumer: consumer.port2,
    engine: engine.port2,
    provider: PROVIDER,
    catalog,
    localIds: localIds(catalog),
    check,
    onRefused: (why, model) => refused.push(model === undefined ? { why } : { why, model }),
  });
  const replies: FromEngine[] = [];
  consumer.port1.onmessage = (event) => replies.push(event.data as FromEngine);
  const next = async (): Promise<FromEngine> => {
    for (let i = 0; i < 200 && replies.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    const reply = replies.shift();
    if (!reply) throw new Error('no reply');
    return reply;
  };
  const close = () => [consumer.port1, consumer.port2, engine.port1, engine.port2].forEach((p) => p.close());
  return { send: (m: unknown) => consumer.port1.postMessage(m), next, replies, seenByEngine, refused, close, engine: engine.port1 };
}

let close: (() => void) | undefined;
afterEach(() => close?.());

const granted = (models: string[] | null): Consent => ({ origin: 'https://a.example', state: 'granted', models, at: 0 });
const generate = (id: string, model: string, extra: Record<string, unknown> = {}) => ({
  type: 'generate',
  id,
  request: { ...validateChatRequest({ model, messages: [{ role: 'user', content: 'hi' }] }), ...extra },
});
const settle = () => new Promise((r) => setTimeout(r, 50));

describe('the provider relay', () => {
  it('a site allowed some models sees only those in a status answer', async () => {
    const r = setup(granted(['svc-model-5.2-short-fast']));
    close = r.close;
    r.send({ type: 'status', id: 's1' });
    const reply = await r.next();
    expect(reply.type).toBe('status');
    expect((reply as Status).models.map((m) => m.id)).toEqual(['svc-model-5.2-short-fast']);
  });

  it("a record of an earlier release's 'every model' (null) names no model until it is migrated to the local ids", async () => {
    const r = setup(granted(null));
    close = r.close;
    r.send({ type: 'status', id: 's1' });
    expect(((await r.next()) as Status).models).toEqual([]);
    // What ConsentStore stores for it: the provider's local ids at that moment, never an upstream-only one.
    const catalog = buildCatalog({ 'up-only': { mode: 'upstream', upstream: { model: 'x' } } });
    expect(explicitModels(granted(null), localIds(catalog)).models).toEqual(DEFAULT_CATALOG.variants.map((v) => v.id));
    expect(explicitModels(granted(['svc-embed']), localIds(catalog)).models).toEqual(['svc-embed']);
  });

  it('repeated status ids: every answer is filtered, and the engine sees only ids the relay assigned', async () => {
    const r = setup(granted(['svc-model-5.2-short-fast']));
    close = r.close;
    for (let i = 0; i < 4; i++) r.send({ type: 'status', id: 's1' });
    const answers = [await r.next(), await r.next(), await r.next(), await r.next()] as Status[];
    expect(answers.map((a) => [a.type, a.id, a.models.map((m) => m.id)])).toEqual(Array(4).fill(['status', 's1', ['svc-model-5.2-short-fast']]));
    const ids = r.seenByEngine.map((m) => m.id);
    expect(new Set(ids).size).toBe(4);
    expect(ids).not.toContain('s1');
    // An answer the relay cannot match to one of its own requests (here: under the consumer's id) is dropped.
    r.engine.postMessage({ type: 'status', id: 's1', models: ALL.map(status) } satisfies FromEngine);
    r.engine.postMessage({ type: 'status', id: ids[0]!, models: ALL.map(status) } satisfies FromEngine);
    await settle();
    expect(r.replies).toEqual([]);
  });

  it('a request runs under an id the relay assigned, with the variant of its own catalog; its answers come back under the consumer id', async () => {
    const r = setup(granted(['svc-model-5.2-short-fast']));
    close = r.close;
    r.send(generate('g1', 'svc-model-5.2-short-fast'));
    expect(await r.next()).toMatchObject({ type: 'start', id: 'g1' });
    expect(await r.next()).toEqual({ type: 'end', id: 'g1' });
    const forwarded = r.seenByEngine[0] as Extract<ToEngine, { type: 'generate' }>;
    expect(forwarded.id).not.toBe('g1');
    expect(forwarded.request.variant).toEqual(DEFAULT_CATALOG.variants.find((v) => v.id === 'svc-model-5.2-short-fast'));
  });

  it("a variant that is not the provider's own for the model is refused: the engine never sees it", async () => {
    const r = setup(granted(['svc-model-5.2-short-fast']));
    close = r.close;
    const big = DEFAULT_CATALOG.variants.find((v) => v.id === 'svc-model-5.2')!;
    r.send(generate('g1', 'svc-model-5.2-short-fast', { variant: big }));
    r.send(generate('g2', 'svc-model-5.2-short-fast', { variant: { ...big, id: 'svc-model-5.2-short-fast' } }));
    for (const id of ['g1', 'g2']) {
      const reply = (await r.next()) as Extract<FromEngine, { type: 'error' }>;
      expect(reply).toMatchObject({ type: 'error', id, error: { code: 'invalid_value', param: 'variant', type: 'invalid_request_error' } });
      expect(reply.error.message).toBe(
        `The model provider ${PROVIDER} runs 'svc-model-5.2-short-fast' as its own catalog defines it; this request's 'variant' is not that model.`,
      );
    }
    expect(r.seenByEngine).toEqual([]);
    expect(r.refused).toEqual([]);
  });

  it('a field the relay does not know, on the message, is refused naming it', async () => {
    const r = setup(granted(['svc-model-5.2-short-fast']));
    close = r.close;
    r.send({ ...generate('g1', 'svc-model-5.2-short-fast'), lock: 'x' });
    r.send({ type: 'status', id: 's1', models: ['svc-model-5.2'] });
    r.send({ type: 'embed', id: 'e1', request: generate('x', 'svc-model-5.2-short-fast').request });
    expect(await r.next()).toMatchObject({ type: 'error', id: 'g1', error: { code: 'invalid_value', param: 'lock' } });
    expect(await r.next()).toMatchObject({ type: 'error', id: 's1', error: { code: 'invalid_value', param: 'models' } });
    expect(await r.next()).toMatchObject({ type: 'error', id: 'e1', error: { code: 'invalid_value', param: 'kind' } });
    expect(r.seenByEngine).toEqual([]);
  });

  it('an upstream-only id of the provider is never run, even when a record names it', async () => {
    const catalog = buildCatalog({
      'up-only': { mode: 'upstream', upstream: { model: 'x' } },
      'svc-model-5.2': { mode: 'upstream', upstream: { model: 'y' } },
    });
    expect(localIds(catalog)).not.toContain('up-only');
    expect(localIds(catalog)).not.toContain('svc-model-5.2');
    const r = setup(granted(['svc-model-5.2-short', 'up-only', 'svc-model-5.2']), catalog);
    close = r.close;
    const upOnly = catalog.variants.find((v) => v.id === 'up-only')!;
    r.send({ type: 'generate', id: 'g1', request: { ...generate('x', 'svc-model-5.2-short').request, model: 'up-only', variant: upOnly } });
    r.send(generate('g2', 'svc-model-5.2'));
    for (const [id, model] of [
      ['g1', 'up-only'],
      ['g2', 'svc-model-5.2'],
    ]) {
      const reply = (await r.next()) as Extract<FromEngine, { type: 'error' }>;
      expect(reply).toMatchObject({ type: 'error', id, error: { code: 'engine_unavailable' } });
      expect(reply.error.message).toContain(`it runs only the models it keeps in this browser for other sites, and '${model}' is not one`);
    }
    expect(r.seenByEngine).toEqual([]);
    // And a status lists only local ids, whatever the record names.
    r.send({ type: 'status', id: 's1' });
    expect(((await r.next()) as Status).models.map((m) => m.id)).toEqual(['svc-model-5.2-short']);
  });

  it('a request for a model the site may not run never reaches the engine, and is refused naming the model', async () => {
    const r = setup(granted(['svc-model-5.2-short-fast']));
    close = r.close;
    r.send(generate('g1', 'svc-model-5.2-short'));
    const reply = await r.next();
    expect(reply).toMatchObject({ type: 'error', id: 'g1', error: { code: 'engine_unavailable' } });
    expect((reply as Extract<FromEngine, { type: 'error' }>).error.message).toContain("this site may not use the model 'svc-model-5.2-short' of the provider");
    expect(r.seenByEngine).toEqual([]);
    // Only that model: the page runs it on its own engine and keeps the provider for the others.
    expect(r.refused).toEqual([{ why: "this site may not use the model 'svc-model-5.2-short' of the provider", model: 'svc-model-5.2-short' }]);
  });

  it('a request from a site revoked whole is refused without a model: the page falls back whole', async () => {
    const r = setup({ origin: 'https://a.example', state: 'revoked', models: ['svc-model-5.2-short'], at: 0 });
    close = r.close;
    r.send(generate('g1', 'svc-model-5.2-short'));
    expect(await r.next()).toMatchObject({ type: 'error', id: 'g1', error: { code: 'engine_unavailable' } });
    expect(r.refused).toEqual([{ why: "the person revoked this site's use of the provider's models on the provider's page" }]);
  });

  it('a site with no consent gets no status, not even the list of models', async () => {
    const r = setup(null);
    close = r.close;
    r.send({ type: 'status', id: 's1' });
    const reply = await r.next();
    expect(reply).toMatchObject({ type: 'error', id: 's1', error: { code: 'engine_unavailable' } });
    expect(r.seenByEngine).toEqual([]);
  });
});

describe('which sites may be consumers', () => {
  it('https, or plain http on a loopback host; never an opaque origin or plain http elsewhere', () => {
    const verdicts = [
      'https://app.example',
      'http://localhost:5173',
      'http://127.0.0.3:4903',
      'http://[::1]:8080',
      'http://app.localhost',
      'http://app.example',
      'null',
      'file://',
      'https://app.example/path',
      'data:text/html,x',
    ].map((o) => [o, secureConsumer(o)]);
    expect(verdicts).toEqual([
      ['https://app.example', true],
      ['http://localhost:5173', true],
      ['http://127.0.0.3:4903', true],
      ['http://[::1]:8080', true],
      ['http://app.localhost', true],
      ['http://app.example', false],
      ['null', false],
      ['file://', false],
      ['https://app.example/path', false],
      ['data:text/html,x', false],
    ]);
  });
});
