// The one source of the times a person sees on stored records: keys' `createdAt`, `lastUsedAt` and `revokedAt`,
// the workspace's `createdAt`, the workspace's chats, stored responses. It is the service worker's wall clock.
// The service worker reads its own; a page asks the worker that controls it (CLOCK_ASK, wire/page-messages.ts)
// and keeps the difference to its own clock, so a page whose clock is off (a person's setting, a script that fakes
// `Date`) neither writes nor shows times off by as much. A page no worker controls (or that gets no answer within
// CLOCK_ASK_MS) keeps the difference it had, at first none: its own clock.
// How the times of one record stay in order when a clock is put right: `inOrder` (keys/key-store.ts).
import { CLOCK_ASK, clockReading } from './wire/page-messages';

/** How long a page waits for its service worker to say its time before going on with the difference it had. */
export const CLOCK_ASK_MS = 1000;

/** The service worker's clock minus this realm's, as last measured (0 in the service worker itself). */
let offsetMs = 0;

/** The time of records now, by the last measured difference (for showing times relative to now; in the service worker, its clock). */
export function recordNow(): number {
  return Date.now() + offsetMs;
}

/** Its service worker's Date.now(), asked over a MessageChannel; null without one or without an answer in time. */
function askServiceWorker(): Promise<number | null> {
  const worker = typeof window !== 'undefined' ? navigator.serviceWorker?.controller : null;
  if (!worker) return Promise.resolve(null);
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    const done = (now: number | null) => {
      clearTimeout(timer);
      channel.port1.close();
      resolve(now);
    };
    const timer = setTimeout(() => done(null), CLOCK_ASK_MS);
    channel.port1.onmessage = (event: MessageEvent) => done(clockReading(event.data) ?? null);
    worker.postMessage(CLOCK_ASK, [channel.port2]);
  });
}

/** The time of records now, measured afresh in a page (for a time about to be written, and at a page's start). */
export async function recordTime(): Promise<number> {
  const sent = Date.now();
  const theirs = await askServiceWorker();
  const back = Date.now();
  // Their clock was read about halfway through the round trip.
  if (theirs !== null) offsetMs = theirs - (sent + back) / 2;
  return recordNow();
}
