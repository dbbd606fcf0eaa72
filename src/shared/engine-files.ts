// Each engine's own files, declared once: the build names them after their engine, the service worker's precache
// leaves them out, and the service worker keeps them on first use, each engine's in a cache of its own, so a
// device downloads only the engine it runs (a CPU-only visitor never fetches web-llm). An engine that brings more
// files (wasm variants, a compat build) lists their modules or asset names here (docs/offline.md).

import type { EngineKind } from './engine-kinds/names';

export type { EngineKind } from './engine-kinds/names';

export interface EngineFiles {
  /** Source modules only this engine runs (their paths): the chunks made of them are named `engine-<kind>-…`. */
  modules: RegExp;
  /** The engine's own assets, by the base name the build gives them (`wllama` for `wllama-<hash>.wasm`). */
  assets: readonly string[];
}

/**
 * Every engine kind's files (a kind of src/shared/engine-kinds/names.ts missing here does not compile). A table of
 * its own, not a field of the kind's spec (engine-kinds/<kind>.ts): the build and the Vite plugin read it in Node,
 * and would otherwise bundle every kind's `models` schemas (zod) with it.
 */
export const ENGINE_FILES: Readonly<Record<EngineKind, EngineFiles>> = {
  webllm: { modules: /[\\/](?:worker[\\/]engine[\\/]webllm|node_modules[\\/]@mlc-ai[\\/]web-llm)[\\/]/, assets: [] },
  llamacpp: { modules: /[\\/](?:worker[\\/]engine[\\/]llamacpp|node_modules[\\/]@wllama[\\/]wllama(?:-compat)?)[\\/]/, assets: ['wllama'] },
};

const KINDS = Object.keys(ENGINE_FILES) as EngineKind[];

/**
 * The engine whose code a chunk is: it holds modules of that engine and of no other (the helpers only that engine
 * uses are bundled with it); null for shared code.
 */
export function engineOfChunk(moduleIds: readonly string[]): EngineKind | null {
  const kinds = KINDS.filter((kind) => moduleIds.some((id) => ENGINE_FILES[kind].modules.test(id)));
  return kinds.length === 1 ? kinds[0]! : null;
}

/** A build's chunk names (rollup's `chunkFileNames`): an engine's chunks carry `engine-<kind>-` before their name. */
export function engineChunkFileNames(prefix: string): (chunk: { name: string; moduleIds: readonly string[] }) => string {
  return (chunk) => {
    const kind = engineOfChunk(chunk.moduleIds);
    if (!kind) return `${prefix}[name]-[hash].js`;
    return `${prefix}engine-${kind}${chunk.name === kind ? '' : `-${chunk.name}`}-[hash].js`;
  };
}

/** The engine a served file belongs to (by its path: a chunk `…engine-<kind>-…js`, or one of its assets), or null. */
export function engineOfPath(pathname: string): EngineKind | null {
  const name = pathname.slice(pathname.lastIndexOf('/') + 1).replace(/^inpage-/, '');
  for (const kind of KINDS) {
    if (name.startsWith(`engine-${kind}-`) && name.endsWith('.js')) return kind;
    if (ENGINE_FILES[kind].assets.some((asset) => new RegExp(`^${asset}-[\\w-]+\\.\\w+$`).test(name))) return kind;
  }
  return null;
}

/** What a precache leaves out (workbox-build's globs): every engine's own files. */
export const ENGINE_FILE_GLOBS: readonly string[] = KINDS.flatMap((kind) => [
  `**/*engine-${kind}-*.js`,
  ...ENGINE_FILES[kind].assets.map((asset) => `**/*${asset}-*.*`),
]);

/** The cache the service worker keeps an engine's files in, from their first use. */
export function engineCache(kind: EngineKind): string {
  return `inpage-engine-${kind}`;
}

/** A file's name without its content hash (`engine-llamacpp-index-AbC123.js` → `engine-llamacpp-index.js`): one version kept per name. */
export function withoutHash(pathname: string): string {
  return pathname.replace(/-[\w-]{8}(\.\w+)$/, '$1');
}
