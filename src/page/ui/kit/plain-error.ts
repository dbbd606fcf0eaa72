// Errors in plain words first, everywhere the page shows one (Models, the Playground, Connect): what went wrong
// and what to do, with the engine's own text folded under "Technical detail".
import { Fragment, h } from 'preact';

/** The host named first in a message (where the files were fetched from), for plain words. */
function hostIn(message: string): string | null {
  const url = /https?:\/\/[^\s\],;'"]+/.exec(message)?.[0];
  if (!url) return null;
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}

/** The first URL in a message (the file that was fetched), without trailing punctuation. */
function urlIn(message: string): string | null {
  return /https?:\/\/[^\s\],;'"]+/.exec(message)?.[0]?.replace(/[.:)]+$/, '') ?? null;
}

/**
 * The HTTP status a failed fetch answered, as the engines write it ("HTTP 404", "answered 404", "status 404",
 * "404 Not Found"), or null when the message names none (the request never got an answer).
 */
export function httpStatusIn(message: string): number | null {
  const found =
    /\b(?:HTTP(?:\/[\d.]+)?|answered|status(?: code)?:?)\s+([1-5]\d\d)\b/i.exec(message) ??
    /\b([45]\d\d) (?:Not Found|Forbidden|Unauthorized|Too Many Requests|Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout)\b/i.exec(
      message,
    );
  return found ? Number(found[1]) : null;
}

/** A failed load in plain words: what went wrong and what to do; the engine's text stays as detail. */
export function plainLoadError(message: string, online = navigator.onLine): string {
  const host = hostIn(message) ?? 'the model host';
  // The URLs tried (in brackets at the end) name files such as "…-webgpu.wasm": classify the cause only.
  message = message.replace(/\s*\[[^\]]*\]\s*(\([a-z_]+\))?$/, '');
  // The status the host answered says the cause; it is read before the words of a failed fetch, which an
  // engine also writes for a host that answered (llama.cpp's "Failed to fetch <url>: HTTP 404").
  const status = httpStatusIn(message);
  if (status !== null && status >= 400) {
    const url = urlIn(message);
    const file = url ? decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '') : '';
    if (status === 404 || status === 410) {
      return url
        ? `The model file ${file} is missing at ${url}: ${host} answered ${status} (not found). Check the deployment's model URLs, or import the file from a folder.`
        : `${host} does not have the model files (${status}, not found). Check the deployment's model URLs.`;
    }
    if (status === 401 || status === 403) {
      return `${host} refused the model files (${status}, ${status === 401 ? 'it asks to sign in' : 'access denied'}): they are private or need a token this page does not send.`;
    }
    if (status === 429) return `${host} is limiting requests (429, too many requests): try again in a while.`;
    if (status >= 500) return `${host} failed while sending the model files (${status}, a server error): try again later.`;
    return `${host} refused the model files (HTTP ${status}).`;
  }
  if (/failed to fetch|networkerror|network error|err_internet|err_connection|err_name|load failed|fetch failed/i.test(message)) {
    return online
      ? `Could not reach ${host}: the connection failed (the host is down, blocked, or this device is offline).`
      : `Could not reach ${host}: this device seems to be offline.`;
  }
  if (/HTML page/.test(message)) return `${host} answered with a web page instead of the model files: check the model URLs.`;
  if (/\b404\b|not found/i.test(message)) return `${host} does not have the model files (not found).`;
  if (/out of memory|\bOOM\b|allocation failed|failed to allocate/i.test(message)) return 'Not enough GPU memory for this model on this device.';
  if (/WebGPU is not available|WebGPUNotAvailable|WebGPUNotFound|compatible GPU/i.test(message)) return 'WebGPU is not available to run this model here.';
  if (/WebAssembly|instantiate/i.test(message))
    return `The model library from ${host} could not be started: the file is damaged or not built for this version of web-llm.`;
  if (/quota|QuotaExceeded/i.test(message)) return 'This browser has no room left to store the model files.';
  return 'The model could not be downloaded or loaded.';
}

/**
 * Whether an error is a model's failed download or load (the engine's `model_load_failed` or
 * `webgpu_unavailable`, as the API names them, or its message as a model's status carries it). Other errors
 * (a bad request, a revoked key) are already in plain words and are shown as they are.
 */
function isLoadFailure(message: string, code: string | null = null): boolean {
  if (code === 'model_load_failed' || code === 'webgpu_unavailable') return true;
  return /^(Loading \S+ .*failed|WebGPU is not available to load )/s.test(message) || /\((model_load_failed|webgpu_unavailable)\)$/.test(message);
}

/** The plain sentence for an error, or null when its own text is the plain one. */
function plainError(message: string, code: string | null = null): string | null {
  return isLoadFailure(message, code) ? plainLoadError(message) : null;
}

/**
 * An error as the page shows it: a paragraph (class `plain`) with the plain sentence first, between `before` and
 * `after`, and the engine's text folded under "Technical detail" (class `detail-text`); an error whose own text
 * is the plain one is shown as it is, with nothing folded.
 */
export function ErrorText(props: { message: string; code?: string | null; plain?: string | null; before?: string; after?: string }) {
  const plain = props.plain !== undefined ? props.plain : plainError(props.message, props.code ?? null);
  return h(
    Fragment,
    null,
    h('p', { class: 'plain' }, props.before && h('strong', null, props.before), plain ? h('strong', null, plain) : props.message, props.after ?? null),
    plain && h('details', { class: 'detail' }, h('summary', null, 'Technical detail'), h('p', { class: 'detail-text' }, props.message)),
  );
}
