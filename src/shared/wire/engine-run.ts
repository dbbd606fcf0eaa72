// One started generation's events, as the engine link delivers them (engine-link.ts `generate`).
import type { ApiError } from '../protocol/errors';
import type { Usage } from '../protocol/types';
import type { EngineEvent } from './engine-port';

/**
 * The events of one started generation, as an async iterable that ends at `end` or throws the failure; or,
 * through `batches()`, everything that arrived since the last read at once (one engine `events` message or more),
 * so a burst of tokens costs the reader one step.
 */
export class EngineRun implements AsyncIterable<EngineEvent> {
  fingerprint = '';
  /** Where it runs (hybrid): `local`, or `upstream; host=…`; the answer's `x-inpage-served-by` header. */
  servedBy = 'local';
  private settle!: (spent: Usage | null) => void;
  /**
   * What the generation cost when it ended without its finish (aborted, or failed part-way), as the engine
   * reported it: the prompt's tokens and the completion tokens generated. Null: it finished (its usage is in
   * the finish event), or the engine could not tell (an engine lost, or one that does not count).
   */
  readonly spent = new Promise<Usage | null>((resolve) => (this.settle = resolve));

  settleSpent(spent: Usage | null): void {
    this.settle(spent);
  }

  private queue: EngineEvent[] = [];
  private done = false;
  private error: ApiError | null = null;
  private wake: (() => void) | null = null;

  push(events: EngineEvent | readonly EngineEvent[]): void {
    if (this.done) return;
    if (Array.isArray(events)) this.queue.push(...events);
    else this.queue.push(events as EngineEvent);
    this.notify();
  }

  end(): void {
    this.done = true;
    this.notify();
  }

  fail(error: ApiError): void {
    if (this.done) return;
    this.error = error;
    this.done = true;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  async *batches(): AsyncGenerator<EngineEvent[]> {
    for (;;) {
      if (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        yield batch;
        continue;
      }
      if (this.error) throw this.error;
      if (this.done) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<EngineEvent> {
    for await (const batch of this.batches()) yield* batch;
  }
}
