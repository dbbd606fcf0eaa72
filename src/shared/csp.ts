// The hosts the engine may reach, and the Content-Security-Policies that hold it (and the service worker) to
// them. One list, derived from the deployment's settings: the origin itself, and the hosts of the model source
// (`modelBaseUrl`, `modelLibBaseUrl`, `ggufBaseUrl`), or the engines' default hosts where those are not set. Image URLs for
// svc-vision follow the same list.
import type { InpageConfig } from './config';
import { mcpServerOrigins } from './mcp-servers.ts';

/** Where web-llm fetches weights (Hugging Face and its CDNs) and model libraries by default. */
export const WEBLLM_MODEL_HOSTS = ['https://huggingface.co', 'https://*.huggingface.co', 'https://*.hf.co'] as const;
export const WEBLLM_LIB_HOSTS = ['https://raw.githubusercontent.com'] as const;

type ModelSource = Pick<InpageConfig, 'modelBaseUrl' | 'modelLibBaseUrl'> & { ggufBaseUrl?: string; upstreams?: unknown };

function originOf(url: string, origin: string): string | null {
  try {
    const parsed = new URL(url, origin);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : null;
  } catch {
    return null;
  }
}

/** The CSP source expressions of the model hosts (the origin itself left out: it is 'self'). */
export function modelHostSources(config: ModelSource, origin: string): string[] {
  const out = new Set<string>();
  const add = (base: string, defaults: readonly string[]) => {
    if (!base) return defaults.forEach((d) => out.add(d));
    const host = originOf(base, origin);
    if (host && host !== origin) out.add(host);
  };
  add(config.modelBaseUrl, WEBLLM_MODEL_HOSTS);
  add(config.modelLibBaseUrl, WEBLLM_LIB_HOSTS);
  // llama.cpp's GGUF files: Hugging Face unless the deployment names another host.
  add(config.ggufBaseUrl ?? '', WEBLLM_MODEL_HOSTS);
  return [...out];
}

/**
 * The origins of the configured upstreams (hybrid, docs/hybrid.md), read leniently: the setting is checked as a whole
 * at start-up (src/shared/upstreams.ts), where a bad one stops the start.
 */
export function upstreamOrigins(upstreams: unknown, origin: string): string[] {
  if (!upstreams || typeof upstreams !== 'object' || Array.isArray(upstreams)) return [];
  const out = new Set<string>();
  for (const entry of Object.values(upstreams)) {
    const url = (entry as { url?: unknown } | null)?.url;
    const host = typeof url === 'string' ? originOf(url, origin) : null;
    if (host && host !== origin) out.add(host);
  }
  return [...out];
}

/** Whether a URL's origin matches a source expression (`https://host[:port]` or `https://*.domain`). */
function matches(url: URL, source: string): boolean {
  const wild = /^(https?:)\/\/\*\.(.+)$/.exec(source);
  if (wild) return url.protocol === wild[1] && url.hostname.endsWith(`.${wild[2]}`) && url.port === '';
  return url.origin === source;
}

/**
 * Whether an image URL may be read: `data:` URLs, `blob:` URLs of the origin, and http(s) URLs on the origin
 * or a model host. Anything else is refused before it is fetched.
 */
export function imageUrlAllowed(url: string, config: ModelSource, origin: string): boolean {
  if (/^data:/i.test(url)) return true;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === 'blob:') return parsed.origin === origin;
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  return parsed.origin === origin || modelHostSources(config, origin).some((source) => matches(parsed, source));
}

/**
 * The engine worker's policy: its own scripts and chunks, WebAssembly (model libraries, tokenizers), worker
 * scripts of the origin or blobs (an engine may run its own workers), and fetches to the origin and the model
 * hosts only.
 */
export function engineWorkerCsp(config: ModelSource, origin: string, connections: readonly string[] = []): string {
  // Hybrid: the configured upstreams' origins, and those of the connections people added in the workspace.
  const hosts = [...new Set([...modelHostSources(config, origin), ...upstreamOrigins(config.upstreams, origin), ...connections])].join(' ');
  return [
    "default-src 'none'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "worker-src 'self' blob:",
    `connect-src 'self' data: blob:${hosts ? ` ${hosts}` : ''}`,
  ].join('; ');
}

/**
 * The service worker's policy: it runs its own bundle and fetches from the origin (the app shell, the config) and
 * from the MCP servers the deployment allows (`mcpServers`, src/shared/mcp-servers.ts), which /v1/responses calls.
 */
export function serviceWorkerCsp(mcpServers: unknown = []): string {
  const hosts = mcpServerOrigins(mcpServers);
  return `default-src 'none'; script-src 'self'; connect-src 'self'${hosts.length > 0 ? ` ${hosts.join(' ')}` : ''}`;
}
