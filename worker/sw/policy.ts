// Content-Security-Policy for the scripts the service worker serves: a dedicated worker takes its policy from
// its script's response, not from the page, so the engine worker script is served with its own (src/shared/csp.ts),
// built from the deployment's settings. The model hosts it may reach are those of /inpage.config.json.
import { matchPrecache } from 'workbox-precaching';
import { DEFAULT_CONFIG, mergeConfig, type InpageConfig } from '#shared/config';
import { engineWorkerCsp } from '#shared/csp';
import { isolated } from '#shared/isolation';
import { listConnections } from '#shared/upstream-connections';
import { isPdfReaderPath, PDF_READER_CACHE } from '#shared/pdf-reader-files';
import { dropOtherVersions } from './keep-one-version';

const CONFIG_CACHE = 'inpage-config';

/**
 * The deployment's settings (`settings`: the file at the app's base): fresh from the network, else the copy kept
 * from the last time, else the defaults.
 */
export async function deploymentConfig(settings: URL): Promise<InpageConfig> {
  const url = settings.href;
  let res: Response | undefined;
  try {
    res = await fetch(url, { cache: 'no-cache' });
    if (res.ok) await (await caches.open(CONFIG_CACHE)).put(url, res.clone());
  } catch {
    res = await (await caches.open(CONFIG_CACHE)).match(url);
  }
  if (!res?.ok) return { ...DEFAULT_CONFIG };
  try {
    const body: unknown = await res.json();
    return mergeConfig({ ...DEFAULT_CONFIG }, body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {});
  } catch {
    return { ...DEFAULT_CONFIG };
  }
}

/**
 * The script as the precache holds it. inpage's own precache knows it by URL; as a guest (inpage/sw bundled
 * into an app's worker) that precache is the app's, kept by the app's copy of Workbox, which this module's copy
 * does not see: the script is then looked up in every cache, ignoring Workbox's `__WB_REVISION__` parameter, so
 * the engine worker still starts offline.
 */
async function precached(request: Request): Promise<Response | undefined> {
  const path = new URL(request.url).pathname;
  return (await matchPrecache(path)) ?? (await caches.match(new URL(path, request.url).href, { ignoreSearch: true }));
}

/**
 * A worker script from the network. pdf.js's worker (the workspace's PDF reader, src/shared/pdf-reader-files.ts) is
 * not precached: it is kept from its first use, where `precached` finds it next time (offline too).
 */
async function fromNetwork(request: Request): Promise<Response> {
  const res = await fetch(request);
  if (res.ok && isPdfReaderPath(new URL(request.url).pathname)) {
    const url = new URL(request.url);
    url.search = '';
    await (await caches.open(PDF_READER_CACHE)).put(url.href, res.clone());
    await dropOtherVersions(PDF_READER_CACHE, url.href);
  }
  return res;
}

/**
 * A worker script of the origin (the engine worker, pdf.js's worker), from the precache or the network, with the engine's policy
 * and the isolation headers (an isolated page's worker must send COEP itself, src/shared/isolation.ts).
 */
export async function serveWorkerScript(request: Request, settings: URL): Promise<Response> {
  const origin = settings.origin;
  const [script, config] = await Promise.all([precached(request).then((cached) => cached ?? fromNetwork(request)), deploymentConfig(settings)]);
  const headers = new Headers(script.headers);
  // Hybrid: the servers of the connections people added in the workspace may be reached too.
  const connections = await listConnections()
    .then((list) => list.map((c) => new URL(c.url).origin))
    .catch(() => []);
  headers.set('content-security-policy', engineWorkerCsp(config, origin, connections));
  return isolated(new Response(script.body, { status: script.status, statusText: script.statusText, headers }));
}
