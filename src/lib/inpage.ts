// inpage as a library: another web app adds the /v1 service to its own origin.
//
//   import { installInpage } from '/inpage.js';
//   const inpage = await installInpage({ models: ['svc-model-5.2-short-fast'] });
//   const openai = new OpenAI({ baseURL: inpage.baseURL, apiKey: await inpage.key(), dangerouslyAllowBrowser: true });
//
// `npm run build:lib` writes dist-lib/: inpage.js (this module), inpage-sw.js (the service worker) and the engine
// worker and chunks beside them, all named inpage-*. Copy them to the root of the site (a Vite app: public/).
import { DEFAULT_CONFIG, mergeConfig, type InpageConfig } from '../config';
import { createKey, listKeys, revokeKey, verifyKey, type CreatedKey } from '../keys/key-store';
import { getWorkspace, registerWorkspace } from '../keys/workspace';
import { adoptModels, checkUpstreams } from '../catalog';
import { VARIANT_IDS, type ModelId, type VariantId } from '../variants';
import { hostEngine, type EngineHost } from '../page/engine-host';
import { claimEngine } from '../page/engine-lock';
import { modelTools, type ModelTools } from '../page/model-import';
import { requestPersistence, storageReport } from '../page/storage';
import { registerServiceWorker, watchServiceWorker, type ServiceWorkerSpec } from '../page/sw-registration';

export type { InpageConfig, ModelId, VariantId, EngineHost, CreatedKey };
export { VARIANT_IDS };

export interface InstallOptions {
  /** The variants this app uses: keys made by `key()` reach only these. Default: all five. */
  models?: readonly ModelId[];
  /**
   * Where inpage-sw.js is served. It must control the pages that call /v1, so it belongs at the root of the
   * site (or is served with `Service-Worker-Allowed: /`). Default: beside inpage.js.
   */
  serviceWorkerUrl?: string | URL;
  /** The service worker's scope. Default "/". */
  scope?: string;
  /** Deployment settings: model source (`modelBaseUrl`, `modelLibBaseUrl`), `queueDepth`, `gpuMemoryMB`… */
  config?: Partial<InpageConfig>;
  /**
   * Whether this page may host the engine (one tab of the origin does, chosen by a Web Lock; the others take over
   * when it closes). false: a plain client, served by another tab's engine. Default true.
   */
  hostEngine?: boolean;
  /** The name of the local workspace, if the origin has none yet. Default: the page's title or host. */
  workspaceName?: string;
  /**
   * Whether this page watches that its service worker stays (another tab may unregister it, or the person clear
   * the site's data): when it is gone it is registered again, and when that fails `onServiceLost` listeners hear
   * why. Default true.
   */
  watchService?: boolean;
}

export interface InpageService {
  /** `origin + "/v1"`: the base URL for any OpenAI client. */
  baseURL: string;
  /** The variants this app uses. */
  models: readonly ModelId[];
  /**
   * A key for this app: made on first use and kept in this origin's localStorage under `inpage:key:<name>`;
   * made again if it was revoked. Keys are stored hashed by inpage; this copy is the app's.
   */
  key(name?: string): Promise<string>;
  /** A new key (shown once): for apps that keep keys themselves. */
  createKey(options?: { name?: string; models?: readonly ModelId[] }): Promise<CreatedKey>;
  keys: { list: typeof listKeys; revoke: typeof revokeKey };
  /** The engine this tab hosts, or null while another tab does. */
  readonly engine: EngineHost | null;
  onEngine(listener: (host: EngineHost) => void): void;
  /** Downloads (if needed) and loads a variant ahead of the first request; needs this tab to host the engine. */
  preload(model?: ModelId): Promise<void>;
  storage: { report: typeof storageReport; persist: typeof requestPersistence };
  /** Importing models from a folder into the cache, and which are cached. */
  modelFiles: ModelTools;
  /**
   * Whether /v1 is served to this page: false (with why) once its service worker was lost and could not be
   * registered again; /v1 requests then reach the web server instead. The watch keeps trying every 2 s.
   */
  readonly service: ServiceState;
  /** Hears when the service worker was lost and registering it again failed (with the browser's reason). */
  onServiceLost(listener: (reason: string) => void): void;
  /** Hears when a lost service is back (registered again and controlling this page). */
  onServiceRestored(listener: () => void): void;
  /** Stops watching the service worker (see `watchService`). */
  stopWatching(): void;
}

/** Where this page's service (the library's service worker) stands, as `InpageService.service` reports it. */
export type ServiceState = { running: true } | { running: false; reason: string };

/** Registers inpage's service worker, hosts the engine (unless another tab does) and returns the service. */
export async function installInpage(options: InstallOptions = {}): Promise<InpageService> {
  const config = mergeConfig(DEFAULT_CONFIG, (options.config ?? {}) as Record<string, unknown>);
  const catalog = adoptModels(config.models, 'installInpage({config})');
  checkUpstreams(config.upstreams, catalog, 'installInpage({config})', location.origin);
  const offered = catalog.variants.map((v) => v.id);
  const models = [...(options.models ?? offered)];
  const unknown = models.filter((id) => !offered.includes(id));
  if (unknown.length > 0) throw new Error(`Unknown inpage model ${unknown.map((id) => `'${id}'`).join(', ')}; choose from ${offered.join(', ')}.`);
  // The service worker first: it serves the engine worker's script with the engine's Content-Security-Policy.
  // A classic script: inpage-sw.js is one self-contained file.
  const worker: ServiceWorkerSpec = {
    url: options.serviceWorkerUrl ?? new URL(/* @vite-ignore */ './inpage-sw.js', import.meta.url),
    scope: options.scope ?? '/',
    type: 'classic',
  };
  await registerServiceWorker(worker);
  // As the app's page does: a service worker lost under this page is registered again, or the loss is reported.
  let state: ServiceState = { running: true };
  const lostListeners = new Set<(reason: string) => void>();
  const restoredListeners = new Set<() => void>();
  const watch =
    options.watchService === false
      ? null
      : watchServiceWorker(
          {
            onLost(reason) {
              state = { running: false, reason };
              if (lostListeners.size === 0) console.error(`inpage: the service worker is gone and could not be registered again: ${reason}`);
              for (const listener of lostListeners) listener(reason);
            },
            onRestored() {
              state = { running: true };
              for (const listener of restoredListeners) listener();
            },
          },
          worker,
        );
  const leadership = options.hostEngine === false ? null : await claimEngine(() => hostEngine(config));

  const ensureWorkspace = async () => {
    if (!(await getWorkspace())) await registerWorkspace(options.workspaceName ?? (document.title || location.host));
  };
  const service: InpageService = {
    baseURL: `${location.origin}/v1`,
    models,
    async key(name = 'app') {
      const slot = `inpage:key:${name}`;
      const kept = localStorage.getItem(slot);
      if (kept) {
        const verdict = await verifyKey(kept);
        if (verdict.ok && models.every((m) => verdict.record.models.includes(m))) return kept;
      }
      const created = await service.createKey({ name });
      localStorage.setItem(slot, created.key);
      return created.key;
    },
    async createKey(opts = {}) {
      await ensureWorkspace();
      return createKey({ name: opts.name ?? 'app', models: opts.models ?? models });
    },
    keys: { list: listKeys, revoke: revokeKey },
    get engine() {
      return leadership?.host ?? null;
    },
    onEngine: (listener) => leadership?.onHost(listener),
    async preload(model = models[0]!) {
      const host = leadership?.host;
      if (!host) throw new Error('Another tab hosts the engine: it loads the model on the first request.');
      await host.control.load(model);
    },
    storage: { report: storageReport, persist: requestPersistence },
    modelFiles: modelTools(() => leadership?.host ?? null),
    get service() {
      return state;
    },
    onServiceLost: (listener) => void lostListeners.add(listener),
    onServiceRestored: (listener) => void restoredListeners.add(listener),
    stopWatching: () => watch?.stop(),
  };
  return service;
}
