// `node --import ./test/firefox/register-ts.mjs`: TypeScript for the Firefox smoke set (see ts-hooks.mjs).
import { register } from 'node:module';

register('./ts-hooks.mjs', import.meta.url);
