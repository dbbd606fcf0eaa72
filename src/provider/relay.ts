// The model provider's frame relays each consumer service worker's engine port (docs/shared-models.md). Only
// engine requests cross it (generate, embed, abort, status), each checked first, in the order they came; anything
// else is refused. The provider's keys, stored responses and conversations are in stores no engine message reads,
// so the port cannot reach them.
//
// The rules (each one answers a way past the person's consent, issue 36):
// - A message carries the fields the relay knows and no others; a request's model is resolved from the provider's
//   own catalog by `model`, and a `variant` that is not the provider's own for that id is refused: the engines run
//   what `variant` names, so a consumer must not pick the weights behind an id it was allowed.
// - Only the provider's local ids run (its engine here has no upstreams), and only those the consent names.
// - The relay assigns the ids it forwards and maps the answers back; an answer it cannot match to one of its own
//   requests is dropped. So a consumer cannot make one status answer pass for another (each is filtered to the
//   models the site may run), nor reach a request it did not send.
import type { FromEngine, ToEngine } from '#shared/wire/engine-port';
import { ApiError } from '#shared/protocol/errors';
import type { ModelCatalog } from '#shared/model-config';
import type { Variant } from '#shared/variants';
import { refusal, type Consent } from './consent';

/** The site's consent record (null: never asked), read afresh for every request. */
export type ConsentCheck = () => Promise<Consent | null>;

/** The fields each kind of message may carry; any other field is refused. */
const FIELDS: Readonly<Record<string, readonly string[]>> = {
  generate: ['type', 'id', 'request'],
  embed: ['type', 'id', 'request'],
  abort: ['type', 'id'],
  status: ['type', 'id'],
};

export function refusedError(provider: string, why: string): ApiError {
  return new ApiError('engine_unavailable', `The model provider ${provider} refused: ${why}. This site's own engine serves it instead.`);
}

/** A value as canonical JSON text (object keys sorted): two variants are the same when their texts are. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

export interface RelayOptions {
  /** The end a consumer's service worker holds. */
  consumer: MessagePort;
  /** An end the provider's engine worker serves. */
  engine: MessagePort;
  /** The provider's origin, for messages. */
  provider: string;
  /** The provider's own catalog: every request's variant is resolved from it by `model`. */
  catalog: ModelCatalog;
  /** The ids the provider runs locally (its consent question's choices); nothing else is ever run for a consumer. */
  localIds: readonly string[];
  check: ConsentCheck;
  /**
   * Hears each consent refusal, with the model when the site may use others (the page behind `consumer` then runs
   * that model on its own engine and keeps the provider for the rest; otherwise it falls back whole).
   */
  onRefused: (why: string, model?: string) => void;
}

/** A request the relay forwarded under its own id: whose it is, and (a status) the models its answer may list. */
interface Pending {
  consumerId: string;
  kind: 'generate' | 'embed' | 'status';
  allowed?: readonly string[];
  started?: boolean;
}

/** Why `message` is not one the relay forwards (null: it is); `param` names the field at fault. */
function malformed(message: Record<string, unknown>, type: string): { why: string; param: string | null } | null {
  const known = FIELDS[type]!;
  const unknown = Object.keys(message).find((k) => !known.includes(k));
  if (unknown !== undefined) return { why: `The model provider's port does not take the field '${unknown}' on a '${type}' message.`, param: unknown };
  if (type !== 'generate' && type !== 'embed') return null;
  const request = message.request as Record<string, unknown> | null;
  if (!request || typeof request !== 'object' || Array.isArray(request)) return { why: `A '${type}' message needs its request object.`, param: 'request' };
  if (typeof request.model !== 'string') return { why: `A '${type}' message's request needs its 'model' (a string).`, param: 'model' };
  if ((type === 'embed') !== (request.kind === 'embeddings'))
    return { why: `A '${type}' message carries ${type === 'embed' ? 'an embeddings request' : 'a chat request'} only.`, param: 'kind' };
  return null;
}

/** Serves `consumer` with `engine` under the rules above. */
export function relay({ consumer, engine, provider, catalog, localIds, check, onRefused }: RelayOptions): void {
  let queue = Promise.resolve();
  let next = 0;
  const pending = new Map<string, Pending>();
  const reply = (message: FromEngine) => consumer.postMessage(message);
  const fail = (id: string, error: ApiError) => reply({ type: 'error', id, error: error.toData() });
  const handle = async (data: unknown): Promise<void> => {
    const message = (data && typeof data === 'object' && !Array.isArray(data) ? data : {}) as Record<string, unknown>;
    const type = message.type;
    const rawId = message.id;
    const id = typeof rawId === 'string' || typeof rawId === 'number' ? String(rawId) : undefined;
    if (typeof type !== 'string' || !(type in FIELDS)) {
      // `watch` names a lock of the consumer's partition (meaningless here); the rest is not an engine request.
      if (type === 'watch') return;
      if (id !== undefined)
        fail(
          id,
          new ApiError('invalid_value', `The model provider's port carries engine requests only (generate, embed, abort, status), not '${String(type)}'.`),
        );
      return;
    }
    if (id === undefined) return; // nothing to answer to
    const bad = malformed(message, type);
    if (bad) return fail(id, new ApiError('invalid_value', bad.why, { param: bad.param }));
    if (type === 'abort') {
      // Every request of this consumer under that id, as the relay forwarded it.
      for (const [mine, p] of pending) {
        if (p.consumerId !== id || p.kind === 'status') continue;
        engine.postMessage({ type: 'abort', id: mine } satisfies ToEngine);
        // Not started: the engine may never answer it (dropped from its queue); nothing more is relayed for it.
        if (!p.started) pending.delete(mine);
      }
      return;
    }
    const request = message.request as { model: string; variant?: unknown } | undefined;
    const model = request?.model;
    let variant: Variant | undefined;
    if (model !== undefined) {
      variant = catalog.variants.find((v) => v.id === model);
      // Another definition of the id than the provider's: the engines would run what it names, not what was allowed.
      if (variant && canonical(request!.variant) !== canonical(variant)) {
        return fail(
          id,
          new ApiError(
            'invalid_value',
            `The model provider ${provider} runs '${model}' as its own catalog defines it; this request's 'variant' is not that model.`,
            { param: 'variant' },
          ),
        );
      }
    }
    let why: string | null;
    let onlyThisModel = false;
    let allowed: readonly string[] = [];
    try {
      const consent = await check();
      why = refusal(consent, model);
      if (why === null && model !== undefined && (!variant || !localIds.includes(model)))
        why = `it runs only the models it keeps in this browser for other sites, and '${model}' is not one`;
      onlyThisModel = why !== null && model !== undefined && refusal(consent) === null;
      allowed = (consent?.models ?? []).filter((m) => localIds.includes(m));
    } catch (err) {
      why = `its consent list could not be read (${err instanceof Error ? err.message : String(err)})`;
    }
    if (why !== null) {
      fail(id, refusedError(provider, why));
      onRefused(why, onlyThisModel ? model : undefined);
      return;
    }
    const mine = `relay-${++next}`;
    if (type === 'status') {
      // Its answer lists only the models the site may run: it learns nothing of the others.
      pending.set(mine, { consumerId: id, kind: 'status', allowed });
      engine.postMessage({ type: 'status', id: mine } satisfies ToEngine);
      return;
    }
    pending.set(mine, { consumerId: id, kind: type as 'generate' | 'embed' });
    engine.postMessage({ type, id: mine, request: { ...(message.request as object), variant } } as ToEngine);
  };
  consumer.onmessage = (event) => {
    queue = queue.then(() => handle(event.data)).catch(() => undefined);
  };
  engine.onmessage = (event) => {
    const message = event.data as FromEngine;
    // The engine holds no lock for this port (none is asked), so `holding` never comes; nor anything unmatched.
    if (message.type === 'holding') return;
    const p = pending.get(message.id);
    if (!p) return;
    const id = p.consumerId;
    if (p.kind === 'status') {
      // A status request's answer (filtered), or its error; nothing else answers it.
      if (message.type !== 'status' && message.type !== 'error') return;
      pending.delete(message.id);
      reply(message.type === 'status' ? { ...message, id, models: message.models.filter((m) => p.allowed!.includes(m.id)) } : { ...message, id });
      return;
    }
    switch (message.type) {
      case 'status':
        return;
      case 'start':
        p.started = true;
        break;
      case 'end':
      case 'error':
      case 'aborted':
        pending.delete(message.id);
        break;
    }
    reply({ ...message, id } as FromEngine);
  };
  consumer.start();
  engine.start();
}
