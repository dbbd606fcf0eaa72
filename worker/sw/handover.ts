// An update under continuous traffic (issue 51; docs/browsers.md, *An update under traffic*). A browser activates a
// waiting version of this worker only once the active one has no event in progress, and every /v1 request is an
// event of the active version from its fetch until its answer has begun and its booking is done. Clients that send
// one request after another therefore kept an old version in control for as long as they went on. So once a newer
// version of inpage waits (it has installed; it called skipWaiting), this version:
// - refuses each new /v1 request at once with a 503 `service_unavailable` and `retry-after: 1`, which the SDKs retry
//   (openai, the AI SDK, LangChain): by then the new version answers them;
// - finishes what it holds: answers in progress go on to their end and are booked here;
// - and ends what it still holds HANDOVER_MS after the new version began waiting (a stream with an in-band error,
//   a JSON answer as a dropped connection; what was delivered is booked), so that the new version takes over within
//   that bound and nothing is cut by the browser stopping this one.
// If the new version has still not taken over HANDOVER_GIVE_UP_MS after that, this version answers again.
//
// Chromium (156) stops the old version once it has been idle for a moment (no event in progress), then activates the
// new one; a request that arrives while the old one is stopping starts it again, and the hand-over waits for its next
// idle moment, which clients retrying at random may never leave it. So every refused request is told to come back at
// the same instants (`retry-after-ms`, read by the openai SDK and the AI SDK, and `retry-after` in whole seconds): the
// next slot of HANDOVER_SLOT_MS at least HANDOVER_MIN_WAIT_MS away. Between two slots no request arrives, and the old
// version stops in that quiet moment.

/** How long an old version finishes the answers it holds once a new version waits, at most. */
export const HANDOVER_MS = 20_000;
/** After HANDOVER_MS, how long an old version still refuses new requests for a new version that does not take over. */
export const HANDOVER_GIVE_UP_MS = 10_000;

/** The instants refused requests are sent back at are this far apart (handover.ts). */
export const HANDOVER_SLOT_MS = 1000;
/** A refused request waits at least this long before it comes back. */
export const HANDOVER_MIN_WAIT_MS = 250;

/** The handover of one old version to a newer, waiting one. */
export class Handover {
  private since: number | null = null;
  private readonly ending = new AbortController();

  constructor(
    private readonly now: () => number = () => Date.now(),
    private readonly ms = HANDOVER_MS,
    private readonly giveUpMs = HANDOVER_GIVE_UP_MS,
  ) {}

  /** A newer version waits to take over: from now on new requests are refused, and in `ms` what is held ends. */
  begin(): void {
    if (this.since !== null) return;
    this.since = this.now();
    setTimeout(() => this.ending.abort(new Error('a new version of inpage takes over')), this.ms);
  }

  /** Whether a new request should be refused now (a newer version is waiting, and not for too long). */
  get refusing(): boolean {
    return this.since !== null && this.now() - this.since < this.ms + this.giveUpMs;
  }

  /** How long a request refused now waits before it comes back: to the next slot (HANDOVER_SLOT_MS) after the minimum. */
  retryAfterMs(): number {
    const now = this.now();
    const since = this.since ?? now;
    return since + Math.ceil((now - since + HANDOVER_MIN_WAIT_MS) / HANDOVER_SLOT_MS) * HANDOVER_SLOT_MS - now;
  }

  /**
   * The signal for an answer beginning now: none once it has fired, so that after HANDOVER_GIVE_UP_MS, when this
   * version answers again, its new answers are not born ended.
   */
  get forNewAnswer(): AbortSignal | undefined {
    return this.ending.signal.aborted ? undefined : this.ending.signal;
  }

  /** Aborted `ms` after the handover began: the answers this version still holds end. */
  get signal(): AbortSignal {
    return this.ending.signal;
  }
}

/** The signal a fetch event's context carries (service.ts puts it in `props.ending`), if any. */
export function handoverOf(context: { props?: unknown }): AbortSignal | undefined {
  const props = context.props as { ending?: unknown } | undefined;
  return props?.ending instanceof AbortSignal ? props.ending : undefined;
}
