// Consumer mode, split (docs/shared-models.md): this site's engine with the model provider's beside it. A request for
// a model the provider allows this site goes to the provider first (its files, 0 bytes here); a model it does not
// allow, or any model once the provider is gone, runs on this site's own engine (with its upstreams, if any). A
// refusal or the provider's loss before the first token hands the request to this site's engine (the scheduler's
// fall-over); the provider's other failures (its queue full, a bad request) are the answer.
import { providerServes, type EngineRequest, type ModelStatus, type ProviderNote } from '#shared/wire/engine-port';
import { isEmbeddingRequest } from '#shared/protocol/embeddings';
import type { Engine, Side } from './engine';
import { RoutingEngine } from './routing';
import { ProviderEngine } from './provider';

/** Failures of the provider's side that let this site's engine answer: a refusal, or the provider gone. */
const PROVIDER_FALLS_OVER: ReadonlySet<string> = new Set(['engine_unavailable']);

export class ConsumerEngine extends RoutingEngine {
  /** The provider's side: its engine, over its port. */
  private readonly side: Side;

  constructor(
    inner: Engine,
    private readonly provider: ProviderEngine,
  ) {
    super(inner);
    this.side = {
      kind: 'provider',
      name: provider.origin,
      fallsOver: PROVIDER_FALLS_OVER,
      generate: (request, signal) => provider.generate(request, signal),
      embed: (request, signal) => provider.embed(request, signal),
    };
  }

  /** The provider's side first where it serves the id, then this site's own sides (its engine, its upstreams). */
  route(request: EngineRequest): readonly Side[] {
    const id = isEmbeddingRequest(request) ? request.model : request.variant.id;
    const own = this.local.route(request);
    return this.provider.serves(id) ? [this.side, ...own] : own;
  }

  /** Per model: the provider's status where it serves it, else this site's; each says which serves, and why. */
  status(): ModelStatus[] {
    const theirs = this.provider.status();
    return this.local.status().map((own) => {
      const served = this.provider.connected ? theirs.find((s) => s.id === own.id) : undefined;
      const note: ProviderNote = served
        ? providerServes(this.provider.origin)
        : {
            origin: this.provider.origin,
            serving: false,
            why: this.provider.connected
              ? `the model provider ${this.provider.origin} does not let this site use this model`
              : `the model provider ${this.provider.origin} is gone`,
          };
      return { ...(served ? { ...own, ...served, serving: own.serving } : own), provider: note };
    });
  }

  onStatus(listener: () => void): void {
    this.local.onStatus(listener);
    this.provider.onStatus(listener);
  }
}

/** `inner` with the provider's engine beside it, once its first statuses are read. */
export async function withProvider(inner: Engine, port: MessagePort, origin: string): Promise<Engine> {
  const provider = new ProviderEngine(port, origin);
  await provider.start();
  return new ConsumerEngine(inner, provider);
}
