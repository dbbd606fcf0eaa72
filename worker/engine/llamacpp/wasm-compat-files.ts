// wllama's compat build (@wllama/wllama-compat, the release of @wllama/wllama's): its wasm as a file of the build,
// its worker script as text (wllama starts its worker from the code; wllama-compat's README asks for `?raw`).
// Imported only by wasm-build.ts's compatFiles(), so it is a chunk only the browsers that need it load.
import wasm from '@wllama/wllama-compat/wasm/wllama.wasm?url';
import worker from '@wllama/wllama-compat/wasm/wllama.js?raw';

export { wasm, worker };
