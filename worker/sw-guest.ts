/// <reference lib="webworker" />
// inpage as a guest in an app's own service worker (worker/sw/service.ts says what it takes and what it leaves):
// the package's inpage-sw-guest.js, for `importScripts` at the top of a classic worker, and `inpage/sw`, for a
// module worker that a bundler builds (import it before the app's own fetch listeners and routes). Evaluated
// first: asks for the engine's port and opens the key store as the worker starts.
import './sw/start-early';
import { startInpage } from './sw/service';

startInpage({ guest: true });
