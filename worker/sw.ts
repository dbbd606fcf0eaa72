/// <reference lib="webworker" />
// The service worker on its own: the app's sw.js and the package's inpage-sw.js (worker/sw/service.ts says
// what it does). Evaluated first: asks for the engine's port and opens the key store as the worker starts.
import './sw/start-early';
import { startInpage } from './sw/service';

startInpage({ guest: false });
