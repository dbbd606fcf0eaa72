// The workspace page's shared state: one plain object, replaced on change; components read it with useUi().
import { useEffect, useState } from 'preact/hooks';
import type { AdapterReport } from '#shared/wire/engine-control';
import type { ModelStatus } from '#shared/wire/engine-port';
import type { KeyRecord, WorkspaceRecord } from '#shared/keys/db';
import type { ModelId } from '#shared/variants';
import type { EngineHost } from '../engine-host';
import type { InpageApi } from '../inpage-api';
import type { RateEstimate } from './download-rate';
import type { WebGpuProbe } from './webgpu';

/** A full key this tab may use: the playground's, kept for the tab's session only (never in IndexedDB). */
export interface SessionKey {
  key: string;
  id: string;
  display: string;
  name: string;
}

export interface UiState {
  /** Boot of the service worker and engine (main.ts). */
  phase: 'starting' | 'ready' | 'failed';
  failure: string | null;
  api: InpageApi | null;
  /** The engine this tab hosts; null while another tab of the origin hosts it (this one may take over). */
  engine: EngineHost | null;
  /** undefined until read; null when nobody registered yet. */
  workspace: WorkspaceRecord | null | undefined;
  keys: KeyRecord[];
  /** The engine's model states; null while unknown or when another tab hosts the engine. */
  models: ModelStatus[] | null;
  /** Download speed and time left per variant, while downloading. */
  rates: Partial<Record<ModelId, RateEstimate>>;
  adapter: AdapterReport | null;
  /** This tab starts the engine: until it reports, the page's own WebGPU check does not decide what can run. */
  engineExpected: boolean;
  /** The page's own WebGPU check; null until done. */
  webgpu: WebGpuProbe | null;
  sessionKey: SessionKey | null;
  /** A key the person asked to see filled into the Connect snippets (memory only). */
  snippetKey: string | null;
}

let state: UiState = {
  phase: 'starting',
  failure: null,
  api: null,
  engine: null,
  workspace: undefined,
  keys: [],
  models: null,
  rates: {},
  adapter: null,
  engineExpected: false,
  webgpu: null,
  sessionKey: null,
  snippetKey: null,
};

const listeners = new Set<() => void>();

export function getState(): UiState {
  return state;
}

export function setState(patch: Partial<UiState>): void {
  state = { ...state, ...patch };
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The current state; the component re-renders whenever it changes. */
export function useUi(): UiState {
  const [, setVersion] = useState(0);
  const rendered = state;
  useEffect(() => {
    const unsubscribe = subscribe(() => setVersion((v) => v + 1));
    // A change between this render and the subscription must not be missed.
    if (state !== rendered) setVersion((v) => v + 1);
    return unsubscribe;
  }, []);
  return state;
}
