// How the engine worker's code is split into chunks, for the app's build (vite.config.ts) and the library's
// (scripts/build-lib.ts): the worker's code (worker/engine/engine-worker-main.ts and what it imports) is a chunk of
// its own, `engine-core`, which the engines' lazily loaded chunks import, and the worker's entry
// (engine-worker.ts) only imports it: no chunk imports the entry. WebKit (WebKitGTK 2.50) evaluates a worker's
// entry module a second time when a chunk imports it: the second copy exposed the engine's controls again, took
// the service worker's port and, never initialised, answered every request as an engine that had not started.
export const WORKER_CHUNKS = { codeSplitting: { groups: [{ name: 'engine-core', test: /worker[\\/]engine[\\/]engine-worker-main\.ts$/ }] } };
