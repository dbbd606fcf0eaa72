// The two messages that hand the engine's MessagePort from a page to the service worker.

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
}

export function portOffer(lock: string): PortOffer {
  return { ...PORT_OFFER, lock };
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
