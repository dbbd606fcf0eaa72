// Where inpage's URLs live under an app's base path (docs/embedding.md, "The base path"). The base is the folder
// an app's pages and inpage's files are served from (`/`, `/app/`); every URL inpage derives resolves against it
// (or against the file that names it: the built files name each other relative to `import.meta.url`). Declared
// once here for the page, the service worker and the Vite plugin.

/** The deployment's settings file, at the base. */
export const CONFIG_FILE = 'inpage.config.json';

/** Resolves paths given without an origin (the plugin's `/app/`). */
const ANY_ORIGIN = 'http://base.invalid';

/** The deployment's settings file under a base (a folder URL, or a path such as `/app/`). */
export function configUrl(base: string | URL): URL {
  return new URL(CONFIG_FILE, new URL(base, ANY_ORIGIN));
}

/** The API's path under a base: `<base>v1` (`/v1` at `/`, `/app/v1` at `/app/`). */
export function apiPath(base: string | URL): string {
  return new URL('v1', new URL(base, ANY_ORIGIN)).pathname;
}

/**
 * A request path as the API's routes know it (`/v1/…`), when it is under the API's path `api` (`apiPath`);
 * null when it is not the API's.
 */
export function apiRoute(path: string, api: string): string | null {
  if (path !== api && !path.startsWith(`${api}/`)) return null;
  return `/v1${path.slice(api.length)}`;
}
