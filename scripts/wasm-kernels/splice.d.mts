// Types of splice.mjs (plain JS so Node scripts and the Vite plugin run it as it is).
export declare const KERNELS: string[];
export declare const VARIANTS: ('simd128' | 'relaxed')[];
export interface WasmModuleInfo {
  bytes: Uint8Array;
  /** Each section: its id, where it starts, where its content starts and ends (file offsets), a custom one's name. */
  sections: { id: number; start: number; body: number; end: number; custom: string | null }[];
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
export declare const TILED_TYPES: { type: string; id: number; fromFloat: string; vecDot: string; vecDotType: number }[];
export declare const TRAITS_LAYOUT: Record<4 | 8, { size: number; vecDot: number; vecDotType: number; nrows: number }>;
/** A type_traits_cpu entry found: its type, the file offsets of the entry and of its nrows field. */
export interface TraitsRow {
  type: string;
  at: number;
  entry: number;
}
export declare function traitsRows(host: WasmModuleInfo, nrows?: number): TraitsRow[];
export declare function setTileRows(host: WasmModuleInfo): { bytes: Uint8Array; rows: TraitsRow[] };
export declare function readModule(bytes: Uint8Array): WasmModuleInfo;
export declare function portableBody(body: Uint8Array, what: string, allowedGlobals?: number[]): { dots: number; relaxedDots: number };
export declare function kernelFile(host: { memory64: boolean }, variant: string): string;
export declare function spliceKernels(
  hostBytes: Uint8Array,
  variant: string,
  kernelBytes?: Uint8Array,
): { bytes: Uint8Array; report: SpliceReport[]; tiles: string[]; chunks: { test: number; dr0: number; dr1: number }; memory64: boolean };
/** ggml_compute_forward_mul_mat's locals by memory (splice.mjs says what each is). */
export declare const MUL_MAT_LOCALS: Record<
  'wasm64' | 'wasm32',
  { ne11: number; nr0: number; nr1: number; nchunk0: number; dr0: number; nchunk1: number; dr1: number }
>;
/** ggml_compute_forward_mul_mat's body with tiles in every even chunk (splice.mjs); `at`: where each change went. */
export declare function oddColumnTiles(host: WasmModuleInfo): {
  index: number;
  body: Uint8Array;
  at: { test: number; dr0: number; dr1: number };
};
export declare function validate(bytes: Uint8Array, what: string): Promise<void>;
export declare function sha256(bytes: Uint8Array): string;
export declare function spliceBodies(
  host: WasmModuleInfo,
  source: WasmModuleInfo,
  names: string[],
  options: { hostName: string; sourceName: string; allowedGlobals?: number[]; patched?: Map<number, Uint8Array> },
): { bytes: Uint8Array; report: SpliceReport[] };
