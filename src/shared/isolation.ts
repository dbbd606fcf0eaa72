// Cross-origin isolation for the app's own documents and workers, so llama.cpp (wllama) can run on several
// threads (WebAssembly threads need SharedArrayBuffer, which needs `crossOriginIsolated`). Declared once: the
// service worker adds these headers to the app shell it serves (worker/sw.ts, worker/sw/policy.ts), and
// `vite preview` (npm start) sends them too, for the first visit before the service worker controls the page.
// A deployment's own server should send them as well (else the first visit runs llama.cpp on one thread).
//
// COEP `credentialless` rather than `require-corp`: cross-origin subresources loaded without CORS (e.g. an
// image a conversation shows from another host) keep working without a Cross-Origin-Resource-Policy header,
// only without cookies. Model downloads are CORS fetches (Hugging Face sends CORS headers), which COEP leaves
// alone either way. A browser without `credentialless` (Safari) is not isolated by it: llama.cpp then runs on one
// thread, as it does on a first visit to a server that sends no such headers.
//
// `require-corp` is the variant that isolates the page in WebKit (Safari): a deployment chooses it by sending it
// itself (the Vite plugin's `isolation: "require-corp"`, or its own server). The service worker still puts
// `credentialless` on what it serves (keeping the server's policy instead broke the model provider's page, whose
// `require-corp` it replaces on purpose), so only what the server answers itself is isolated by it. What it costs
// is in docs/engines.md (Threads and cross-origin isolation).
export type EmbedderPolicy = 'credentialless' | 'require-corp';

/** COOP `same-origin` and COEP `policy`. */
export function isolationHeaders(policy: EmbedderPolicy = 'credentialless'): Readonly<Record<string, string>> {
  return { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': policy };
}

export const ISOLATION_HEADERS: Readonly<Record<string, string>> = isolationHeaders();

/** `response` with the isolation headers (a new Response sharing its body). */
export function isolated(response: Response): Response {
  // Opaque and redirected responses cannot be rebuilt (and are not the app's own).
  if (response.type === 'opaque' || response.type === 'opaqueredirect' || response.status === 0) return response;
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(ISOLATION_HEADERS)) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
