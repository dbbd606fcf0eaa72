// The headers a server sends for a model provider's page and its engine worker (docs/shared-models.md). No
// service worker controls the provider's frame (its own is partitioned away under each consumer), so these come from
// the server: `vite preview` / `npm start` (vite.config.ts), the test server of test:shared, and a deployment's own
// server (the docs say which). Declared once here.
import { engineWorkerCsp } from '#shared/csp';

/** The provider's page. */
export const PROVIDER_PAGE = '/provider.html';

/**
 * Framed by isolated consumers (COEP `credentialless`), the page and its worker must be isolated themselves, with
 * `require-corp` (a credentialless frame loses the Storage Access API), and embeddable from another site.
 */
export const PROVIDER_ISOLATION: Readonly<Record<string, string>> = {
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'cross-origin',
};

/** What a server knows of a request: its path, `Sec-Fetch-Dest`, and the path of its `Referer` (same-origin). */
export interface ProviderRequest {
  path: string;
  dest?: string;
  referrer?: string;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/**
 * The headers to add for `request` (none: not the provider's): the page gets the isolation; its engine worker's script
 * (a `worker` request made by the page) gets the isolation and the engine worker's Content-Security-Policy, built from
 * the deployment's `/inpage.config.json` (`deployed`, as parsed) without upstreams: the provider's engine runs local
 * models only, so it may reach the origin and the model hosts, nothing else.
 */
export function providerHeaders(request: ProviderRequest, deployed: Record<string, unknown>, origin: string): Record<string, string> {
  if (request.path === PROVIDER_PAGE) return { ...PROVIDER_ISOLATION };
  let from: string;
  try {
    const referrer = request.referrer ? new URL(request.referrer) : null;
    from = referrer?.origin === origin ? referrer.pathname : '';
  } catch {
    from = '';
  }
  if (request.dest !== 'worker' || from !== PROVIDER_PAGE) return {};
  const models = { modelBaseUrl: text(deployed.modelBaseUrl), modelLibBaseUrl: text(deployed.modelLibBaseUrl), ggufBaseUrl: text(deployed.ggufBaseUrl) };
  return { ...PROVIDER_ISOLATION, 'Content-Security-Policy': engineWorkerCsp(models, origin) };
}
