// What the engine worker knows of each engine kind (one per worker/engine/<kind>/descriptor.ts, listed in registry.ts).
import type { AdapterReport } from '#shared/wire/engine-control';
import type { InpageConfig } from '#shared/config';
import type { ModelCatalog } from '#shared/model-config';
import type { ModelRuntime } from '#shared/wire/engine-port';
import type { EngineKind } from '#shared/engine-kinds/names';
import type { GpuProbe } from './common/gpu';
import type { Engine } from './engine';
import type { CompleteEngine } from './capabilities';

/**
 * One engine kind as the engine worker knows it (worker/engine/<kind>/descriptor.ts, listed once in
 * worker/engine/registry.ts): whether it can run on this device, how it is created, what it imports. What every
 * realm needs of a kind lives in shared code: its `models` entry (src/shared/engine-kinds/<kind>.ts) and its own
 * files, which the build names after it and the service worker caches apart (src/shared/engine-files.ts).
 */
export interface EngineDescriptor<Kind extends EngineKind = EngineKind> {
  kind: Kind;
  /** Why it runs when the deployment forces it (`engineChoice: "<kind>"`). */
  forcedWhy: string;
  /** Why it runs beside the device's engine when the `models` setting ties some models to it. */
  tiedWhy: string;
  /** `engineChoice: "auto"`: whether it can run on this device (the first in the registry's order that can runs), and why (not). */
  canRun(probe: Pick<GpuProbe, 'report'>): { ok: boolean; why: string };
  /** Creates it, loading its chunk. `why`: why it runs here (the engine may say it in its statuses). */
  create(config: InpageConfig, catalog: ModelCatalog, why: string, probe: GpuProbe): Promise<Engine>;
  /** Where it runs its models when it does not say (its status's runtime). */
  device: ModelRuntime['device'];
  /** The files of an import it takes, by path; `rest`: those no other engine's pattern takes. */
  imports: RegExp | 'rest';
  /** Why files it would take were not imported, where it does not run on this device (default: they go elsewhere). */
  notImported?(names: string): string;
  /** The page's adapter report when it is the device's engine (default: its own `adapter()`). */
  adapter?(probe: GpuProbe, engine: CompleteEngine | undefined): AdapterReport;
}
