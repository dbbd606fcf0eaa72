// The page entry: register the service worker, host the engine, and offer a small API on `window.inpage`.
import { loadConfig } from '../config';
import { createKey, listKeys, revokeKey } from '../keys/key-store';
import { getWorkspace, registerWorkspace } from '../keys/workspace';
import { hostEngine, type EngineHost } from './engine-host';
import { registerServiceWorker } from './sw-registration';

export interface InpageApi {
  baseURL: string;
  workspace: { get: typeof getWorkspace; register: typeof registerWorkspace };
  keys: { create: typeof createKey; list: typeof listKeys; revoke: typeof revokeKey };
  engine: EngineHost | null;
}

declare global {
  interface Window {
    inpage?: InpageApi;
    /** Settles when the service worker controls the page and the engine (if hosted) is connected. */
    inpageReady?: Promise<InpageApi>;
  }
}

async function boot(): Promise<InpageApi> {
  const config = await loadConfig(location);
  // `?engine=off` makes this page a plain client of another tab's engine.
  const hosting = new URLSearchParams(location.search).get('engine') !== 'off';
  const engine = hosting ? await hostEngine(config) : null;
  await registerServiceWorker();
  const api: InpageApi = {
    baseURL: `${location.origin}/v1`,
    workspace: { get: getWorkspace, register: registerWorkspace },
    keys: { create: createKey, list: listKeys, revoke: revokeKey },
    engine,
  };
  window.inpage = api;
  return api;
}

window.inpageReady = boot();
window.inpageReady.catch((err: unknown) => {
  console.error('inpage failed to start:', err);
});
