// The model provider's relay (src/provider/relay.ts, docs/shared-models.md): what crosses a consumer's port is
// checked against the site's consent, per model; a status answer lists only the models the site may run.
import { afterEach, describe, expect, it } from 'vitest';
import { relay, type ConsentCheck } from '../../src/provider/relay';
import type { Consent } from '../../src/provider/consent';
import type { FromEngine, ModelStatus, ToEngine } from '../../src/engine-protocol';

const PROVIDER = 'https://models.example';
const status = (id: string): ModelStatus => ({ id: id as ModelStatus['id'], state: 'ready', context_length: 4096 });

/** A relay between a consumer end and a pretend engine end; the engine answers each status with every model. */
function setup(consent: Consent | null) {
  const consumer = new MessageChannel();
  const engine = new MessageChannel();
  const seenByEngine: ToEngine[] = [];
  const refused: { why: string; model?: string }[] = [];
  engine.port1.onmessage = (event) => {
    const message = event.data as Extract<ToEngine, { id: string }>;
    seenByEngine.push(message);
    if (message.type === 'status') {
      engine.port1.postMessage({ type: 'status', id: message.id, models: ['svc-model-5.2-short', 'svc-model-5.2-short-fast', 'svc-embed'].map(status), fingerprint: 'fp' } satisfies FromEngine);
    }
  };
  const check: ConsentCheck = async () => consent;
  relay(consumer.port2, engine.port2, PROVIDER, check, (why, model) => refused.push(model === undefined ? { why } : { why, model }));
  const replies: FromEngine[] = [];
  consumer.port1.onmessage = (event) => replies.push(event.data as FromEngine);
  const next = async (): Promise<FromEngine> => {
    for (let i = 0; i < 200 && replies.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    const reply = replies.shift();
    if (!reply) throw new Error('no reply');
    return reply;
  };
  const close = () => [consumer.port1, consumer.port2, engine.port1, engine.port2].forEach((p) => p.close());
  return { send: (m: ToEngine) => consumer.port1.postMessage(m), next, seenByEngine, refused, close };
}

let close: (() => void) | undefined;
afterEach(() => close?.());

const granted = (models: string[] | null): Consent => ({ origin: 'https://a.example', state: 'granted', models, at: 0 });
const generate = (id: string, model: string) => ({ type: 'generate', id, request: { model, messages: [{ role: 'user', content: 'hi' }] } }) as unknown as ToEngine;

describe('the provider relay', () => {
  it('a site allowed some models sees only those in a status answer', async () => {
    const r = setup(granted(['svc-model-5.2-short-fast']));
    close = r.close;
    r.send({ type: 'status', id: 's1' });
    const reply = await r.next();
    expect(reply.type).toBe('status');
    expect((reply as Extract<FromEngine, { type: 'status' }>).models.map((m) => m.id)).toEqual(['svc-model-5.2-short-fast']);
  });

  it('a site allowed every model sees every model', async () => {
    const r = setup(granted(null));
    close = r.close;
    r.send({ type: 'status', id: 's1' });
    const reply = (await r.next()) as Extract<FromEngine, { type: 'status' }>;
    expect(reply.models.map((m) => m.id)).toEqual(['svc-model-5.2-short', 'svc-model-5.2-short-fast', 'svc-embed']);
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
