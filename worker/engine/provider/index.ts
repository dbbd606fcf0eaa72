// The model provider's engine as an engine of this site (consumer mode, docs/shared-models.md): requests go over a
// port the provider's frame relays to its engine worker, checked there against the person's consent, in the engine
// port's own protocol (the service worker's client of it, EngineLink, speaks it here too). Used by the composite in
// worker/engine/consumer.ts once the provider has refused this site a model: the provider keeps serving the models it
// allows, this site's own engine the others.
import { ApiError } from '#shared/protocol/errors';
import type { EngineRequest, ModelStatus } from '#shared/wire/engine-port';
import type { EmbeddingRequest } from '#shared/protocol/embeddings';
import { EngineLink } from '#shared/wire/engine-link';
import type { PlannedRequest } from '../common/plan';
import type { Engine, Generation } from '../engine';

/** How often the provider's statuses (the models it allows this site, and their states) are read again. */
export const PROVIDER_STATUS_MS = 2000;

export class ProviderEngine implements Engine {
  private readonly link: EngineLink;
  private statuses: ModelStatus[] = [];
  private readonly listeners: (() => void)[] = [];
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    port: MessagePort,
    /** The provider's origin, for messages. */
    readonly origin: string,
  ) {
    // Its one port comes now; without it (the frame went away) a request fails at once, so the next side answers.
    // An answer may take longer than from an engine of this site (two pages' main threads relay it), and a port that
    // stays silent that long is given up for good: so 10 s, not the service worker's 3 s.
    this.link = new EngineLink({ requestPort: async () => undefined, connectTimeoutMs: 0, ackTimeoutMs: 10_000 });
    this.link.adopt(port);
  }

  /** Whether its port is alive (the frame has not gone away). */
  get connected(): boolean {
    return this.link.connected;
  }

  /** Whether the provider serves `id` to this site: its status lists only the models the site may run. */
  serves(id: string): boolean {
    return this.connected && this.statuses.some((s) => s.id === id);
  }

  /** Reads the provider's statuses now, then every PROVIDER_STATUS_MS; resolves after the first read. */
  async start(): Promise<void> {
    await this.refresh();
    this.timer ??= setInterval(() => void this.refresh(), PROVIDER_STATUS_MS);
  }

  async refresh(): Promise<void> {
    let next: ModelStatus[];
    try {
      next = this.connected ? (await this.link.status()).models : [];
    } catch {
      next = [];
    }
    const changed = JSON.stringify(next) !== JSON.stringify(this.statuses);
    this.statuses = next;
    if (changed) for (const listener of this.listeners) listener();
    if (!this.connected) clearInterval(this.timer);
  }

  private async run(request: EngineRequest, signal: AbortSignal): Promise<Generation> {
    try {
      const run = await this.link.generate(request, signal);
      return { fingerprint: run.fingerprint, events: run, servedBy: run.servedBy, spent: () => run.spent };
    } catch (err) {
      // A refusal (the person unticked the model meanwhile) or the frame gone: read what it serves now.
      if (err instanceof ApiError && err.code === 'engine_unavailable') void this.refresh();
      throw err;
    }
  }

  generate(request: PlannedRequest, signal: AbortSignal): Promise<Generation> {
    return this.run(request, signal);
  }

  embed(request: EmbeddingRequest, signal: AbortSignal): Promise<Generation> {
    return this.run(request, signal);
  }

  status(): ModelStatus[] {
    return this.statuses;
  }

  onStatus(listener: () => void): void {
    this.listeners.push(listener);
  }
}
