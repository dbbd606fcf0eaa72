// The engine registry, the composition root of the device's engine (device-engine.ts): every engine kind's
// descriptor, listed once. A new engine is a folder worker/engine/<kind>/ with its descriptor.ts, its
// shared spec src/shared/engine-kinds/<kind>.ts, and one line in each list (src/shared/engine-kinds/names.ts and
// specs.ts, src/shared/engine-files.ts, here).
import { ENGINE_KINDS, type EngineKind } from '#shared/engine-kinds/names';
import type { EngineDescriptor } from './engine-descriptor';
import { llamacppDescriptor } from './llamacpp/descriptor';
import { webllmDescriptor } from './webllm/descriptor';

/** Every engine kind's descriptor: a kind in ENGINE_KINDS missing here does not compile. */
export const ENGINES: { readonly [Kind in EngineKind]: EngineDescriptor<Kind> } = {
  webllm: webllmDescriptor,
  llamacpp: llamacppDescriptor,
};

/** The descriptors in the order the device prefers them (ENGINE_KINDS' order). */
export const ENGINE_ORDER: readonly EngineDescriptor[] = ENGINE_KINDS.map((kind) => ENGINES[kind]);
