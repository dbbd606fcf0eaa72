// The server's answer to an API request no service worker took (`vite dev` / `vite preview`, through inpage/vite
// and this repository's own config). Imports carry their extensions: Vite's config loader reads this file as is.
import type { Connect } from 'vite';
import { apiRoute } from '#shared/base-path';
import { serviceWorkerMissing } from '#shared/protocol/errors';

/**
 * A request for the API (`<base>v1`, src/shared/base-path.ts) that reaches the server: no service worker controls the
 * page that sent it (it failed to register or to take control, or was lost). The contract's 503, not a 404 page.
 */
export function answerApiWithoutWorker(api: string): Connect.NextHandleFunction {
  return (req, res, next) => {
    if (apiRoute((req.url ?? '').split('?')[0]!, api) === null) return next();
    const error = serviceWorkerMissing();
    res.statusCode = error.status;
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.setHeader('retry-after', String(error.retryAfter));
    res.end(JSON.stringify(error.toBody()));
  };
}
