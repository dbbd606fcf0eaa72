// Native llama.cpp (node-llama-cpp's prebuilt CPU binary, installed on first use by scripts/native-llama.mjs) answers
// a raw prompt greedily on a synthesized GGUF, for the browser tests to compare llama.cpp's wasm with: as a vitest
// browser command (vitest.config.ts; test/unit/engine/llamacpp-kernels.browser.test.ts), and in the WebKit smoke set's own
// process (test/webkit/llamacpp.test.ts). The model is synthesized here from the same options.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserCommand } from 'vitest/node';
import { synthesizeGguf, type SynthOptions } from '../../scripts/gguf/synthesize';
import { importNodeLlamaCpp, type Token } from '../../scripts/native-llama.mjs';

export interface NativeGreedy {
  model: SynthOptions;
  prompt: string;
  tokens: number;
}

/** The vitest command: nativeGreedyText in the vitest process, for a browser test. */
export const nativeGreedy: BrowserCommand<[NativeGreedy]> = (_context, options) => nativeGreedyText(options);

/** The text of up to `tokens` greedy tokens after `prompt`, stopping at an end-of-generation token. */
export async function nativeGreedyText({ model, prompt, tokens }: NativeGreedy): Promise<string> {
  const { getLlama, LlamaLogLevel } = await importNodeLlamaCpp();
  const dir = await mkdtemp(join(tmpdir(), 'inpage-native-greedy-'));
  const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
  try {
    const path = join(dir, 'model.gguf');
    await writeFile(path, synthesizeGguf(model).bytes);
    const loaded = await llama.loadModel({ modelPath: path, gpuLayers: 0 });
    const context = await loaded.createContext({ contextSize: 256, threads: 1 });
    try {
      const out: Token[] = [];
      for await (const token of context.getSequence().evaluate(loaded.tokenize(prompt, true), { temperature: 0 })) {
        if (loaded.isEogToken(token)) break;
        out.push(token);
        if (out.length === tokens) break;
      }
      return loaded.detokenize(out, true);
    } finally {
      await context.dispose();
      await loaded.dispose();
    }
  } finally {
    await llama.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}
