/// <reference types="vite/client" />
// Deployment settings: defaults, then `inpage.config.json` at the app's base if the site ships one (or `installInpage({config})`).
//
// Every setting here decides what code and data the engine loads or how stable it is, so a page's URL never sets
// one: a link would otherwise choose the model library (.wasm) the engine runs, or break the engine for every app
// of the origin. The URL may carry only `engine=off` (read by the page) and, in test builds alone, the
// deterministic engine's test knobs (`TEST_KNOBS`: declared in test/engine/knobs.ts, injected by the test
// build), which do not exist in `npm run build`.

import { configUrl } from './base-path';
import { MCP_BOUNDS } from './mcp-servers';

declare global {
  /** A test build's knobs and their defaults (test/engine/knobs.ts); undeclared in `npm run build`. */
  const __INPAGE_TEST_KNOBS__: Readonly<Record<string, number>> | undefined;
  /** What a test build's Models area says about its engine (test/engine/knobs.ts); undeclared in `npm run build`. */
  const __INPAGE_TEST_NOTICE__: string | undefined;
}

export interface InpageConfig {
  /** Requests that may wait behind the running one before 429 `queue_full`. */
  queueDepth: number;
  /** Where model weights are fetched from: `{modelBaseUrl}/{web-llm model id}/resolve/main/…`. Empty: web-llm's prebuilt hosts. */
  modelBaseUrl: string;
  /** Where compiled model libraries (.wasm) are fetched from: `{modelLibBaseUrl}/{file}`. Empty: web-llm's prebuilt hosts. */
  modelLibBaseUrl: string;
  /** GPU memory (MB) one loaded model may use, which sets each model's context length. 0: half of `navigator.deviceMemory`. */
  gpuMemoryMB: number;
  /** How often the page checks that its engine worker is alive; one silent for 3 periods is restarted. */
  engineHeartbeatMs: number;
  /**
   * Which models serve the public ids, which ids are hidden, and ids of the deployment's own (src/shared/model-config.ts
   * declares the shape; docs/configuration.md explains it). Checked at start-up; `{}`: the five as they ship.
   */
  models: Record<string, unknown>;
  /** Which engine serves the models: `auto` (web-llm where its WebGPU needs are met, else llama.cpp), `webllm` or `llamacpp`. */
  engineChoice: string;
  /** Where GGUF files are fetched from for llama.cpp: `{ggufBaseUrl}/{repo}/resolve/main/{file}`. Empty: Hugging Face. */
  ggufBaseUrl: string;
  /** CPU threads llama.cpp may use; 0: all logical cores (one when the page is not cross-origin isolated). */
  llamaThreads: number;
  /**
   * Hybrid (docs/hybrid.md): OpenAI-compatible servers by name, which `models` entries send ids to. src/shared/upstreams.ts
   * declares the shape; a literal API key in it is refused at start-up (this file is served to every visitor).
   */
  upstreams: Record<string, unknown>;
  /**
   * Consumer mode (docs/shared-models.md): the model provider whose models this site runs, its origin or the URL of
   * its provider.html. Empty: this site's own engine only.
   */
  modelProvider: string;
  /** How long the page waits for the provider's frame (a person's click included) before its own engine serves. */
  modelProviderWaitMs: number;
  /**
   * Remote MCP tools in /v1/responses (docs/responses.md#remote-mcp-tools): the servers a request's `server_url` may
   * name, origins or URL prefixes (src/shared/mcp-servers.ts). Empty: none.
   */
  mcpServers: string[];
  /** MCP tool calls one response may run (src/shared/mcp-servers.ts, MCP_BOUNDS). */
  mcpMaxCalls: number;
  /** Time (ms) one MCP request may take. */
  mcpCallTimeoutMs: number;
  /** Bytes of one MCP call's result the model gets. */
  mcpMaxResultBytes: number;
  /** Tools taken from one MCP server. */
  mcpMaxTools: number;
}

/** The test build's knobs with their defaults, settings beside the deployment's; none in `npm run build`. */
const TEST_KNOB_DEFAULTS: Readonly<Record<string, number>> = typeof __INPAGE_TEST_KNOBS__ === 'undefined' ? {} : __INPAGE_TEST_KNOBS__;

/**
 * URL parameters a page may take from its own address: test builds' knobs for the deterministic engine. Empty in
 * `npm run build`, so nothing in a production page's URL reaches its settings.
 */
export const TEST_KNOBS: readonly string[] = Object.keys(TEST_KNOB_DEFAULTS);

export const DEFAULT_CONFIG: Readonly<InpageConfig> = {
  queueDepth: 16,
  modelBaseUrl: '',
  modelLibBaseUrl: '',
  gpuMemoryMB: 0,
  engineHeartbeatMs: 5000,
  models: {},
  engineChoice: 'auto',
  ggufBaseUrl: '',
  llamaThreads: 0,
  upstreams: {},
  modelProvider: '',
  modelProviderWaitMs: 15_000,
  mcpServers: [],
  mcpMaxCalls: MCP_BOUNDS.mcpMaxCalls.default,
  mcpCallTimeoutMs: MCP_BOUNDS.mcpCallTimeoutMs.default,
  mcpMaxResultBytes: MCP_BOUNDS.mcpMaxResultBytes.default,
  mcpMaxTools: MCP_BOUNDS.mcpMaxTools.default,
  ...TEST_KNOB_DEFAULTS,
};

function coerce(key: keyof InpageConfig, raw: unknown): InpageConfig[keyof InpageConfig] | undefined {
  const fallback = DEFAULT_CONFIG[key];
  if (typeof fallback === 'object') {
    // Taken as it is and checked as a whole at start-up (buildCatalog), which names what is wrong; `mcpServers` where
    // it is used (src/shared/mcp-servers.ts).
    return raw as Record<string, unknown>;
  }
  if (typeof fallback === 'number') {
    const n = typeof raw === 'string' ? Number(raw) : raw;
    return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
  }
  return typeof raw === 'string' ? raw : undefined;
}

export function mergeConfig(base: InpageConfig, overrides: Record<string, unknown>): InpageConfig {
  const out: InpageConfig = { ...base };
  for (const key of Object.keys(DEFAULT_CONFIG) as (keyof InpageConfig)[]) {
    if (!Object.hasOwn(overrides, key)) continue;
    const value = coerce(key, overrides[key]);
    if (value !== undefined) (out as unknown as Record<string, unknown>)[key] = value;
  }
  return out;
}

/**
 * The settings a page's URL tried to set and that were ignored: every deployment setting (all of
 * `InpageConfig` but the test build's knobs). The page shows them in a notice.
 */
export function refusedUrlSettings(search: string): string[] {
  const params = new URLSearchParams(search);
  const names = new Set<string>();
  for (const name of params.keys()) {
    if (Object.hasOwn(DEFAULT_CONFIG, name) && !TEST_KNOBS.includes(name)) names.add(name);
  }
  return [...names];
}

/** The URL's part of the settings: only `TEST_KNOBS`, so nothing at all in a production build. */
export function urlSettings(search: string): Record<string, unknown> {
  const params = new URLSearchParams(search);
  const out: Record<string, unknown> = {};
  for (const key of TEST_KNOBS) {
    const value = params.get(key);
    if (value !== null) out[key] = value;
  }
  return out;
}

/** The settings files already said to be missing (once each in the console). */
const saidMissing = new Set<string>();

/**
 * The deployment's settings file (`inpage.config.json` at the app's base, src/shared/base-path.ts), read fresh when online
 * (the service worker keeps a copy for offline). None there: the defaults, said once in the console.
 */
export async function fetchDeploymentConfig(url: URL): Promise<Record<string, unknown>> {
  const href = url.href;
  const missing = (why: string) => {
    if (!saidMissing.has(href)) console.info(`inpage: no settings file at ${href} (${why}): the default settings apply (docs/configuration.md).`);
    saidMissing.add(href);
    return {};
  };
  let res: Response;
  try {
    res = await fetch(href, { cache: 'no-cache' });
  } catch {
    // Offline without a copy kept.
    return missing('unreachable');
  }
  if (!res.ok) return missing(`HTTP ${res.status}`);
  // A server's fallback page for a path it does not have (a single-page app's index.html) is not the file.
  const body: unknown = await res.json().catch(() => undefined);
  if (body === undefined) return missing(`served as ${res.headers.get('content-type') ?? 'no content type'}, not JSON`);
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : missing('not a JSON object');
}

/** The workspace page's settings: the file at its base (`/`), then the test build's URL knobs. */
export async function loadConfig(location: Location): Promise<InpageConfig> {
  const deployed = mergeConfig({ ...DEFAULT_CONFIG }, await fetchDeploymentConfig(configUrl(new URL(import.meta.env.BASE_URL, location.origin))));
  return mergeConfig(deployed, urlSettings(location.search));
}
