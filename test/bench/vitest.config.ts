import { defineConfig } from 'vitest/config';
import { testBuildDefine } from '../engine/knobs';

// `npm run bench` runs test/bench/*.run.ts in Node through this config; `npm test` never does.
export default defineConfig({
  define: testBuildDefine(true),
  resolve: { alias: { '#engine-impl': new URL('../engine/deterministic-engine.ts', import.meta.url).pathname } },
  test: { include: ['test/bench/**/*.run.ts'], environment: 'node' },
});
