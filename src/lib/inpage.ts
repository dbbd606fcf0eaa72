// inpage as a library: another web app adds the /v1 service to its own origin.
//
//   import { installInpage } from 'inpage';
//   const inpage = await installInpage({ models: ['svc-model-5.2-short-fast'] });
//   const openai = new OpenAI({ baseURL: inpage.baseURL, apiKey: await inpage.key(), dangerouslyAllowBrowser: true });
//
// The npm package's `inpage/vite` plugin (src/lib/vite.ts) puts this module, inpage-sw.js (the service worker),
// the engine worker, its chunks and llama.cpp's wasm, all named inpage*, at the app's base path; without Vite,
// copy the package's dist-pkg/lib/ there (docs/embedding.md). The workspace page (src/page/main.ts) starts on the
// same core, `startServiceCore`, with its own service worker and settings.
import { DEFAULT_CONFIG, fetchDeploymentConfig, mergeConfig, type InpageConfig } from '#shared/config';
import { apiPath, configUrl } from '#shared/base-path';
import { recordTime } from '#shared/record-time';
import { StartBound, START_TIMEOUT_MS } from './start-bound';
import { createKey, listKeys, revokeKey, verifyKey, type CreatedKey } from '#shared/keys/key-store';
import { getWorkspace, registerWorkspace } from '#shared/keys/workspace';
import { adoptModels, checkUpstreams } from '#shared/catalog';
import { checkModelUrls, checkSourceUrls } from '#shared/secrets';
import { VARIANT_IDS, type ModelId, type VariantId } from '#shared/variants';
import type { EngineHost } from '../page/engine-host';
import { hostEngineFor } from '../page/provider-link';
import { claimEngine, type EngineLeadership } from '../page/engine-lock';
import { modelTools, type ModelTools } from '../page/model-import';
import { requestPersistence, storageReport } from '../page/storage';
import { answerStayAwakeAsks, registerServiceWorker, watchServiceWorker, type ServiceWorkerSpec } from '../page/sw-registration';
import { CLAIM_REQUEST, PING, engineFailed, PONG, isMessage, SETTINGS_CHANNEL, settingsQueueDepth, settingsRead } from '#shared/wire/page-messages';
import { ENGINE_WORKER_URL } from '../page/engine-host';

export type { InpageConfig, ModelId, VariantId, EngineHost, CreatedKey };
export { VARIANT_IDS, START_TIMEOUT_MS };

export interface InstallOptions {
  /** The variants this app uses: keys made by `key()` reach only these. Default: all five. */
  models?: readonly ModelId[];
  /**
   * Where inpage-sw.js is served. It must control the pages that call the API, so it belongs at the app's base
   * (or above it, served with `Service-Worker-Allowed`). Default: beside inpage.js (the app's base).
   */
  serviceWorkerUrl?: string | URL;
  /** The service worker's scope; the API answers at `<scope>v1`. Default: the folder it is served from (the app's base path). */
  scope?: string;
  /**
   * How long installInpage() may take (the settings file, the service worker's registration and control, the
   * engine worker's start) before it rejects with an error naming the step it was at. Default 60 000 ms
   * (`START_TIMEOUT_MS`).
   */
  startTimeoutMs?: number;
  /**
   * `'own'`: the app registers a service worker of its own that runs inpage (`importScripts('inpage-sw-guest.js')`
   * or `import 'inpage/sw'`); installInpage registers nothing, waits until that worker controls the page and
   * checks that it answers as inpage (an error names the worker otherwise). Default `'inpage'`: inpage
   * registers inpage-sw.js, and refuses a scope another worker already has.
   */
  serviceWorker?: 'inpage' | 'own';
  /**
   * Deployment settings: model source (`modelBaseUrl`, `modelLibBaseUrl`, `ggufBaseUrl`), `models`, `queueDepth`,
   * `gpuMemoryMB`… Over the origin's `/inpage.config.json` when it has one (as the workspace app reads it; the
   * service worker reads the same file).
   */
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
  /** The API's URL for any OpenAI client: `<origin><base>v1` (`https://example.com/app/v1` for an app at `/app/`). */
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

/**
 * Two service workers cannot share a scope: registering inpage's would replace the app's own (its offline shell,
 * its push handling…) without a word. So an app whose scope already has another worker is told, before anything
 * is registered.
 */
async function refuseAnotherWorker(worker: ServiceWorkerSpec): Promise<void> {
  const scope = new URL(worker.scope, location.href).href;
  const registration = await navigator.serviceWorker?.getRegistration(scope);
  if (!registration || registration.scope !== scope) return;
  const script = (registration.active ?? registration.waiting ?? registration.installing)?.scriptURL;
  if (!script || new URL(script).pathname === new URL(worker.url, location.href).pathname) return;
  throw new Error(
    `inpage: this app already has a service worker at scope ${registration.scope} (${script}); registering inpage's (${new URL(worker.url, location.href).pathname}) there would replace it. Serve the app under another scope or give inpage its own (the \`scope\` and \`serviceWorkerUrl\` options), or unregister the other worker. An app that keeps its own worker runs inpage inside it: importScripts('inpage-sw-guest.js') or import 'inpage/sw' there, and installInpage({serviceWorker: 'own'}) (docs/embedding.md).`,
  );
}

/** How long the app's own worker may take to take control of the page and to answer inpage's ping. */
const OWN_WORKER_MS = 10_000;

/** The app's own service worker controls this page (asked to claim it if need be) and runs inpage: its scope. */
async function ownWorkerRunsInpage(): Promise<string> {
  const sw = navigator.serviceWorker;
  if (!sw) throw new Error('inpage: this browser has no service workers (or the page is not in a secure context): /v1 cannot be served.');
  const within = <T>(promise: Promise<T>, why: () => string) =>
    Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(why())), OWN_WORKER_MS))]);
  const registration = await within(
    sw.ready,
    () =>
      `inpage: no service worker of this app became active within ${OWN_WORKER_MS / 1000} s: register the worker that imports inpage before calling installInpage({serviceWorker: 'own'}).`,
  );
  if (!sw.controller) {
    const controlled = new Promise<void>((resolve) => sw.addEventListener('controllerchange', () => resolve(), { once: true }));
    registration.active?.postMessage(CLAIM_REQUEST);
    await within(
      controlled,
      () =>
        `inpage: the app's service worker (${registration.active?.scriptURL}) did not take control of this page within ${OWN_WORKER_MS / 1000} s (a worker running inpage takes control when inpage asks: does it import inpage?).`,
    );
  }
  const controller = sw.controller!;
  const channel = new MessageChannel();
  const answered = new Promise<boolean>((resolve) => {
    channel.port1.onmessage = (event) => resolve(isMessage(event.data, PONG));
  });
  controller.postMessage(PING, [channel.port2]);
  const runsInpage = await Promise.race([answered, new Promise<false>((resolve) => setTimeout(() => resolve(false), 3000))]);
  channel.port1.close();
  if (!runsInpage) {
    throw new Error(
      `inpage: the service worker that controls this page (${controller.scriptURL}) does not run inpage: add importScripts('inpage-sw-guest.js') at the top of it, or import 'inpage/sw' first in a module worker (docs/embedding.md).`,
    );
  }
  return registration.scope;
}

/** The settings in force, their model catalog adopted and their upstreams checked (`source` names them in errors). */
export async function settleConfig(load: Promise<InpageConfig>, source: string): Promise<{ config: InpageConfig; offered: ModelId[] }> {
  const config = await load;
  const catalog = adoptModels(config.models, source);
  checkUpstreams(config.upstreams, catalog, source, location.origin);
  checkSourceUrls(config, location.origin, source);
  checkModelUrls(config.models, location.origin, source);
  return { config, offered: catalog.variants.map((v) => v.id) };
}

export interface ServiceCoreOptions {
  /** inpage's service worker to register, or `'own'`: the app's worker runs inpage (installInpage's `serviceWorker`). */
  worker: ServiceWorkerSpec | 'own';
  /** The settings the engine starts with. */
  config: Promise<InpageConfig>;
  /** Whether this page may host the engine. */
  host: boolean;
  /** What else hosting waits for, beside the service worker's control (the workspace page: its first paint). */
  hostAfter?: Promise<unknown>;
  /** Watch the service worker (see `watchService`), telling these listeners besides `onServiceLost`'s. */
  watch: boolean;
  /** The start's bound (installInpage's `startTimeoutMs`): registration, control and the engine's start within it. */
  bound: StartBound;
}

/**
 * The start-up both pages share, installInpage's and the workspace's (src/page/main.ts): registers the service
 * worker (or checks the app's own), watches it, hosts the engine once the worker controls the page (unless
 * another tab does), and offers what both hand out. `controlled` settles when the service is there;
 * `leadership` when the engine is claimed.
 */
export function startServiceCore(options: ServiceCoreOptions) {
  const own = options.worker === 'own';
  const spec = options.worker === 'own' ? null : options.worker;
  const { bound } = options;
  answerStayAwakeAsks();
  // The worker's scope is the app's base: the API answers at `<scope>v1`.
  const controlled: Promise<string> = spec
    ? bound
        .within(
          refuseAnotherWorker(spec).then(() => registerServiceWorker(spec)),
          `registering the service worker ${new URL(spec.url, location.href).href} (scope ${new URL(spec.scope, location.href).href}) and its taking control of this page`,
          "check that the file is served there as JavaScript; the browser's DevTools (Application, Service workers) show its state.",
        )
        .then(() => new URL(spec.scope, location.href).href)
    : bound.within(ownWorkerRunsInpage(), "the app's own service worker taking control of this page", 'register it before calling installInpage.');
  let baseURL = spec ? `${location.origin}${apiPath(new URL(spec.scope, location.href))}` : `${location.origin}/v1`;
  void controlled.then(
    (scope) => (baseURL = `${location.origin}${apiPath(scope)}`),
    () => undefined,
  );
  // As the app's page does: a service worker lost under this page is registered again, or the loss is reported.
  let state: ServiceState = { running: true };
  const lostListeners = new Set<(reason: string) => void>();
  const restoredListeners = new Set<() => void>();
  const watch = controlled.then(() =>
    !options.watch || own || !spec
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
          spec,
        ),
  );
  watch.catch(() => undefined);
  // One engine per origin: the engine starts once the service worker controls the page (it serves the engine
  // worker's script with the engine's own Content-Security-Policy: a dedicated worker does not take the page's).
  const leadership: Promise<EngineLeadership | null> = options.host
    ? Promise.all([controlled, options.hostAfter]).then(async () => {
        const config = await options.config;
        // A deployment with `modelProvider` uses that provider's engine when it can (docs/shared-models.md).
        // Within the start's bound: the engine worker's own retries stop at its end, with why. A tab that takes
        // the engine over later (another tab hosted it, then closed) gets a bound of the same length from then.
        return bound.within(
          claimEngine(() => hostEngineFor(config, bound.left() > 0 ? bound.until : performance.now() + bound.ms)),
          `starting the engine worker ${ENGINE_WORKER_URL}`,
          'its console (DevTools, the worker) may say why.',
        );
      })
    : Promise.resolve(null);
  // An engine that could not start: /v1 answers 503 naming the cause meanwhile (src/shared/wire/engine-link.ts).
  leadership.catch((err: unknown) => navigator.serviceWorker?.controller?.postMessage(engineFailed(err instanceof Error ? err.message : String(err))));
  let claimed: EngineLeadership | null = null;
  void leadership.then(
    (l) => (claimed = l),
    () => undefined,
  );
  followQueueDepth(options.config, leadership);
  // The times this page shows are its service worker's clock's (src/shared/record-time.ts): the difference, measured now.
  void controlled.then(recordTime, () => undefined);
  return {
    controlled,
    leadership,
    /** `<origin><base>v1`: the scope's API (known for the app's own worker once it controls the page). */
    get baseURL() {
      return baseURL;
    },
    get host(): EngineHost | null {
      return claimed?.host ?? null;
    },
    onEngine: (listener: (host: EngineHost) => void) =>
      void leadership.then(
        (l) => l?.onHost(listener),
        () => undefined,
      ),
    storage: { report: storageReport, persist: requestPersistence },
    modelFiles: modelTools(() => claimed?.host ?? null),
    get service() {
      return state;
    },
    onServiceLost: (listener: (reason: string) => void) => void lostListeners.add(listener),
    onServiceRestored: (listener: () => void) => void restoredListeners.add(listener),
    stopWatching: () =>
      void watch.then(
        (w) => w?.stop(),
        () => undefined,
      ),
  };
}

/**
 * The queue is the hosting tab's engine's, started with the settings that tab read; a deployment may change
 * `queueDepth` since. So every page, once its settings are read and a worker controls it, says its depth on
 * SETTINGS_CHANNEL, and the page hosting the engine under the same scope applies the latest it hears (and its own).
 */
function followQueueDepth(config: Promise<InpageConfig>, leadership: Promise<EngineLeadership | null>): void {
  if (typeof BroadcastChannel === 'undefined' || !navigator.serviceWorker) return;
  void Promise.all([config, navigator.serviceWorker.ready]).then(
    ([{ queueDepth }, { scope }]) => {
      const channel = new BroadcastChannel(SETTINGS_CHANNEL);
      channel.postMessage(settingsRead(scope, queueDepth));
      void leadership.then(
        (l) =>
          l?.onHost((host) => {
            channel.onmessage = (event: MessageEvent) => {
              const depth = settingsQueueDepth(event.data, scope);
              if (depth !== undefined) host.control.useQueueDepth(depth).catch(() => undefined);
            };
          }),
        () => undefined,
      );
    },
    () => undefined,
  );
}

/** Registers inpage's service worker, hosts the engine (unless another tab does) and returns the service. */
export async function installInpage(options: InstallOptions = {}): Promise<InpageService> {
  const bound = new StartBound(options.startTimeoutMs ?? START_TIMEOUT_MS);
  // The app's base: the folder inpage.js is served from (src/shared/base-path.ts).
  const base = new URL(/* @vite-ignore */ './', import.meta.url);
  const settingsFile = configUrl(base);
  const loaded = fetchDeploymentConfig(settingsFile).then((deployed) =>
    mergeConfig(mergeConfig({ ...DEFAULT_CONFIG }, deployed), (options.config ?? {}) as Record<string, unknown>),
  );
  const { config, offered } = await settleConfig(
    bound.within(loaded, `reading the settings file ${settingsFile.href}`, 'is the server answering?'),
    'installInpage({config})',
  );
  const models = [...(options.models ?? offered)];
  const unknown = models.filter((id) => !offered.includes(id));
  if (unknown.length > 0) throw new Error(`Unknown inpage model ${unknown.map((id) => `'${id}'`).join(', ')}; choose from ${offered.join(', ')}.`);
  // The service worker first: it serves the engine worker's script with the engine's Content-Security-Policy.
  // A classic script: inpage-sw.js is one self-contained file.
  const url = new URL(options.serviceWorkerUrl ?? new URL(/* @vite-ignore */ './inpage-sw.js', import.meta.url), location.href);
  const worker: ServiceWorkerSpec = {
    url,
    // A service worker may control only its own folder and below (without Service-Worker-Allowed); it still
    // answers /v1 for the pages it controls, wherever the app's base path is.
    scope: options.scope ?? new URL('./', url).pathname,
    type: 'classic',
  };
  const core = startServiceCore({
    worker: options.serviceWorker === 'own' ? 'own' : worker,
    config: Promise.resolve(config),
    host: options.hostEngine !== false,
    watch: options.watchService !== false,
    bound,
  });
  await core.controlled;
  await core.leadership;

  const ensureWorkspace = async () => {
    if (!(await getWorkspace())) await registerWorkspace(options.workspaceName ?? (document.title || location.host));
  };
  const service: InpageService = {
    baseURL: core.baseURL,
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
      return core.host;
    },
    onEngine: core.onEngine,
    async preload(model = models[0]!) {
      const host = core.host;
      if (!host) throw new Error('Another tab hosts the engine: it loads the model on the first request.');
      await host.control.load(model);
    },
    storage: core.storage,
    modelFiles: core.modelFiles,
    get service() {
      return core.service;
    },
    onServiceLost: core.onServiceLost,
    onServiceRestored: core.onServiceRestored,
    stopWatching: core.stopWatching,
  };
  return service;
}
