// The bound on a page's start (installInpage's `startTimeoutMs`, docs/embedding.md): every step of the start (the
// settings file, the service worker's registration and control, the engine worker) runs within what is left of
// it, and one still running when it ends rejects with an error naming the step and what to check. Nothing of the
// start retries past it.

/** How long `installInpage()` (and the workspace page's start) may take before it rejects. */
export const START_TIMEOUT_MS = 60_000;

export class StartBound {
  /** When the start must be over (`performance.now()` time). */
  readonly until: number;

  constructor(readonly ms: number = START_TIMEOUT_MS) {
    if (!(ms > 0) || !Number.isFinite(ms)) throw new Error(`inpage: startTimeoutMs must be a positive number of milliseconds, not ${String(ms)}.`);
    this.until = performance.now() + ms;
  }

  /** The milliseconds left (0 once the bound has passed). */
  left(): number {
    return Math.max(0, this.until - performance.now());
  }

  /** The error of a step the bound ended: what was under way, and what to check. */
  expired(step: string, check: string): Error {
    return new Error(`inpage: ${step} did not finish within ${this.ms / 1000} s (startTimeoutMs): ${check}`);
  }

  /** `promise`, or the bound's error once it has passed. */
  within<T>(promise: Promise<T>, step: string, check: string): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ended = new Promise<never>((_, reject) => {
      // A timer may fire a little before its time (Node starts it from the event loop's cached clock): the step is
      // refused only once the bound has really passed, so the error never comes with time still left.
      const wait = () => {
        const left = this.left();
        if (left > 0) timer = setTimeout(wait, left);
        else reject(this.expired(step, check));
      };
      wait();
    });
    return Promise.race([promise, ended]).finally(() => clearTimeout(timer));
  }
}
