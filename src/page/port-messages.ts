// The two messages that hand the engine's MessagePort from a page to the service worker.

/** Service worker → pages: "I have no engine port; whoever hosts the engine, send one." */
export const PORT_REQUEST = { type: 'inpage:engine-port-request' } as const;

/** Page → service worker, with the port in `transfer`. */
export const PORT_OFFER = { type: 'inpage:engine-port' } as const;

export function isPortRequest(data: unknown): boolean {
  return typeof data === 'object' && data !== null && (data as { type?: unknown }).type === PORT_REQUEST.type;
}

export function isPortOffer(data: unknown): boolean {
  return typeof data === 'object' && data !== null && (data as { type?: unknown }).type === PORT_OFFER.type;
}
