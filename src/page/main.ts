// The page entry: register the service worker, host the engine, and offer a small API on `window.inpage`.
import { adoptModels, checkUpstreams } from '../catalog';
import { loadConfig, refusedUrlSettings } from '../config';
import { createKey, deleteKey, listKeys, revokeKey } from '../keys/key-store';
import { getWorkspace, registerWorkspace } from '../keys/workspace';
import type { EngineHost } from './engine-host';
import { hostEngineFor } from './provider-link';
import { claimEngine, type EngineLeadership } from './engine-lock';
import { modelTools, type ModelTools } from './model-import';
import { requestPersistence, storageReport } from './storage';
import { registerServiceWorker, watchServiceWorker } from './sw-registration';
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
function keepServiceWorker(): void {
  const id = 'inpage-service-lost';
  watchServiceWorker({
    onLost(reason) {
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
    },
    onRestored() {
      document.getElementById(id)?.remove();
    },
  });
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
  const controlled = registerServiceWorker();
  // A bad `models` setting stops the start (inpageReady rejects), with the entry named on the page.
  const config = loadConfig(location).then((settings) => {
    const catalog = adoptModels(settings.models, 'inpage.config.json');
    // A literal API key (or a route to an upstream that is not there) stops the start, naming the field.
    checkUpstreams(settings.upstreams, catalog, 'inpage.config.json', location.origin);
    return settings;
  });
  // `?engine=off` makes this page a plain client of another tab's engine.
  const hosting = new URLSearchParams(location.search).get('engine') !== 'off';
  // One engine per origin: this tab hosts it unless another one does, and takes over when that one closes.
  // The engine starts once the service worker controls the page (it serves the engine worker's script with the
  // engine's own Content-Security-Policy: a dedicated worker does not take the page's) and after the first paint.
  const claimed: Promise<EngineLeadership | null> = hosting
    ? Promise.all([controlled, afterFirstPaint()]).then(async () => {
        const settings = await config;
        return claimEngine(() => hostEngineFor(settings));
      })
    : Promise.resolve(null);
  claimed.catch(() => undefined);
  // The catalog is in force before anything lists models.
  await Promise.all([controlled, config]);
  let leadership: EngineLeadership | null = null;
  const api: InpageApi = {
    baseURL: `${location.origin}/v1`,
    workspace: { get: getWorkspace, register: registerWorkspace },
    keys: { create: createKey, list: listKeys, revoke: revokeKey, delete: deleteKey },
    engine: null,
    onEngine: (listener) => void claimed.then((l) => l?.onHost(listener), () => undefined),
    storage: { report: storageReport, persist: requestPersistence },
    models: modelTools(() => leadership?.host ?? null),
  };
  window.inpage = api;
  keepServiceWorker();
  const engine = claimed.then((l) => {
    leadership = l;
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
if (root) mountWorkspace(root, booting.then(({ api }) => api), booting.then(({ engine }) => engine));
