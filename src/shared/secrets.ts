// What a credential looks like, declared once: the literal-key check of /inpage.config.json (src/shared/upstreams.ts and
// `checkSourceUrls` below: that file is served to every visitor) and the redaction of upstream error text before it
// reaches a caller (worker/engine/upstream/wire.ts) both read it.
import { ModelConfigError } from './model-config';

/**
 * The common shapes of hosted APIs' keys, anywhere in a string (not inside a longer word): OpenAI's `sk-…` (and
 * `sk-proj-…`, Anthropic's `sk-ant-…`, OpenRouter's `sk-or-…`), Groq's `gsk_`, Google's `AIza…`, xAI's `xai-`,
 * Hugging Face's `hf_`, GitHub's `ghp_`/`gho_`/`ghu_`/`ghs_`/`ghr_`/`github_pat_`, GitLab's `glpat-`, Replicate's
 * `r8_`, Perplexity's `pplx-`, NVIDIA's `nvapi-`, AWS access key ids, Slack's `xox?-`, JWTs, and an
 * `Authorization` value (`Bearer …`, `Basic …`).
 */
const SHAPES = [
  'sk-[A-Za-z0-9_-]{6,}',
  'gsk_[A-Za-z0-9]{8,}',
  'AIza[0-9A-Za-z_-]{20,}',
  'xai-[A-Za-z0-9_-]{8,}',
  'hf_[A-Za-z0-9]{8,}',
  'gh[pousr]_[A-Za-z0-9]{16,}',
  'github_pat_[A-Za-z0-9_]{16,}',
  'glpat-[A-Za-z0-9_-]{16,}',
  'r8_[A-Za-z0-9]{16,}',
  'pplx-[A-Za-z0-9]{16,}',
  'nvapi-[A-Za-z0-9_-]{16,}',
  'AKIA[0-9A-Z]{16}',
  'xox[abposr]-[A-Za-z0-9-]{10,}',
  'eyJ[A-Za-z0-9_-]{6,}\\.eyJ[A-Za-z0-9_-]{6,}\\.[A-Za-z0-9_-]*',
  '[Bb]earer\\s+[^\\s"\',]{6,}',
  '[Bb]asic\\s+[A-Za-z0-9+/=]{8,}',
];
const SHAPE = `(?<![A-Za-z0-9])(?:${SHAPES.join('|')})`;

/** Whether `text` holds something shaped like an API key or an Authorization value. */
export function looksLikeKey(text: string): boolean {
  return new RegExp(SHAPE).test(text);
}

/** What a redacted key is replaced with. */
export const REDACTED = '[redacted]';

/**
 * `text` with `key` (a connection's own key, whatever its shape) and anything shaped like a key or an
 * Authorization value replaced by `[redacted]`: an upstream's error text reaches callers, the Playground and saved
 * chats, and a gateway may echo the key it was sent ("Invalid key sk-…").
 */
export function redactSecrets(text: string, key?: string): string {
  let out = text;
  if (key && key.length >= 4) {
    out = out.split(key).join(REDACTED);
    // A text cut off in the middle of the key (a body read up to its bound) ends with the key's first characters.
    for (let n = key.length - 1; n >= 4; n--) {
      if (out.endsWith(key.slice(0, n))) {
        out = out.slice(0, -n) + REDACTED;
        break;
      }
    }
  }
  return out.replace(new RegExp(SHAPE, 'g'), (match) => (/^(bearer|basic)\s/i.test(match) ? `${match.split(/\s+/)[0]} ${REDACTED}` : REDACTED));
}

/** Query parameter names that can only carry a secret. */
const SECRET_PARAM = /^(api[-_]?key|key|token|access[-_]?token|auth|authorization|secret|password|sig|signature)$|(key|token|secret|password)$/i;

/** Why a URL carries a credential (a user or password, a key-named parameter, a key-shaped value or path), or null. */
export function urlSecret(url: URL): string | null {
  if (url.username || url.password) return 'a user or password';
  for (const [name, value] of url.searchParams) {
    if (SECRET_PARAM.test(name)) return `the query parameter '${name}'`;
    if (looksLikeKey(value)) return `the value of the query parameter '${name}'`;
  }
  let path = url.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // kept as written
  }
  if (looksLikeKey(path)) return 'its path';
  if (looksLikeKey(url.hash)) return 'its #fragment';
  return null;
}

/** The refusal of a literal credential at `where`, saying why and what to do instead. */
export function secretRefusal(where: string): ModelConfigError {
  return new ModelConfigError(
    `${where}: a literal credential in inpage.config.json is refused: that file is served to every visitor, so any of them could read it. ` +
      'Point the upstream at a backend of your own on the same site (credentials: "include"), which holds the key and forwards, ' +
      'or let each person add a connection with their own key in the workspace (docs/hybrid.md).',
  );
}

/** The model-file base URLs, which every visitor's browser fetches: a key in one is refused at start-up, naming it. */
const SOURCE_URLS = ['modelBaseUrl', 'modelLibBaseUrl', 'ggufBaseUrl'] as const;

export function checkSourceUrls(config: Partial<Record<(typeof SOURCE_URLS)[number], string>>, origin: string, source?: string): void {
  for (const field of SOURCE_URLS) {
    const raw = config[field];
    if (typeof raw !== 'string' || raw === '') continue;
    const why = secretIn(raw, origin, true);
    if (why) throw refusal(source ? `${source}: ${field}` : field, why);
  }
}

/** A string of a `models` entry that names a place to fetch from: absolute, protocol-relative or relative to the site. */
const URL_LIKE = /^(?:[a-z][a-z0-9+.-]*:|\/|\.\.?\/)/i;

/**
 * The `models` setting's own URLs (a GGUF by URL, its projector, a web-llm record's model and library), which every
 * visitor's browser fetches as well: a key in one, or anything shaped like a key anywhere in an entry, is refused at
 * start-up, naming the entry's field.
 */
export function checkModelUrls(models: unknown, origin: string, source?: string): void {
  if (typeof models !== 'object' || models === null) return;
  for (const [id, entry] of Object.entries(models)) {
    walkStrings(entry, `models[${JSON.stringify(id)}]`, (text, where) => {
      const why = secretIn(text, origin, URL_LIKE.test(text));
      if (why) throw refusal(source ? `${source}: ${where}` : where, why);
    });
  }
}

/**
 * Why `text` carries a credential, or null: as a URL (`url`: absolute or relative to `origin`; urlSecret), and as
 * text shaped like a key anywhere in it.
 */
function secretIn(text: string, origin: string, url: boolean): string | null {
  if (url) {
    try {
      const why = urlSecret(new URL(text, origin));
      if (why) return why;
    } catch {
      // not a URL after all: its text is checked below
    }
  }
  return looksLikeKey(text) ? 'its text' : null;
}

/**
 * Calls `onString` with each string inside `value` (arrays and objects walked) and where it is, as a path from
 * `where` (`.name`, `["odd name"]`, `[0]`); `onKey` sees each object key first, with the path it leads to.
 */
export function walkStrings(
  value: unknown,
  where: string,
  onString: (text: string, where: string) => void,
  onKey?: (key: string, where: string) => void,
): void {
  if (typeof value === 'string') onString(value, where);
  else if (Array.isArray(value)) value.forEach((v, i) => walkStrings(v, `${where}[${i}]`, onString, onKey));
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      const at = `${where}${/^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`}`;
      onKey?.(k, at);
      walkStrings(v, at, onString, onKey);
    }
  }
}

function refusal(field: string, why: string): ModelConfigError {
  return new ModelConfigError(
    `${field}: a literal credential in inpage.config.json is refused (${why}): that file is served to every visitor, and every visitor's browser fetches model files from this URL. ` +
      'Serve the files from a host that needs no key in the URL (a public bucket, or your own site).',
  );
}
