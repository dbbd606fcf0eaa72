// Types of splice.mjs (plain JS so Node scripts and the Vite plugin run it as it is).
export declare const KERNELS: string[];
export declare const VARIANTS: ('simd128' | 'relaxed')[];
export interface WasmModuleInfo {
  bytes: Uint8Array;
  funcTypes: string[];
  importedFuncs: number;
  names: Map<number, string>;
  byName: Map<string, number>;
  bodies: Uint8Array[];
  memory64: boolean;
}
export interface SpliceReport {
  name: string;
  index: number;
  before: number;
  after: number;
  dots: number;
  relaxedDots: number;
}
export declare function readModule(bytes: Uint8Array): WasmModuleInfo;
export declare function portableBody(body: Uint8Array, what: string, allowedGlobals?: number[]): { dots: number; relaxedDots: number };
export declare function kernelFile(host: { memory64: boolean }, variant: string): string;
export declare function spliceKernels(
  hostBytes: Uint8Array,
  variant: string,
  kernelBytes?: Uint8Array,
): { bytes: Uint8Array; report: SpliceReport[]; memory64: boolean };
export declare function validate(bytes: Uint8Array, what: string): Promise<void>;
export declare function sha256(bytes: Uint8Array): string;
export declare function spliceBodies(
  host: WasmModuleInfo,
  source: WasmModuleInfo,
  names: string[],
  options: { hostName: string; sourceName: string; allowedGlobals?: number[] },
): { bytes: Uint8Array; report: SpliceReport[] };
