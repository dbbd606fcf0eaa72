// The page entry: start inpage as installInpage does (src/lib/inpage.ts, `startServiceCore`: the service worker,
// its watch, the engine, the models' files and storage), and offer a small API on `window.inpage`.
import { loadConfig, refusedUrlSettings } from '#shared/config';
import { createKey, deleteKey, listKeys, revokeKey } from '#shared/keys/key-store';
import { getWorkspace, registerWorkspace } from '#shared/keys/workspace';
import { settleConfig, startServiceCore } from '../lib/inpage';
import { StartBound } from '../lib/start-bound';
import { APP_SERVICE_WORKER } from './sw-registration';
import type { InpageApi } from './inpage-api';
import { mountWorkspace } from './ui/mount';

/**
 * Settings that decide what code the engine loads, or how stable it is, come from the deployment only: a link
 * that tries one (`?modelLibBaseUrl=…`) is ignored, and the page says so.
 */
function noticeRefusedUrlSettings(): void {
  const refused = refusedUrlSettings(location.search);
  if (refused.length === 0) return;
  const text = `Ignored from this page's address: ${refused.join(', ')}. These settings decide which model code the engine runs and how it behaves, so only the site's /inpage.config.json sets them, never a link.`;
  console.warn(`inpage: ${text}`);
  const notice = document.createElement('div');
  notice.id = 'inpage-url-notice';
  notice.className = 'notice notice-warn';
  notice.setAttribute('role', 'alert');
  notice.textContent = text;
  document.body.prepend(notice);
}

/**
 * The service worker can go away under an open page (another tab unregisters it, the site's data is cleared):
 * it is registered again; when that fails, the page says that the service stopped and offers a restart.
 */
function showServiceLoss(core: { onServiceLost(listener: (reason: string) => void): void; onServiceRestored(listener: () => void): void }): void {
  const id = 'inpage-service-lost';
  core.onServiceLost((reason) => {
    document.getElementById(id)?.remove();
    const notice = document.createElement('div');
    notice.id = id;
    notice.className = 'notice notice-error';
    notice.setAttribute('role', 'alert');
    const text = document.createElement('p');
    text.textContent = `The local service stopped: its service worker is gone (unregistered, or this site's data was cleared) and could not be started again. ${reason}`;
    const restart = document.createElement('button');
    restart.type = 'button';
    restart.textContent = 'Restart the service';
    restart.addEventListener('click', () => location.reload());
    notice.append(text, restart);
    document.body.prepend(notice);
  });
  core.onServiceRestored(() => document.getElementById(id)?.remove());
}

/** Resolves after the page's first frame is painted (or soon, in a hidden tab that paints none). */
function afterFirstPaint(): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 100);
    requestAnimationFrame(() => setTimeout(() => (clearTimeout(timer), resolve()), 0));
  });
}

/**
 * Page start, off the engine's critical path: the service worker registers at once and the API is usable as
 * soon as it controls the page; the engine worker (web-llm: megabytes of script and wasm) starts then, after
 * the first paint, and connects when it is up. `engine` settles then (or fails when this tab cannot host it).
 */
async function boot(): Promise<{ api: InpageApi; engine: Promise<void> }> {
  noticeRefusedUrlSettings();
  // A bad `models` setting stops the start (inpageReady rejects), with the entry named on the page; so does a
  // literal API key (or a route to an upstream that is not there), naming the field.
  const config = settleConfig(loadConfig(location), 'inpage.config.json').then(({ config }) => config);
  const core = startServiceCore({
    worker: APP_SERVICE_WORKER,
    config,
    // `?engine=off` makes this page a plain client of another tab's engine.
    host: new URLSearchParams(location.search).get('engine') !== 'off',
    hostAfter: afterFirstPaint(),
    watch: true,
    bound: new StartBound(),
  });
  showServiceLoss(core);
  // The catalog is in force before anything lists models.
  await Promise.all([core.controlled, config]);
  const api: InpageApi = {
    baseURL: core.baseURL,
    workspace: { get: getWorkspace, register: registerWorkspace },
    keys: { create: createKey, list: listKeys, revoke: revokeKey, delete: deleteKey },
    engine: null,
    onEngine: core.onEngine,
    storage: core.storage,
    modelFiles: core.modelFiles,
  };
  window.inpage = api;
  const engine = core.leadership.then((l) => {
    l?.onHost((host) => {
      api.engine = host;
      window.dispatchEvent(new CustomEvent('inpage:engine'));
    });
  });
  return { api, engine };
}

const booting = boot();
window.inpageReady = booting.then(({ api, engine }) => engine.then(() => api));
window.inpageReady.catch((err: unknown) => {
  console.error('inpage failed to start:', err);
});

// The workspace page (index.html) shows its UI in #app; pages without one (test clients) only boot. The UI is
// usable once the service worker controls the page; it follows the engine as it connects.
const root = document.getElementById('app');
if (root)
  mountWorkspace(
    root,
    booting.then(({ api }) => api),
    booting.then(({ engine }) => engine),
  );
