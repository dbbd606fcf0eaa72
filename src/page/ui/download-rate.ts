// Download speed and time left, estimated from the progress reports the engine sends.

interface Sample {
  at: number;
  bytes: number;
}

/** How far back the speed looks: long enough to smooth bursts, short enough to follow changes. */
const WINDOW_MS = 5000;

export interface RateEstimate {
  /** Bytes per second; null until two reports are apart in time. */
  bytesPerSecond: number | null;
  /** Seconds left at that speed; null when unknown. */
  secondsLeft: number | null;
}

/** One per download: feed it every progress report, read the estimate. */
export class DownloadRate {
  private samples: Sample[] = [];

  add(bytesDone: number, at: number): void {
    const last = this.samples[this.samples.length - 1];
    // A restart (bytes went down) begins a new estimate.
    if (last && bytesDone < last.bytes) this.samples = [];
    this.samples.push({ at, bytes: bytesDone });
    while (this.samples.length > 2 && at - this.samples[0]!.at > WINDOW_MS) this.samples.shift();
  }

  estimate(bytesTotal: number): RateEstimate {
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    if (!first || !last || last.at <= first.at || last.bytes <= first.bytes) return { bytesPerSecond: null, secondsLeft: null };
    const bytesPerSecond = ((last.bytes - first.bytes) * 1000) / (last.at - first.at);
    const left = Math.max(0, bytesTotal - last.bytes);
    return { bytesPerSecond, secondsLeft: left / bytesPerSecond };
  }
}
