// Native llama.cpp (node-llama-cpp's prebuilt CPU binary, from npm, installed on first use: scripts/native-llama.mjs) reads the synthesizer's quantized files: each
// loads, and its greedy answer is the synthesized model's designed one (the transitions survive quantization),
// as long as asked, and the same twice. Never builds or downloads anything (build: 'never').
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importNodeLlamaCpp, type Llama, type NodeLlamaCpp, type Token } from '../../../scripts/native-llama.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { synthesizeGguf, type TensorType } from '../../../scripts/gguf/synthesize';

const TOKENS = 12;
let dir = '';
let llama: Llama;
let TokenBias: NodeLlamaCpp['TokenBias'];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inpage-native-'));
  const native = await importNodeLlamaCpp();
  TokenBias = native.TokenBias;
  llama = await native.getLlama({ gpu: false, build: 'never', logLevel: native.LlamaLogLevel.error });
}, 600_000);
afterAll(async () => {
  await llama?.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('synthesized quantized GGUFs in native llama.cpp', () => {
  const cases: { type: TensorType; embedding?: number }[] = [{ type: 'q8_0' }, { type: 'q4_0' }, { type: 'q4_k', embedding: 256 }];
  for (const { type, embedding } of cases) {
    it(`${type}: loads on the CPU and answers greedily as designed, ${TOKENS} tokens, the same twice`, async () => {
      const synth = synthesizeGguf({ seed: 7, type, embedding });
      const path = join(dir, `${type}.gguf`);
      await writeFile(path, synth.bytes);
      const model = await llama.loadModel({ modelPath: path, gpuLayers: 0 });
      try {
        expect(model.fileInfo.metadata.general.architecture).toBe('llama');
        const prompt = model.tokenize('<|im_start|>user\nHello the world<|im_end|>\n<|im_start|>assistant\n', true);
        expect(prompt.at(-1)).toBe(synth.tokenId('\n'));
        const answer = async () => {
          const context = await model.createContext({ contextSize: 256, threads: 1 });
          try {
            const bias = new TokenBias(model.tokenizer).set(synth.tokenId('<|im_end|>') as Token, 'never');
            const out: Token[] = [];
            for await (const token of context.getSequence().evaluate(prompt, { temperature: 0, tokenBias: bias })) {
              out.push(token);
              if (out.length === TOKENS) break;
            }
            return out;
          } finally {
            await context.dispose();
          }
        };
        const first = await answer();
        expect(first).toHaveLength(TOKENS);
        // A prompt that ends "assistant\n" is answered "<think> Let me think.</think> The" (synthesize.ts).
        const designed = ['<think>', ' Let', ' me', ' think', '.', '</think>', ' The'].map(synth.tokenId);
        expect(first.slice(0, designed.length)).toEqual(designed);
        expect(model.detokenize(first.slice(0, designed.length), true)).toBe('<think> Let me think.</think> The');
        expect(await answer()).toEqual(first);
      } finally {
        await model.dispose();
      }
    }, 30_000);
  }
});
