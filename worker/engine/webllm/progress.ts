// Turns web-llm's load reports (a fraction and a sentence) into LoadProgress: phase, bytes done and total.
// The sentences come from tvmjs: "Fetching param cache[i/n]: 123MB fetched. 10% completed, …" while
// downloading weights, "Loading model from cache[i/n]: 123MB loaded. …" while copying them to the GPU,
// "Loading GPU shader modules[i/n]: …" while compiling, and "Finish loading on WebGPU - …" at the end.
import type { InitProgressReport } from '@mlc-ai/web-llm';
import type { LoadProgress } from '#shared/wire/engine-port';

const MiB = 1024 * 1024;

export type LoadPhase = 'prepare' | 'download' | 'load' | 'compile' | 'done';

const PATTERNS: [RegExp, LoadPhase][] = [
  [/^Fetching param cache\[\d+\/\d+\]: (\d+)MB fetched/, 'download'],
  [/^Loading model from cache\[\d+\/\d+\]: (\d+)MB loaded/, 'load'],
  [/^Loading GPU shader modules\[/, 'compile'],
  [/^Finish loading/, 'done'],
];

/** Follows one load's reports; remembers the weight size once a download or copy report reveals it. */
export class ProgressTracker {
  private bytesTotal = 0;
  private phase: LoadPhase = 'prepare';

  update(report: InitProgressReport): LoadProgress {
    let megabytes: number | null = null;
    let phase: LoadPhase = 'prepare';
    for (const [pattern, name] of PATTERNS) {
      const match = pattern.exec(report.text);
      if (!match) continue;
      phase = name;
      if (match[1] !== undefined) megabytes = Number(match[1]);
      break;
    }
    // "Start to fetch params" and other sentences keep the phase we were in.
    if (phase === 'prepare' && this.phase !== 'prepare') phase = this.phase;
    this.phase = phase;
    const fraction = Number.isFinite(report.progress) ? Math.min(1, Math.max(0, report.progress)) : 0;
    let bytesDone = 0;
    if (megabytes !== null) {
      // tvmjs rounds megabytes up; the fraction is exact, so the total sharpens with every report.
      bytesDone = megabytes * MiB;
      if (fraction > 0) this.bytesTotal = Math.round(bytesDone / fraction);
      if (this.bytesTotal > 0) bytesDone = Math.round(fraction * this.bytesTotal);
    } else if (phase === 'compile' || phase === 'done') {
      bytesDone = this.bytesTotal; // every weight is on the GPU by now
    }
    return {
      phase,
      bytesDone,
      bytesTotal: this.bytesTotal,
      percent: Math.floor(fraction * 100),
      text: report.text,
    };
  }

  /** Bytes of weights, once a report has revealed them (0 before). */
  get weightBytes(): number {
    return this.bytesTotal;
  }
}
