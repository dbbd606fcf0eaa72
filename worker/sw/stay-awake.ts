/// <reference lib="webworker" />
// Keeping the service worker alive while it answers. A browser stops an idle service worker; an event in
// progress (a fetch's respondWith, a waitUntil) should hold it, but Firefox gives an event only so long: it stops
// the worker `dom.serviceWorkers.idle_timeout` + `idle_extended_timeout` (30 s + 30 s) after its last event,
// in progress or not. A JSON answer that waits that long for a model to load fails in the page with a
// NetworkError, and a stream is cut without an end (measured in Firefox ESR 153: a 97 s stream stopped at 60 s).
// Each new event starts that count again, so while a /v1 request is in progress the worker asks the pages of
// the origin, every STAY_AWAKE_MS, for a message (every page that started inpage answers:
// src/page/sw-registration.ts, answerStayAwakeAsks). The asks stop when the last request ends, and the worker may then idle.
// Chromium instead ends an event that lasts 5 minutes, and stops the worker with it (measured in Chromium 156: a
// stream of 6 minutes failed at 5 min 9 s with "Failed to fetch", with the asks or without). So a fetch event is
// held (waitUntil) for at most EVENT_HOLD_MS; work that goes on longer is kept alive by the asks alone. A
// respondWith cannot be let go early: a request that waits longer than 5 minutes for its model to load before
// the answer's status is known still fails there (docs/browsers.md).
import { STAY_AWAKE_ASK } from '#shared/wire/page-messages';
import { postToPages } from './pages';

/** How often a busy service worker asks for a message: a third of Firefox's 30 s idle timeout. */
export const STAY_AWAKE_MS = 10_000;

/** How long a fetch event is held for its work (waitUntil) at most: less than Chromium's 5 minutes per event. */
export const EVENT_HOLD_MS = 240_000;

/** Counts the work in progress (promises a fetch event waits on) and asks for events while there is some. */
export class StayAwake {
  private busy = 0;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly ask: () => Promise<void> = () => postToPages(STAY_AWAKE_ASK),
    private readonly everyMs = STAY_AWAKE_MS,
    private readonly holdMs = EVENT_HOLD_MS,
  ) {}

  /**
   * For a fetch event's waitUntil: counts `work` until it settles, and returns a promise that settles with it
   * or after EVENT_HOLD_MS, whichever comes first (it never rejects).
   */
  forEvent(work: Promise<unknown>): Promise<void> {
    this.hold(work).catch(() => undefined);
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.holdMs);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      void work.then(done, done);
    });
  }

  /** Work in progress: counted until `work` settles. */
  hold<T>(work: Promise<T>): Promise<T> {
    if (this.busy++ === 0) this.timer = setInterval(() => void this.ask().catch(() => undefined), this.everyMs);
    const release = () => {
      if (--this.busy === 0) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
    void work.then(release, release);
    return work;
  }

  /** How many pieces of work are in progress. */
  get inProgress(): number {
    return this.busy;
  }
}
