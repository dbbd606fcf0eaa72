// The model provider's frame relays each consumer service worker's engine port (docs/shared-models.md). Only
// engine requests cross it (generate, embed, abort, status), each checked against the provider's consent list
// first, in the order they came; anything else is refused. The provider's keys, stored responses and
// conversations are in stores no engine message reads, so the port cannot reach them.
import type { FromEngine, ToEngine } from '../engine-protocol';
import { ApiError } from '../protocol/errors';
import { refusal, type Consent } from './consent';

/** The site's consent record (null: never asked), read afresh for every request. */
export type ConsentCheck = () => Promise<Consent | null>;

const ENGINE_KINDS = new Set(['generate', 'embed', 'abort', 'status']);

function idOf(data: unknown): string | undefined {
  const id = (data as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

export function refusedError(provider: string, why: string): ApiError {
  return new ApiError('engine_unavailable', `The model provider ${provider} refused: ${why}. This site's own engine serves it instead.`);
}

/**
 * Serves `consumer` (the end a consumer's service worker holds) with `engine` (an end the engine worker serves).
 * `onRefused` hears each consent refusal, with the model when the site may use others (the page behind `consumer`
 * then runs that model on its own engine and keeps the provider for the rest; otherwise it falls back whole).
 */
export function relay(consumer: MessagePort, engine: MessagePort, provider: string, check: ConsentCheck, onRefused: (why: string, model?: string) => void): void {
  let queue = Promise.resolve();
  /** Status requests on their way, by id: the models the site may see in the answer (null: all). */
  const statusFor = new Map<string, string[] | null>();
  const reply = (message: FromEngine) => consumer.postMessage(message);
  const handle = async (data: unknown): Promise<void> => {
    const type = (data as { type?: unknown } | null)?.type;
    const id = idOf(data);
    if (typeof type !== 'string' || !ENGINE_KINDS.has(type)) {
      // `watch` names a lock of the consumer's partition (meaningless here); the rest is not an engine request.
      if (type === 'watch') return;
      if (id !== undefined) {
        reply({ type: 'error', id, error: new ApiError('invalid_value', `The model provider's port carries engine requests only (generate, embed, abort, status), not '${String(type)}'.`).toData() });
      }
      return;
    }
    const message = data as Extract<ToEngine, { id: string }>;
    if (message.type === 'abort') {
      engine.postMessage(message);
      return;
    }
    const model = message.type === 'generate' || message.type === 'embed' ? String((message.request as { model?: unknown }).model ?? '') : undefined;
    let why: string | null;
    let onlyThisModel = false;
    try {
      const consent = await check();
      why = refusal(consent, model);
      onlyThisModel = why !== null && model !== undefined && refusal(consent) === null;
      // A status answer lists only the models the site may run: it learns nothing of the others.
      if (why === null && message.type === 'status') statusFor.set(message.id, consent?.models ?? null);
    } catch (err) {
      why = `its consent list could not be read (${err instanceof Error ? err.message : String(err)})`;
    }
    if (why !== null) {
      reply({ type: 'error', id: message.id, error: refusedError(provider, why).toData() });
      onRefused(why, onlyThisModel ? model : undefined);
      return;
    }
    engine.postMessage(message);
  };
  consumer.onmessage = (event) => {
    queue = queue.then(() => handle(event.data)).catch(() => undefined);
  };
  engine.onmessage = (event) => {
    const message = event.data as FromEngine;
    // The engine holds no lock for this port (none is asked), so `holding` never comes.
    if (message.type === 'holding') return;
    if (message.type === 'error') statusFor.delete(message.id);
    if (message.type === 'status') {
      const allowed = statusFor.get(message.id);
      statusFor.delete(message.id);
      if (allowed) {
        consumer.postMessage({ ...message, models: message.models.filter((m) => allowed.includes(m.id)) });
        return;
      }
    }
    consumer.postMessage(message);
  };
  consumer.start();
  engine.start();
}
