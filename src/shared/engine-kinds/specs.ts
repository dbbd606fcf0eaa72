// What shared code knows of each engine kind (its name, its `models` entries, its model cards, how the workspace says
// where it runs: kind.ts), one file per kind beside this one; its own files are in src/shared/engine-files.ts; the
// engine worker's side of each (can it run here, how it is created) is its descriptor,
// worker/engine/<kind>/descriptor.ts, listed in worker/engine/registry.ts.
import type { EngineKindSpec } from './kind';
import { llamacppKind } from './llamacpp';
import type { EngineKind } from './names';
import { webllmKind } from './webllm';

export { DEFAULT_ENTRY_KIND, ENGINE_KINDS, isEngineKind, type EngineKind } from './names';

/** Every engine kind's spec: a kind in ENGINE_KINDS missing here does not compile. */
export const ENGINE_KIND_SPECS: Readonly<Record<EngineKind, EngineKindSpec>> = {
  webllm: webllmKind,
  llamacpp: llamacppKind,
};
