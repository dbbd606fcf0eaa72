// The state of each set of weights (shared by the variants that use them), as /v1/models and the page see it.
import type { LoadProgress, ModelStatus } from '#shared/wire/engine-port';
import type { ModelState } from '#shared/protocol/types';
import type { ModelCatalog } from '#shared/model-config';

interface GroupState {
  state: ModelState;
  context: number;
  progress?: LoadProgress;
  sizeOnDisk?: number;
  error?: string;
  modelId?: string;
  memoryMB?: number;
}

export class ModelStates {
  private readonly groups = new Map<string, GroupState>();
  private readonly listeners: (() => void)[] = [];

  /** `defaultContext`: the tokens of context a model loads with until its engine says otherwise; `catalog`: the engine's. */
  constructor(
    defaultContext: number,
    private readonly catalog: ModelCatalog,
  ) {
    for (const variant of catalog.variants) {
      const group = variant.weightGroup;
      if (!this.groups.has(group)) {
        this.groups.set(group, { state: 'not_downloaded', context: Math.min(defaultContext, variant.trainedContext) });
      }
    }
  }

  private get(group: string): GroupState {
    const g = this.groups.get(group);
    if (!g) throw new Error(`Unknown weight group '${group}'.`);
    return g;
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // A listener that throws (a closed page) must not stop the engine.
      }
    }
  }

  state(group: string): ModelState {
    return this.get(group).state;
  }

  context(group: string): number {
    return this.get(group).context;
  }

  setContext(group: string, context: number): void {
    const g = this.get(group);
    if (g.context === context) return;
    g.context = context;
    this.changed();
  }

  /** A new state; leaving the load phases drops the progress, and any state but a failure drops the error. */
  set(group: string, state: ModelState, extra: { error?: string; progress?: LoadProgress } = {}): void {
    const g = this.get(group);
    g.state = state;
    if (state !== 'downloading' && state !== 'loading') delete g.progress;
    if (extra.progress) g.progress = extra.progress;
    if (extra.error !== undefined) g.error = extra.error;
    else if (state === 'downloading' || state === 'loading' || state === 'ready') delete g.error;
    this.changed();
  }

  /** Which model serves the group on this device (by precision), and the GPU memory it needs. */
  setModel(group: string, modelId: string, memoryMB: number | undefined): void {
    const g = this.get(group);
    g.modelId = modelId;
    if (memoryMB) g.memoryMB = memoryMB;
  }

  setSize(group: string, bytes: number): void {
    if (bytes > 0) this.get(group).sizeOnDisk = bytes;
  }

  /** Every group that is not ready, not unavailable and not mid-load counts as cached or not downloaded. */
  settle(group: string, cached: boolean, error?: string): void {
    const g = this.get(group);
    if (!cached) delete g.sizeOnDisk;
    this.set(group, cached ? 'cached' : 'not_downloaded', error === undefined ? {} : { error });
  }

  status(): ModelStatus[] {
    return this.catalog.variants.map(({ id, weightGroup }) => {
      const g = this.get(weightGroup);
      const status: ModelStatus = { id, state: g.state, context_length: g.context };
      if (g.progress) status.progress = { ...g.progress };
      if (g.sizeOnDisk !== undefined && g.state !== 'not_downloaded') status.sizeOnDisk = g.sizeOnDisk;
      if (g.error !== undefined) status.error = g.error;
      if (g.modelId !== undefined) status.modelId = g.modelId;
      if (g.memoryMB !== undefined) status.memoryMB = g.memoryMB;
      return status;
    });
  }
}
