// The two messages that hand the engine's MessagePort from a page to the service worker.
import type { ModelCatalog } from '../model-config';

/** Service worker → pages: "I have no engine port; whoever hosts the engine, send one." */
export const PORT_REQUEST = { type: 'inpage:engine-port-request' } as const;

/** Page → service worker, with the port in `transfer`. */
export const PORT_OFFER = { type: 'inpage:engine-port' } as const;

/**
 * The offer as sent: `lock` names a Web Lock the engine worker holds for as long as it lives. The service
 * worker waits on it to learn at once that the engine is gone (tab closed, worker replaced), since Chromium
 * fires no `close` event on a MessagePort whose other end disappears.
 */
export interface PortOffer {
  type: typeof PORT_OFFER.type;
  lock?: string;
  /**
   * The models the deployment offers (from its config, checked by the page): the service worker answers
   * /v1/models and resolves request models by it, so `installInpage({config})` reaches it as the file does.
   */
  catalog?: ModelCatalog;
}

export function portOffer(lock: string, catalog?: ModelCatalog): PortOffer {
  return catalog ? { ...PORT_OFFER, lock, catalog } : { ...PORT_OFFER, lock };
}

/** The catalog an offer carries, if it is one. */
export function offerCatalog(data: unknown): ModelCatalog | undefined {
  const catalog = (data as { catalog?: unknown } | null)?.catalog as ModelCatalog | undefined;
  return catalog && Array.isArray(catalog.variants) && catalog.variants.length > 0 ? catalog : undefined;
}

/** The liveness lock of an offer, if it names one. */
export function offerLock(data: unknown): string | undefined {
  const lock = (data as { lock?: unknown } | null)?.lock;
  return typeof lock === 'string' && lock.length > 0 ? lock : undefined;
}

export function isPortRequest(data: unknown): boolean {
  return typeof data === 'object' && data !== null && (data as { type?: unknown }).type === PORT_REQUEST.type;
}

export function isPortOffer(data: unknown): boolean {
  return typeof data === 'object' && data !== null && (data as { type?: unknown }).type === PORT_OFFER.type;
}

/** A page asks an active service worker that does not control it to take control (it calls clients.claim()). */
export const CLAIM_REQUEST = { type: 'inpage:claim' } as const;

export function isClaimRequest(data: unknown): boolean {
  return typeof data === 'object' && data !== null && (data as { type?: unknown }).type === CLAIM_REQUEST.type;
}
