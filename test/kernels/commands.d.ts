// The vitest browser commands of vitest.config.ts, as the browser tests see them.
import type { NativeGreedy } from './native-greedy';

declare module 'vitest/browser' {
  interface BrowserCommands {
    /** Native llama.cpp's greedy answer (test/kernels/native-greedy.ts). */
    nativeGreedy: (options: NativeGreedy) => Promise<string>;
    /** wllama's main build with a deliberately broken Q4_K tile, base64 (test/kernels/broken-tile.ts). */
    brokenTile: () => Promise<string>;
  }
}
