// What passes between a consumer's page and the model provider's frame (docs/shared-models.md). Window messages
// are addressed to the other side's origin, never '*'; the frame learns the consumer's origin from `event.origin`.

/** Consumer page → frame: "I am here; offer me your engine." */
export const HELLO = 'inpage:provider-hello';
/** Frame → consumer page: the engine port and the control port, in that order, in `ports`. */
export const OFFER = 'inpage:provider-offer';
/**
 * Frame → consumer page: the frame needs the person's click (shown by the consumer until decided); `height`: the
 * CSS pixels its question takes.
 */
export const WAITING = 'inpage:provider-waiting';
/** Frame → consumer page (and on the control port): no models for this site, and why. */
export const REFUSED = 'inpage:provider-refused';

export type FrameMessage = { type: typeof OFFER } | { type: typeof WAITING; why: string; height?: number } | { type: typeof REFUSED; why: string };

/**
 * The control port, consumer page → frame: `ping` (answered `pong`: the frame and its engine are alive), `port`
 * (with a MessagePort in `ports`: serve a new service-worker port, as after a service-worker restart). Frame →
 * page: `pong`, and REFUSED when the consent check fails for a request (the page falls back to its own engine), with
 * `model` when only that model is refused (the page runs it on its own engine, the provider the others).
 */
export type ControlMessage = { type: 'ping'; id: number } | { type: 'port' };
export type ControlReply = { type: 'pong'; id: number } | { type: typeof REFUSED; why: string; model?: string };

export function messageType(data: unknown): string | undefined {
  const type = (data as { type?: unknown } | null)?.type;
  return typeof type === 'string' ? type : undefined;
}
