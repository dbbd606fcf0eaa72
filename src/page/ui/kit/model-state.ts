// A model's state on this device in the words every area uses: its label, the line that tells a download's or
// a load's progress, and the chat model a new chat (or a key's snippets) takes here.
import type { ModelStatus } from '#shared/wire/engine-port';
import type { ModelState } from '#shared/protocol/types';
import type { ModelId } from '#shared/variants';
import type { RateEstimate } from '../download-rate';
import { getState } from '../store';
import { cpuEngine } from './device';
import { formatBytes, formatDuration, formatRate } from './format';
import { chooseChatModel } from './model-facts';

/** The variants in their order, those nothing answers here (this device cannot run them, no upstream serves them) last. */
export function runnableFirst(ids: readonly ModelId[], statuses: readonly ModelStatus[] | null | undefined): ModelId[] {
  const runs = (id: ModelId) => {
    const status = statuses?.find((m) => m.id === id);
    return !(status?.state === 'unavailable' && status.serving?.engine !== 'upstream');
  };
  return [...ids.filter(runs), ...ids.filter((id) => !runs(id))];
}

export const STATE_LABEL: Record<ModelState, string> = {
  not_downloaded: 'Not downloaded',
  downloading: 'Downloading',
  cached: 'Cached',
  loading: 'Loading',
  ready: 'Ready',
  unavailable: 'Unavailable',
};

/** What a load is doing after the download, in the engine's phase names; `load` says where the weights go. */
const PHASE_LABEL: Record<string, string> = {
  prepare: 'Preparing',
  compile: 'Compiling GPU shaders',
  done: 'Finishing',
};

/** Whether the weights of a model go to the GPU (web-llm, or llama.cpp on WebGPU) or stay in memory for the CPU. */
function weightsOnCpu(status: ModelStatus): boolean {
  // Whatever the engine: web-llm always runs on WebGPU, llama.cpp on it or on the CPU.
  if (status.runtime) return status.runtime.device !== 'webgpu';
  return cpuEngine(getState()) !== null;
}

function phaseLabel(status: ModelStatus, phase: string): string | null {
  if (phase === 'load') return weightsOnCpu(status) ? 'Reading weights into memory for the CPU' : 'Copying weights to the GPU';
  return PHASE_LABEL[phase] ?? null;
}

/** "1.00 MiB of 4.00 MiB · 25% · 12.0 MiB/s · 3 s left", or "Copying weights to the GPU · 1.00 MiB of 4.00 MiB · 25%" */
export function progressLine(status: ModelStatus, rate: RateEstimate | undefined): string {
  const p = status.progress;
  if (!p) return '';
  const parts: string[] = [];
  const phase = status.state === 'loading' ? phaseLabel(status, p.phase) : null;
  if (phase) parts.push(phase);
  if (p.bytesTotal > 0) parts.push(`${formatBytes(p.bytesDone)} of ${formatBytes(p.bytesTotal)}`);
  parts.push(`${Math.round(p.percent)}%`);
  if (status.state === 'downloading') {
    parts.push(rate?.bytesPerSecond ? formatRate(rate.bytesPerSecond) : 'measuring speed');
    if (rate?.secondsLeft != null) parts.push(`${formatDuration(rate.secondsLeft)} left`);
  }
  return parts.join(' · ');
}

/** The model a chat starts with: the one choice of model-facts.ts, for this device; `allowed`: the models the key reaches. */
export function preferredModel(allowed: (id: ModelId) => boolean = () => true): ModelId {
  return chooseChatModel(getState().models, allowed);
}
