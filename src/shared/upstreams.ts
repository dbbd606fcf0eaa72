// Hybrid inference (docs/hybrid.md): the `upstreams` setting, OpenAI-compatible servers by name, and the routes of
// the `models` setting resolved against it. /inpage.config.json is served to every visitor, so a literal credential
// in it is refused at start-up with the field named: a deployment either calls its own backend on the same site with
// the browser's cookies (`credentials: "include"`), which holds the real secret and forwards, or lets a person add a
// connection of their own in the workspace (src/shared/upstream-connections.ts).
import { ModelConfigError, type HybridMode, type ModelCatalog } from './model-config';
import { looksLikeKey, secretRefusal, urlSecret, walkStrings } from './secrets';

/** How a server speaks OpenAI's wire (what each one does differently: worker/engine/upstream/dialects.ts). */
export const DIALECTS = ['openai', 'vllm', 'ollama', 'llama-server'] as const;
export type Dialect = (typeof DIALECTS)[number];

/** The `credentials` mode of the upstream's fetches: `include` sends the site's cookies (a same-site backend). */
export const CREDENTIALS = ['omit', 'same-origin', 'include'] as const;

/**
 * Bounds on what an upstream may send back (docs/hybrid.md "Bounds", docs/security.md): per upstream, each a field of
 * its entry with this default and range. A connection a person adds takes the defaults.
 */
export const UPSTREAM_BOUNDS = {
  idleMs: {
    default: 60_000,
    min: 100,
    max: 600_000,
    note: 'After the first token, no chunk within this time (ms): the answer ends with an in-band upstream_timeout error.',
  },
  maxEventBytes: {
    default: 1_048_576,
    min: 1024,
    max: 67_108_864,
    note: 'The largest stream event (or line without a newline) read, in bytes; more is an upstream_error.',
  },
  maxAnswerBytes: {
    default: 67_108_864,
    min: 1024,
    max: 1_073_741_824,
    note: 'The most of one answer read, in bytes: a whole stream, or a JSON or embeddings body; more is an upstream_error.',
  },
  maxErrorBytes: { default: 16_384, min: 256, max: 1_048_576, note: "The most of an upstream's error body read, in bytes (the rest is not read)." },
  maxToolCalls: { default: 128, min: 1, max: 4096, note: 'The most tool calls one answer may carry; more is an upstream_error.' },
  maxToolArgumentBytes: { default: 1_048_576, min: 256, max: 67_108_864, note: "The largest one tool call's arguments, in bytes; more is an upstream_error." },
} as const;
export type UpstreamBounds = Record<keyof typeof UPSTREAM_BOUNDS, number>;
export const DEFAULT_BOUNDS = Object.fromEntries(Object.entries(UPSTREAM_BOUNDS).map(([k, v]) => [k, v.default])) as UpstreamBounds;

export interface UpstreamSpec extends UpstreamBounds {
  /** The name in the `upstreams` setting, or `connection:<name>` for a person's connection. */
  name: string;
  /** The base URL the OpenAI paths go under (`{url}/chat/completions`), absolute, without a trailing slash. */
  url: string;
  dialect: Dialect;
  credentials: RequestCredentials;
  /** Requests that may run at once on this upstream; one more is 429 `queue_full`. */
  concurrency: number;
  /** No first byte within this time: fall over, or 504 `upstream_timeout`. */
  timeoutMs: number;
  /** A person's connection only (never from the config): sent as `Authorization: Bearer …`. */
  key?: string;
}

/** One id's route with its upstream resolved: `local` has none. */
export interface ResolvedRoute {
  mode: HybridMode;
  upstream?: string;
  model?: string;
}

export interface UpstreamPlan {
  upstreams: Record<string, UpstreamSpec>;
  routes: Record<string, ResolvedRoute>;
}

export const DEFAULT_CONCURRENCY = 4;
export const DEFAULT_TIMEOUT_MS = 15_000;

const FIELDS = ['url', 'dialect', 'credentials', 'concurrency', 'timeoutMs', ...(Object.keys(UPSTREAM_BOUNDS) as (keyof UpstreamBounds)[])] as const;
/** Field names that can only mean a secret: refused with the reason rather than as merely unknown. */
const SECRET_FIELD = /(key|token|secret|password|passwd|authorization|auth|bearer|cookie|headers?)$/i;

const at = (name: string, field?: string) => `upstreams[${JSON.stringify(name)}]${field ? `.${field}` : ''}`;

/** Refuses anything in `value` that looks like a secret (src/shared/secrets.ts), naming where it is. */
function refuseSecrets(value: unknown, where: string): void {
  walkStrings(
    value,
    where,
    (text, at) => {
      if (looksLikeKey(text)) throw secretRefusal(at);
    },
    (key, at) => {
      if (SECRET_FIELD.test(key)) throw secretRefusal(at);
    },
  );
}

/** An upstream base URL, checked: http(s), no user or password, no key in its query (names or values) or path. Relative: on `origin`. */
export function upstreamUrl(raw: unknown, where: string, origin: string): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw new ModelConfigError(`${where}: must be the server's base URL (e.g. "https://llm.example.com/v1")`);
  let url: URL;
  try {
    url = new URL(raw, origin);
  } catch {
    throw new ModelConfigError(`${where}: '${raw}' is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ModelConfigError(`${where}: must be an http(s) URL, not ${url.protocol}`);
  if (urlSecret(url)) throw secretRefusal(where);
  if (url.hash) throw new ModelConfigError(`${where}: a base URL has no #fragment`);
  return url.href.replace(/\/+$/, '');
}

function oneOf<T extends string>(raw: unknown, allowed: readonly T[], fallback: T, where: string): T {
  if (raw === undefined) return fallback;
  if (typeof raw === 'string' && (allowed as readonly string[]).includes(raw)) return raw as T;
  throw new ModelConfigError(`${where}: must be one of ${allowed.map((a) => `"${a}"`).join(', ')}`);
}

function intIn(raw: unknown, min: number, max: number, fallback: number, where: string): number {
  if (raw === undefined) return fallback;
  if (typeof raw === 'number' && Number.isInteger(raw) && raw >= min && raw <= max) return raw;
  throw new ModelConfigError(`${where}: must be a whole number from ${min} to ${max}`);
}

function boundsOf(entry: Record<string, unknown>, name: string): UpstreamBounds {
  const out = { ...DEFAULT_BOUNDS };
  for (const [field, b] of Object.entries(UPSTREAM_BOUNDS) as [keyof UpstreamBounds, (typeof UPSTREAM_BOUNDS)[keyof UpstreamBounds]][]) {
    out[field] = intIn(entry[field], b.min, b.max, b.default, at(name, field));
  }
  return out;
}

/** The `upstreams` setting, checked. Throws a ModelConfigError naming the first bad field (secrets first). */
export function parseUpstreams(setting: unknown, origin: string): Record<string, UpstreamSpec> {
  const given = setting ?? {};
  if (typeof given !== 'object' || given === null || Array.isArray(given))
    throw new ModelConfigError('upstreams: expected an object of upstream servers by name');
  refuseSecrets(given, 'upstreams');
  const out: Record<string, UpstreamSpec> = {};
  for (const [name, raw] of Object.entries(given)) {
    if (!/^[A-Za-z0-9][\w.-]{0,63}$/.test(name))
      throw new ModelConfigError(`${at(name)}: a name is 1–64 letters, digits or . _ - and starts with a letter or digit`);
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ModelConfigError(`${at(name)}: expected an object with 'url'`);
    const entry = raw as Record<string, unknown>;
    const unknown = Object.keys(entry).filter((k) => !(FIELDS as readonly string[]).includes(k));
    if (unknown.length > 0) throw new ModelConfigError(`${at(name)}: unknown field ${unknown.map((k) => `'${k}'`).join(', ')} (fields: ${FIELDS.join(', ')})`);
    out[name] = {
      name,
      url: upstreamUrl(entry.url, at(name, 'url'), origin),
      dialect: oneOf(entry.dialect, DIALECTS, 'openai', at(name, 'dialect')),
      credentials: oneOf(entry.credentials, CREDENTIALS, 'same-origin', at(name, 'credentials')),
      concurrency: intIn(entry.concurrency, 1, 64, DEFAULT_CONCURRENCY, at(name, 'concurrency')),
      timeoutMs: intIn(entry.timeoutMs, 100, 600_000, DEFAULT_TIMEOUT_MS, at(name, 'timeoutMs')),
      ...boundsOf(entry, name),
    };
  }
  return out;
}

/**
 * The plan: the upstreams, and each id's route with its upstream resolved (`via` may be left out when there is one
 * upstream). Throws a ModelConfigError naming the entry when a route names an upstream that is not there.
 */
export function buildUpstreamPlan(setting: unknown, catalog: Pick<ModelCatalog, 'routes'>, origin: string): UpstreamPlan {
  const upstreams = parseUpstreams(setting, origin);
  const names = Object.keys(upstreams);
  const routes: Record<string, ResolvedRoute> = {};
  for (const [id, route] of Object.entries(catalog.routes)) {
    if (!route.upstream) {
      routes[id] = { mode: route.mode };
      continue;
    }
    const via = route.upstream.via ?? (names.length === 1 ? names[0] : undefined);
    const where = `models[${JSON.stringify(id)}].upstream.via`;
    if (via === undefined)
      throw new ModelConfigError(`${where}: name the upstream (${names.length === 0 ? "the 'upstreams' setting has none" : `one of ${names.join(', ')}`})`);
    if (!upstreams[via])
      throw new ModelConfigError(`${where}: no upstream '${via}' in the 'upstreams' setting${names.length ? ` (there: ${names.join(', ')})` : ''}`);
    routes[id] = { mode: route.mode, upstream: via, model: route.upstream.model };
  }
  return { upstreams, routes };
}
