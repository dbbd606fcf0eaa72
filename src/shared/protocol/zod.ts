// zod for every schema of the app: its mini build, whose functional API bundles and starts several times
// lighter than the classic one (the service worker evaluates it on every start: after Chromium stops an idle
// worker, on the next request). Its issues are the classic build's, word for word, once the English messages
// the classic build installs by itself are installed here.
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

// `jitless`: the page's Content-Security-Policy forbids eval; without it zod probes with `new Function`, which
// the page reports as a CSP violation even though zod catches it.
z.config({ ...en(), jitless: true });

export { z };

/**
 * Schemas built on their first use instead of when their module is evaluated. The service worker evaluates all
 * its modules on every start (Chromium stops an idle worker, and the next request starts it again), and building
 * the schemas was most of that evaluation: the request that restarts the worker now builds only those it uses.
 */
export function lazy<T>(build: () => T): (() => T) & { readonly built: boolean } {
  let built: T | undefined;
  const get = () => (built ??= build());
  return Object.defineProperty(get, 'built', { get: () => built !== undefined }) as (() => T) & { readonly built: boolean };
}
