// The part of node-llama-cpp's API the tests use, for the type-checker: node-llama-cpp is installed on demand
// (scripts/native-llama.mjs), outside node_modules, so `tsc` cannot read its own declarations (a fresh clone
// type-checks before anything installs it). Names and shapes as node-llama-cpp 3.22.1 declares them.
export declare const NODE_LLAMA_CPP_VERSION: string;
export declare const NATIVE_LLAMA_DIR: string;
export declare function binaryPackage(platform?: string, arch?: string): string;
export declare function ensureNodeLlamaCpp(): void;

export type Token = number & { __token: never };

export interface LlamaContextSequence {
  evaluate(tokens: readonly Token[], options?: { temperature?: number; tokenBias?: TokenBias }): AsyncIterable<Token>;
  clearHistory(): Promise<void>;
}

export interface LlamaContext {
  getSequence(): LlamaContextSequence;
  readonly currentThreads: number;
  dispose(): Promise<void>;
}

export interface LlamaTokenizer {
  (text: string, specialTokens?: boolean): Token[];
}

export interface LlamaModel {
  readonly fileInfo: { metadata: { general: { architecture?: string } } };
  readonly tokenizer: LlamaTokenizer;
  tokenize(text: string, specialTokens?: boolean): Token[];
  detokenize(tokens: readonly Token[], specialTokens?: boolean): string;
  isEogToken(token: Token): boolean;
  createContext(options: { contextSize?: number; batchSize?: number; threads?: number }): Promise<LlamaContext>;
  dispose(): Promise<void>;
}

export interface Llama {
  loadModel(options: { modelPath: string; gpuLayers?: number }): Promise<LlamaModel>;
  dispose(): Promise<void>;
}

export declare class TokenBias {
  constructor(tokenizer: LlamaTokenizer);
  set(token: Token, bias: 'never' | number): this;
}

export declare const LlamaLogLevel: { readonly error: 'error'; readonly warn: 'warn'; readonly info: 'info' };

export interface NodeLlamaCpp {
  getLlama(options: { gpu?: false; build?: 'never'; logLevel?: (typeof LlamaLogLevel)[keyof typeof LlamaLogLevel] }): Promise<Llama>;
  LlamaLogLevel: typeof LlamaLogLevel;
  TokenBias: typeof TokenBias;
}

export declare function importNodeLlamaCpp(): Promise<NodeLlamaCpp>;
