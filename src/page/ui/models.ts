// Models: the five variants, what each can do, its state and download progress, and the engine's controls.
import { h } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { AdapterReport } from '../../engine-control';
import type { ModelStatus } from '../../engine-protocol';
import type { ModelState } from '../../protocol/types';
import { modelIds, variantOf } from '../../catalog';
import type { ModelId } from '../../variants';
import type { RateEstimate } from './download-rate';
import { formatBytes, formatDuration, formatInteger, formatRate } from './format';
import { ModelStorage } from './model-storage';
import { NoWebGpu } from './no-webgpu';
import { getState, useUi, type UiState } from './store';
import { Notice, errorText } from './widgets';

export const STATE_LABEL: Record<ModelState, string> = {
  not_downloaded: 'Not downloaded',
  downloading: 'Downloading',
  cached: 'Cached',
  loading: 'Loading',
  ready: 'Ready',
  unavailable: 'Unavailable',
};

/** Why models cannot run in this browser, or null when they can (or we do not know yet). */
export function webGpuMissing(ui: UiState): string | null {
  if (ui.webgpu && !ui.webgpu.available) return ui.webgpu.reason ?? 'No WebGPU adapter.';
  if (ui.adapter && !ui.adapter.available) return ui.adapter.reason ?? 'The engine found no WebGPU adapter.';
  return null;
}

function partners(id: ModelId): ModelId[] {
  return modelIds().filter((other) => other !== id && variantOf(other)!.weightGroup === variantOf(id)!.weightGroup);
}

/** What a load is doing after the download, in the engine's phase names. */
const PHASE_LABEL: Record<string, string> = {
  prepare: 'Preparing',
  load: 'Copying weights to the GPU',
  compile: 'Compiling GPU shaders',
  done: 'Finishing',
};

/** "1.00 MiB of 4.00 MiB · 25% · 12.0 MiB/s · 3 s left", or "Copying weights to the GPU · 1.00 MiB of 4.00 MiB · 25%" */
export function progressLine(status: ModelStatus, rate: RateEstimate | undefined): string {
  const p = status.progress;
  if (!p) return '';
  const parts: string[] = [];
  if (status.state === 'loading' && PHASE_LABEL[p.phase]) parts.push(PHASE_LABEL[p.phase]!);
  if (p.bytesTotal > 0) parts.push(`${formatBytes(p.bytesDone)} of ${formatBytes(p.bytesTotal)}`);
  parts.push(`${Math.round(p.percent)}%`);
  if (status.state === 'downloading') {
    parts.push(rate?.bytesPerSecond ? formatRate(rate.bytesPerSecond) : 'measuring speed');
    if (rate?.secondsLeft != null) parts.push(`${formatDuration(rate.secondsLeft)} left`);
  }
  return parts.join(' · ');
}

function Progress(props: { status: ModelStatus; rate: RateEstimate | undefined }) {
  const { status } = props;
  const p = status.progress;
  if (!p) return null;
  const id = `progress-${status.id}`;
  const what = status.state === 'downloading' ? 'Download' : 'Load';
  return h(
    'div',
    { class: 'progress' },
    h('progress', { id, max: 100, value: p.percent, 'aria-label': `${what} of ${status.id}`, 'aria-describedby': `${id}-text` }),
    h('p', { id: `${id}-text`, class: 'progress-text' }, progressLine(status, props.rate)),
  );
}

type Action = 'load' | 'unload' | 'delete';

function ModelCard(props: { id: ModelId; status: ModelStatus | undefined; rate: RateEstimate | undefined; controllable: boolean }) {
  const { id, status } = props;
  const v = variantOf(id)!;
  const state: ModelState = status?.state ?? 'unavailable';
  const badge = status ? STATE_LABEL[state] : props.controllable ? 'Checking…' : 'In another tab';
  const [busy, setBusy] = useState<Action | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirmButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirmDelete) confirmButton.current?.focus();
  }, [confirmDelete]);

  const run = async (action: Action) => {
    const control = getState().engine?.control;
    if (!control) return;
    setBusy(action);
    setError(null);
    setConfirmDelete(false);
    try {
      if (action === 'load') await control.load(id);
      else if (action === 'unload') await control.unload();
      else await control.deleteFromCache(id);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(null);
    }
  };

  const shares = partners(id);
  const working = busy !== null || state === 'downloading' || state === 'loading';
  const buttons = [];
  if (props.controllable) {
    if (state === 'not_downloaded') {
      buttons.push(h('button', { type: 'button', class: 'button primary', disabled: working, onClick: () => run('load'), 'aria-label': `Download and load ${id}` }, 'Download and load'));
    }
    if (state === 'cached') {
      buttons.push(h('button', { type: 'button', class: 'button primary', disabled: working, onClick: () => run('load'), 'aria-label': `Load ${id}` }, 'Load'));
    }
    if (state === 'ready') {
      buttons.push(h('button', { type: 'button', class: 'button', disabled: working, onClick: () => run('unload'), 'aria-label': `Unload ${id}` }, 'Unload'));
    }
    if ((state === 'cached' || state === 'ready') && !confirmDelete) {
      buttons.push(h('button', { type: 'button', class: 'button', disabled: working, onClick: () => setConfirmDelete(true), 'aria-label': `Delete ${id} from cache` }, 'Delete from cache'));
    }
  }

  return h(
    'article',
    { class: `model-card state-${state}`, 'aria-labelledby': `model-${id}`, 'data-model': id, 'data-state': state },
    h(
      'header',
      null,
      h('h2', { id: `model-${id}` }, id),
      h('span', { class: status ? `badge badge-${state}` : 'badge', 'data-testid': 'state' }, badge),
    ),
    h(
      'ul',
      { class: 'caps', 'aria-label': `What ${id} can do` },
      h('li', { class: v.thinks ? 'cap on' : 'cap' }, v.thinks ? 'Thinks first' : 'Answers directly'),
      v.vision && h('li', { class: 'cap on' }, 'Vision: reads images'),
      status && h('li', { class: 'cap' }, `Context ${formatInteger(status.context_length)} tokens here`),
    ),
    h(
      'dl',
      { class: 'facts-list' },
      status?.model && h('dt', null, 'Model'),
      status?.model && h('dd', { 'data-testid': 'real-model' }, status.model),
      h('dt', null, 'Hosted context'),
      h('dd', null, v.hostedContext ? `${formatInteger(v.hostedContext)} tokens` : 'Not published'),
      h('dt', null, 'Size on disk'),
      h('dd', { 'data-testid': 'size' }, status?.sizeOnDisk ? formatBytes(status.sizeOnDisk) : status?.state === 'not_downloaded' ? 'Not downloaded' : '—'),
      shares.length > 0 && h('dt', null, 'Shares weights with'),
      shares.length > 0 && h('dd', null, shares.join(', ')),
    ),
    status && (state === 'downloading' || state === 'loading') && h(Progress, { status, rate: props.rate }),
    status?.error && h(Notice, { kind: 'error' }, status.error),
    error && h(Notice, { kind: 'error' }, error),
    confirmDelete &&
      h(
        'div',
        { class: 'confirm', role: 'group', 'aria-label': `Confirm deleting ${id} from cache` },
        h('p', null, `Delete ${status?.sizeOnDisk ? formatBytes(status.sizeOnDisk) + ' of ' : ''}weights${shares.length ? ` (shared with ${shares.join(', ')})` : ''}? They download again on next use.`),
        h('button', { type: 'button', class: 'button danger small', ref: confirmButton, onClick: () => run('delete'), 'aria-label': `Delete ${id} from cache now` }, 'Delete'),
        h('button', { type: 'button', class: 'button small', onClick: () => setConfirmDelete(false), 'aria-label': `Keep ${id} in cache` }, 'Cancel'),
      ),
    buttons.length > 0 && h('div', { class: 'actions' }, ...buttons),
    working && state !== 'downloading' && state !== 'loading' && h('p', { class: 'hint', role: 'status' }, 'Working…'),
  );
}

function AdapterCard(props: { adapter: AdapterReport }) {
  const a = props.adapter;
  const name = [a.vendor, a.architecture].filter(Boolean).join(' ') || 'Unnamed adapter';
  return h(
    'section',
    { class: 'card adapter', 'aria-labelledby': 'adapter-title' },
    h('h2', { id: 'adapter-title' }, 'WebGPU adapter in use'),
    h(
      'dl',
      { class: 'facts-list' },
      h('dt', null, 'Adapter'),
      h('dd', { 'data-testid': 'adapter-name' }, name),
      a.description && a.description !== name && h('dt', null, 'Description'),
      a.description && a.description !== name && h('dd', null, a.description),
      h('dt', null, '16-bit shaders'),
      h('dd', null, a.shaderF16 ? 'Yes: models run with 16-bit weights (q4f16)' : 'No: models run with the 32-bit fallback (q4f32), larger and slower'),
      a.features.length > 0 && h('dt', null, 'Features'),
      a.features.length > 0 &&
        h('dd', null, h('details', { class: 'features' }, h('summary', null, `${a.features.length} WebGPU features`), h('p', null, a.features.join(', ')))),
    ),
  );
}

export function ModelsArea() {
  const ui = useUi();
  const missing = webGpuMissing(ui);
  const engine = ui.engine;
  return h(
    'section',
    { class: 'area', 'aria-labelledby': 'area-title' },
    h('h1', { id: 'area-title', tabIndex: -1 }, 'Models'),
    h(
      'p',
      { class: 'lede' },
      'Five variants run on this device’s GPU. Weights download once and stay in this browser’s cache; variants that share weights download and load together, and one set of weights is loaded at a time. A request for a model that is not ready loads it first. The context each variant enforces here is bounded by this GPU’s memory; the hosted figures are for reference.',
    ),
    missing
      ? h(NoWebGpu, { reason: missing })
      : [
          ui.adapter && h(AdapterCard, { adapter: ui.adapter }),
          !engine &&
            h(
              Notice,
              { kind: 'info' },
              'Another open inpage tab runs the engine for this origin: manage models there. This tab takes over, with these controls, if that tab closes.',
            ),
          h(
            'div',
            { class: 'model-grid' },
            modelIds().map((id) =>
              h(ModelCard, { key: id, id, status: ui.models?.find((m) => m.id === id), rate: ui.rates[id], controllable: engine !== null }),
            ),
          ),
          h(ModelStorage, null),
        ],
  );
}
