// Fills the store once the page has booted, and keeps it current: engine status, keys from every tab.
import * as Comlink from 'comlink';
import type { AdapterReport } from '#shared/wire/engine-control';
import type { ModelStatus } from '#shared/wire/engine-port';
import { verifyKey, KEYS_CHANNEL } from '#shared/keys/key-store';
import type { ModelId } from '#shared/variants';
import type { EngineHost } from '../engine-host';
import type { InpageApi } from '../inpage-api';
import { DownloadRate, type RateEstimate } from './download-rate';
import { checkSessionKey } from './session-key';
import { getState, setState } from './store';
import { probeWebGpu } from './webgpu';

export async function refreshKeys(): Promise<void> {
  const api = getState().api;
  if (!api) return;
  setState({ keys: await api.keys.list() });
}

export async function refreshWorkspace(): Promise<void> {
  const api = getState().api;
  if (!api) return;
  setState({ workspace: await api.workspace.get() });
}

const rates = new Map<ModelId, DownloadRate>();

function onModels(models: ModelStatus[]): void {
  const now = performance.now();
  const estimates: Partial<Record<ModelId, RateEstimate>> = {};
  for (const model of models) {
    const progress = model.progress;
    if (model.state !== 'downloading' || !progress) {
      rates.delete(model.id);
      continue;
    }
    let rate = rates.get(model.id);
    if (!rate) rates.set(model.id, (rate = new DownloadRate()));
    rate.add(progress.bytesDone, now);
    estimates[model.id] = rate.estimate(progress.bytesTotal);
  }
  setState({ models, rates: estimates });
}

/** After a key change in any tab: the list, the session key, and a filled-in snippet key that was revoked. */
async function onKeysChanged(): Promise<void> {
  await refreshKeys();
  await checkSessionKey();
  const snippetKey = getState().snippetKey;
  if (snippetKey && !(await verifyKey(snippetKey)).ok) setState({ snippetKey: null });
}

/**
 * What the engine found on this device (WebGPU adapter, or llama.cpp on the CPU), kept for the origin's other
 * tabs: a tab that does not host the engine (another tab does) says what runs the models from it, not nothing.
 */
const ADAPTER_KEY = 'inpage:engine-adapter';

function shareAdapter(adapter: AdapterReport): void {
  try {
    localStorage.setItem(ADAPTER_KEY, JSON.stringify(adapter));
  } catch {
    // storage unavailable: other tabs go without
  }
}

/** The report the hosting tab shared, while this tab hosts no engine of its own. */
function adoptSharedAdapter(): void {
  if (getState().engine) return;
  try {
    const shared = localStorage.getItem(ADAPTER_KEY);
    if (shared) setState({ adapter: JSON.parse(shared) as AdapterReport });
  } catch {
    // unreadable: keep what the page has
  }
}

async function readEngine(host: EngineHost): Promise<void> {
  const [models, adapter] = await Promise.all([host.control.status(), host.control.adapter()]);
  onModels(models);
  setState({ adapter });
  shareAdapter(adapter);
}

/** Follows the engine this tab hosts: from boot, or from when it takes over from a closed tab. */
async function watchEngine(host: EngineHost): Promise<void> {
  setState({ engine: host });
  // The host keeps the subscription across worker restarts; after one, the state is read afresh.
  host.onRestart(() => void readEngine(host).catch(reportEngine));
  await host.control.subscribe(Comlink.proxy(onModels));
  await readEngine(host);
}

function reportEngine(err: unknown): void {
  console.error('inpage: the engine did not report its status:', err);
}

export async function start(ready: Promise<InpageApi>, engine?: Promise<void>): Promise<void> {
  if (engine) setState({ engineExpected: true });
  void probeWebGpu().then((webgpu) => setState({ webgpu }));
  // A `models` entry the engine cannot serve stops the start as a bad shape does: the page names the entry.
  let configFailure: string | null = null;
  engine?.catch((err: unknown) => {
    if (!(err instanceof Error && err.name === 'ModelConfigError')) return;
    configFailure = err.message;
    setState({ phase: 'failed', failure: configFailure });
  });
  let api: InpageApi;
  try {
    api = await ready;
  } catch (err) {
    setState({ phase: 'failed', failure: err instanceof Error ? err.message : String(err) });
    return;
  }
  setState({ api });
  await Promise.all([refreshWorkspace(), refreshKeys()]);
  // After the workspace: the Playground key kept for it is found by its organisation id.
  await checkSessionKey();
  if (configFailure !== null) return;
  setState({ phase: 'ready' });

  if (typeof BroadcastChannel !== 'undefined') {
    new BroadcastChannel(KEYS_CHANNEL).addEventListener('message', () => void onKeysChanged());
  }
  // Another tab made the workspace's Playground key (localStorage): a tab without a key of its own takes it up.
  window.addEventListener('storage', (event) => {
    if (event.key?.startsWith('inpage:playground-key:')) void checkSessionKey();
    if (event.key === ADAPTER_KEY && !api.engine) adoptSharedAdapter();
  });
  // Once it is settled whether this tab hosts the engine: one that does not takes the hosting tab's report.
  void engine?.then(
    () => (api.engine ? undefined : adoptSharedAdapter()),
    () => undefined,
  );
  // Last-used times and token counts change with every request, and no signal says so.
  window.addEventListener('focus', () => {
    void refreshKeys();
    if (!getState().workspace) void refreshWorkspace();
  });
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') void refreshKeys();
  });
  api.onEngine((host) => void watchEngine(host).catch(reportEngine));
}
