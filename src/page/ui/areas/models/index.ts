// Models: the variants, what each can do, its state and download progress, and the engine's controls.
import { h } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { AdapterReport } from '#shared/wire/engine-control';
import type { ModelStatus } from '#shared/wire/engine-port';
import type { ModelState } from '#shared/protocol/types';
import { modelIds, variantOf } from '#shared/catalog';
import type { ModelId } from '#shared/variants';
import { ENGINE_KIND_SPECS } from '#shared/engine-kinds/specs';
import type { RateEstimate } from '../../download-rate';
import { formatBytes, formatInteger } from '../../kit/format';
import { cardOf, cardTitle } from '../../../model-cards';
import { approveDownload, sizeSource, sizeText, useDownloadSize, type ShownSize } from '../../kit/download-ask';
import { ModelStorage } from './model-storage';
import { MODE_WORDS, ModeSwitch, UpstreamConnections } from './upstream-connections';
import { CpuNotice, NoWebGpu } from '../../kit/no-webgpu';
import { getState, useUi } from '../../store';
import { cpuEngine, webGpuMissing } from '../../kit/device';
import { STATE_LABEL, preferredModel, progressLine, runnableFirst } from '../../kit/model-state';
import { THINKING_LABEL, answerable, thinkingHere } from '../../kit/model-facts';
import { Notice, errorText } from '../../kit/widgets';
import { ErrorText, plainLoadError } from '../../kit/plain-error';
import { NOT_REPORTED, unavailableWhy } from '#shared/unavailable-why';

function partners(id: ModelId): ModelId[] {
  return modelIds().filter((other) => other !== id && variantOf(other)!.weightGroup === variantOf(id)!.weightGroup);
}

/**
 * The card that shows a failed load of weights that `id` shares: the variant the failure names (the one whose
 * load failed: the card pressed, or the model a request asked for), else the first of the weights' variants.
 */
function errorHome(id: ModelId, error: string): ModelId {
  const group = modelIds().filter((other) => other === id || partners(id).includes(other));
  const named = group
    .map((other) => ({ other, at: error.search(new RegExp(`(?<![\\w.-])${other.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-]|\\.\\w)`)) }))
    .filter((m) => m.at >= 0)
    .sort((x, y) => x.at - y.at)[0];
  return named?.other ?? group[0]!;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
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

function focusImport(): void {
  const section = document.getElementById('import-title');
  section?.scrollIntoView({ block: 'start' });
  document.getElementById('import-folder')?.focus();
}

function LoadError(props: { id: ModelId; message: string; onRetry: (() => void) | null; canImport: boolean }) {
  return h(
    'div',
    { class: 'notice notice-error load-error', role: 'alert', 'data-testid': 'load-error' },
    h(ErrorText, { message: props.message, plain: plainLoadError(props.message) }),
    (props.onRetry || props.canImport) &&
      h(
        'div',
        { class: 'actions' },
        props.onRetry && h('button', { type: 'button', class: 'button small', onClick: props.onRetry, 'aria-label': `Retry loading ${props.id}` }, 'Retry'),
        props.canImport && h('button', { type: 'button', class: 'button small', onClick: focusImport }, 'Import from a folder'),
      ),
  );
}

type Action = 'load' | 'unload' | 'delete';

/**
 * After a card's action the button pressed is gone or was disabled while it ran: the focus goes to the card's
 * next action (Unload after Load, Download and load after Delete), else its heading; never to the page's body.
 * Focus the person moved elsewhere meanwhile stays where it is.
 */
function refocus(id: ModelId): void {
  requestAnimationFrame(() => {
    const card = document.querySelector<HTMLElement>(`article[data-model="${id}"]`);
    const now = document.activeElement;
    if (!card || (now && now !== document.body && document.contains(now) && !card.contains(now))) return;
    (card.querySelector<HTMLElement>('.actions button:not([disabled])') ?? card.querySelector<HTMLElement>('h2'))?.focus({ preventScroll: true });
  });
}

interface CardProps {
  id: ModelId;
  status: ModelStatus | undefined;
  rate: RateEstimate | undefined;
  /** Whether this tab runs the engine (the card's controls then). */
  controllable: boolean;
}

/**
 * A card's actions (load, unload, delete from cache): the one running, the delete waiting for its confirmation,
 * the error of the last, and where the focus goes once the card shows where the action led.
 */
function useCardActions(id: ModelId, state: ModelState) {
  const [busy, setBusy] = useState<Action | null>(null);
  /** After an action: the state it started from (the focus moves once the card has left it), or null. */
  const refocusAfter = useRef<{ from: ModelState | null } | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirmButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirmDelete) confirmButton.current?.focus();
  }, [confirmDelete]);

  const run = async (action: Action) => {
    const control = getState().engine?.control;
    if (!control) return;
    // Over 100 MB, the person is asked once for this model first.
    if (action === 'load' && !(await approveDownload(id))) return;
    setBusy(action);
    setError(null);
    setConfirmDelete(false);
    refocusAfter.current = { from: state };
    try {
      if (action === 'load') await control.load(id);
      else if (action === 'unload') await control.unload();
      else await control.deleteFromCache(id);
    } catch (err) {
      setError(errorText(err));
      // Failed: the card stays where it was, and the focus goes to it now.
      refocusAfter.current = { from: null };
    } finally {
      setBusy(null);
    }
  };

  const working = busy !== null || state === 'downloading' || state === 'loading';
  // Once an action is over and the card shows where it led, the focus goes to the card's next action.
  useEffect(() => {
    const after = refocusAfter.current;
    if (!after || working || (after.from !== null && state === after.from)) return;
    refocusAfter.current = null;
    refocus(id);
  }, [working, state]);
  return { run, working, error, confirmDelete, setConfirmDelete, confirmButton };
}

type CardActions = ReturnType<typeof useCardActions>;

/** The buttons of the card's state: Download and load, Load, Unload, Delete from cache. */
function cardButtons(id: ModelId, state: ModelState, controllable: boolean, actions: CardActions) {
  const { working, run, confirmDelete, setConfirmDelete } = actions;
  const buttons = [];
  if (controllable) {
    if (state === 'not_downloaded') {
      buttons.push(
        h(
          'button',
          { type: 'button', class: 'button primary', disabled: working, onClick: () => run('load'), 'aria-label': `Download and load ${id}` },
          'Download and load',
        ),
      );
    }
    if (state === 'cached') {
      buttons.push(h('button', { type: 'button', class: 'button primary', disabled: working, onClick: () => run('load'), 'aria-label': `Load ${id}` }, 'Load'));
    }
    if (state === 'ready') {
      buttons.push(h('button', { type: 'button', class: 'button', disabled: working, onClick: () => run('unload'), 'aria-label': `Unload ${id}` }, 'Unload'));
    }
    if ((state === 'cached' || state === 'ready') && !confirmDelete) {
      buttons.push(
        h(
          'button',
          { type: 'button', class: 'button', disabled: working, onClick: () => setConfirmDelete(true), 'aria-label': `Delete ${id} from cache` },
          'Delete from cache',
        ),
      );
    }
  }
  return buttons;
}

/** What the variant can do: thinking (or embeddings), vision, the context it has here. */
function Caps(props: { id: ModelId; status: ModelStatus | undefined }) {
  const { id, status } = props;
  const v = variantOf(id)!;
  return h(
    'ul',
    { class: 'caps', 'aria-label': `What ${id} can do` },
    // The model that serves it here may differ (svc-vision thinks on llama.cpp): its status says so.
    v.embeddings
      ? h('li', { class: 'cap on' }, `Embeddings: ${v.embeddings.dimensions} numbers a text`)
      : h(
          'li',
          { class: thinkingHere(id, status) !== 'never' ? 'cap on' : 'cap', 'data-testid': 'thinking' },
          capitalised(THINKING_LABEL[thinkingHere(id, status)]),
        ),
    v.vision && h('li', { class: 'cap on' }, 'Vision: reads images'),
    status && h('li', { class: 'cap' }, `Context ${formatInteger(status.context_length)} tokens ${v.engine === 'upstream' ? 'on the server' : 'here'}`),
  );
}

/** The facts of the card: the model, who answers it, where it runs, its licence, memory and size. */
function Facts(props: CardProps & { state: ModelState; size: ShownSize | null | undefined; shares: ModelId[] }) {
  const { status, state, size, shares } = props;
  const card = cardOf(status);
  return h(
    'dl',
    { class: 'facts-list' },
    card && h('dt', null, 'Model'),
    card && h('dd', null, `${card.family} ${card.size}, ${card.quantisation}`, status?.modelId ? h('span', { class: 'muted' }, ` (${status.modelId})`) : null),
    // A model the deployment configured (no card here): its id, as the engine names it.
    !card && status?.modelId && h('dt', null, 'Model'),
    !card && status?.modelId && h('dd', { 'data-testid': 'real-model' }, status.modelId),
    // Hybrid (docs/hybrid.md): the mode and the side that answers a request now, and why.
    status?.serving && h('dt', null, 'Answered by'),
    status?.serving &&
      h(
        'dd',
        { 'data-testid': 'serving', 'data-engine': status.serving.engine, 'data-mode': status.serving.mode },
        status.serving.engine === 'upstream' ? `The upstream ${status.serving.upstream?.name ?? ''} (${status.serving.upstream?.host ?? ''})` : 'This device',
        h('span', { class: 'muted' }, ` now · ${MODE_WORDS[status.serving.mode]}. ${status.serving.why}`),
        ' ',
        h(ModeSwitch, { id: props.id, serving: status.serving, upstreamOnly: variantOf(props.id)?.engine === 'upstream' }),
      ),
    // Consumer mode (docs/shared-models.md): the model provider, whether it serves this site now, and why (not).
    status?.provider && h('dt', null, 'Model provider'),
    status?.provider &&
      h(
        'dd',
        { 'data-testid': 'provider', 'data-serving': String(status.provider.serving) },
        status.provider.serving ? `In use: ${status.provider.why}.` : `Not used: ${status.provider.why}. This site's own engine runs it.`,
      ),
    card && h('dt', null, 'Licence'),
    card && h('dd', null, h('a', { href: card.licenceUrl, target: '_blank', rel: 'noopener noreferrer' }, card.licence)),
    status?.memoryMB && h('dt', null, 'GPU memory'),
    status?.memoryMB &&
      h('dd', { 'data-testid': 'memory' }, `${formatInteger(status.memoryMB)} MB at 4,096 tokens of context, more for the context this device allows`),
    state === 'not_downloaded' && props.controllable
      ? [
          h('dt', null, 'Download size'),
          h(
            'dd',
            { 'data-testid': 'download-size' },
            sizeText(size),
            size && sizeSource(size) ? h('span', { class: 'muted' }, ` (${sizeSource(size)})`) : null,
          ),
        ]
      : [
          h('dt', null, 'Size on disk'),
          h('dd', { 'data-testid': 'size' }, status?.sizeOnDisk ? formatBytes(status.sizeOnDisk) : state === 'not_downloaded' ? 'Not downloaded' : '—'),
        ],
    shares.length > 0 && h('dt', null, 'Shares weights with'),
    shares.length > 0 && h('dd', null, shares.join(', ')),
  );
}

/**
 * Which engine runs the model, with how many threads, and (llama.cpp) which build and kernels run in this browser and
 * why (feature detection), and where its files are kept: folded under "Technical details".
 */
function TechnicalDetails(props: { status: ModelStatus | undefined }) {
  const runtime = props.status?.runtime;
  if (!runtime) return null;
  const llama = runtime.llamacpp ?? {};
  return h(
    'details',
    { class: 'tech-details' },
    h('summary', null, 'Technical details'),
    h(
      'dl',
      { class: 'facts-list' },
      h('dt', null, 'Runs on'),
      // Which engine runs the model and where, in its kind's words (src/shared/engine-kinds/<kind>.ts).
      h('dd', { 'data-testid': 'runtime' }, ENGINE_KIND_SPECS[runtime.engine].runtimeText(runtime)),
      llama.build && h('dt', null, 'llama.cpp build'),
      llama.build && h('dd', { 'data-testid': 'build', 'data-build': llama.build }, llama.buildWhy ?? llama.build),
      llama.wasm && h('dt', null, 'llama.cpp kernels'),
      llama.wasm && h('dd', { 'data-testid': 'wasm', 'data-wasm': llama.wasm }, llama.wasmWhy ?? llama.wasm),
      llama.storage && h('dt', null, 'Model files kept in'),
      llama.storage && h('dd', { 'data-testid': 'storage', 'data-store': llama.storage.store }, llama.storage.why),
    ),
  );
}

/** Why the model cannot run here, right under its badge: nothing to retry; the variant a chat takes instead. */
function UnavailableWhy(props: { id: ModelId; status: ModelStatus; upstreamServes: boolean }) {
  return h(
    'p',
    { class: props.upstreamServes ? 'unavailable-why muted' : 'unavailable-why', 'data-testid': 'unavailable' },
    unavailableWhy(props.status, NOT_REPORTED),
    props.upstreamServes ? '' : alternativeTo(props.id),
  );
}

/** Why the model does not run: its weights failed to load (here, or on the card named); a model that cannot run here says so under its badge. */
function Trouble(props: CardProps & { state: ModelState; actions: CardActions }) {
  const { id, status, state } = props;
  const { working, run } = props.actions;
  // A model this engine cannot serve here is not a failed load: it says why, with nothing to retry.
  return status && state === 'unavailable'
    ? null
    : // One failure, one error: on the card of the variant whose load failed; the cards sharing its weights point there.
      status?.error && errorHome(id, status.error) !== id
      ? h('p', { class: 'hint error-pointer' }, `Loading these weights failed: see ${errorHome(id, status.error)}.`)
      : ((status?.error &&
          h(LoadError, {
            id,
            message: status.error,
            onRetry: props.controllable && !working ? () => void run('load') : null,
            canImport: props.controllable,
          })) ??
        null);
}

function ConfirmDelete(props: { id: ModelId; status: ModelStatus | undefined; shares: ModelId[]; actions: CardActions }) {
  const { id, status, shares } = props;
  const { run, setConfirmDelete, confirmButton } = props.actions;
  return h(
    'div',
    { class: 'confirm', role: 'group', 'aria-label': `Confirm deleting ${id} from cache` },
    h(
      'p',
      null,
      `Delete ${status?.sizeOnDisk ? formatBytes(status.sizeOnDisk) + ' of ' : ''}weights${shares.length ? ` (shared with ${shares.join(', ')})` : ''}? They download again on next use.`,
    ),
    h(
      'button',
      { type: 'button', class: 'button danger small', ref: confirmButton, onClick: () => run('delete'), 'aria-label': `Delete ${id} from cache now` },
      'Delete',
    ),
    h('button', { type: 'button', class: 'button small', onClick: () => setConfirmDelete(false), 'aria-label': `Keep ${id} in cache` }, 'Cancel'),
  );
}

function ModelCard(props: CardProps) {
  const { id, status } = props;
  const state: ModelState = status?.state ?? 'unavailable';
  // This device cannot run it, but an upstream answers it (hybrid): that is not "Unavailable" to the person.
  const upstreamServes = state === 'unavailable' && status?.serving?.engine === 'upstream';
  const badge = upstreamServes ? 'Answered upstream' : status ? STATE_LABEL[state] : props.controllable ? 'Checking…' : 'In another tab';
  const actions = useCardActions(id, state);
  // Before downloading: how much, and from where (the engine measures it small).
  const size = useDownloadSize(id, props.controllable && state === 'not_downloaded');
  const shares = partners(id);
  const card = cardOf(status);
  const { working, error } = actions;
  const buttons = cardButtons(id, state, props.controllable, actions);

  return h(
    'article',
    { class: `model-card state-${state}`, 'aria-labelledby': `model-${id}`, 'data-model': id, 'data-state': state },
    h(
      'header',
      null,
      h('h2', { id: `model-${id}`, tabIndex: -1 }, id),
      // Answered upstream is the accent's badge (as "cached"), not the danger colour of "Unavailable".
      h('span', { class: upstreamServes ? 'badge badge-cached' : status ? `badge badge-${state}` : 'badge', 'data-testid': 'state' }, badge),
    ),
    card && h('p', { class: 'model-name', 'data-testid': 'model-name' }, cardTitle(card)),
    status && state === 'unavailable' && h(UnavailableWhy, { id, status, upstreamServes }),
    h(Caps, { id, status }),
    h(Facts, { ...props, state, size, shares }),
    h(TechnicalDetails, { status }),
    status && (state === 'downloading' || state === 'loading') && h(Progress, { status, rate: props.rate }),
    h(Trouble, { ...props, state, actions }),
    error && !status?.error && h(Notice, { kind: 'error' }, error),
    actions.confirmDelete && h(ConfirmDelete, { id, status, shares, actions }),
    buttons.length > 0 && h('div', { class: 'actions' }, ...buttons),
    working && state !== 'downloading' && state !== 'loading' && h('p', { class: 'hint', role: 'status' }, 'Working…'),
  );
}

/** For a chat variant that cannot run here: the one a chat takes instead, if another runs. */
function alternativeTo(id: ModelId): string {
  if (variantOf(id)?.embeddings) return '';
  const other = preferredModel();
  const status = getState().models?.find((m) => m.id === other);
  if (other === id || !answerable(status)) return '';
  // Who answers it now: this device, or (hybrid) the upstream it is sent to.
  const who = status?.serving?.engine === 'upstream' ? `is answered by your server ${status.serving.upstream?.name ?? ''}`.trimEnd() : 'runs on this device';
  return ` ${other} ${who}: the Playground uses it for new chats.`;
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
  const cpu = cpuEngine(ui);
  const engine = ui.engine;
  return h(
    'section',
    { class: 'area', 'aria-labelledby': 'area-title' },
    h('h1', { id: 'area-title', tabIndex: -1 }, 'Models'),
    h(
      'p',
      { class: 'lede' },
      cpu
        ? 'The variants run on this device’s CPU with llama.cpp (GGUF models). Weights download once and stay in this browser’s cache; variants that share weights download and load together, and one set of weights is loaded at a time. A request for a model that is not ready loads it first.'
        : 'The variants run on this device’s GPU. Weights download once and stay in this browser’s cache; variants that share weights download and load together, and one set of weights is loaded at a time. A request for a model that is not ready loads it first. The context each variant enforces here is bounded by this GPU’s memory.',
    ),
    // A test build says so (in its own words, test/engine/knobs.ts): its engine stands in for the models the
    // cards name, and downloads nothing.
    typeof __INPAGE_TEST_NOTICE__ === 'string' && h(Notice, { kind: 'info' }, h('span', { 'data-testid': 'test-build' }, __INPAGE_TEST_NOTICE__)),
    missing
      ? h(NoWebGpu, { reason: missing })
      : [
          cpu ? h(CpuNotice, { cpu }) : ui.adapter && h(AdapterCard, { adapter: ui.adapter }),
          !engine &&
            h(
              Notice,
              { kind: 'info' },
              'Another open inpage tab runs the engine for this origin: manage models there. This tab takes over, with these controls, if that tab closes.',
            ),
          h(
            'div',
            { class: 'model-grid' },
            runnableFirst(modelIds(), ui.models).map((id) =>
              h(ModelCard, { key: id, id, status: ui.models?.find((m) => m.id === id), rate: ui.rates[id], controllable: engine !== null }),
            ),
          ),
          h(ModelStorage, null),
          h(UpstreamConnections, null),
        ],
  );
}
