// Types of bench-regions.mjs (plain JS so `npm run bench` runs it as it is), for the unit test.
export declare const REGION_ORDER: string[];
export declare const HEADER: string;
export declare class RegionError extends Error {}
export declare function parseRegions(text: string): { lines: string[]; regions: Map<string, { open: number; close: number }> };
export declare function replaceRegions(text: string, bodies: Record<string, string>, order?: string[]): string;
export declare function writeRegions(file: string, bodies: Record<string, string>): void;
export declare const metCell: (ok: boolean | null) => string;
export declare const metWord: (ok: boolean | null) => string;
export declare function targetsTable(targets: [string, string, boolean | null][]): string[];
export declare const benchCommand: (argv?: string[]) => string;
export declare function machine(): string;
export declare function stampLine(stamp: { command?: string; started: number; ended?: number; before: string; after: string; quick?: boolean }): string;
export declare function regionText(title: string, stamp: string, lines: string[], targets?: [string, string, boolean | null][]): string;
