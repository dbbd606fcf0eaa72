// One generation at a time, first come first served, with a bounded wait list (429 beyond it).
import { ApiError } from '../../src/protocol/errors';
import type { EngineEvent, EngineRequest } from '../../src/engine-protocol';
import type { Usage } from '../../src/protocol/types';
import { isEmbeddingRequest } from '../../src/protocol/embeddings';
import { cannotEmbed, complete, type CompleteEngine, type Engine, type Generation } from './engine';
import { withPlan, type PlannedRequest } from './shared/plan';
import type { EmbeddingRequest } from '../../src/protocol/embeddings';

/** Where one request's replies go; nothing is sent after `end` or `error`, or once the caller aborted. */
export interface RequestSink {
  accepted(): void;
  start(fingerprint: string): void;
  event(event: EngineEvent): void;
  end(): void;
  /** `spent`: what a generation that had started cost before it failed, when the engine can tell. */
  error(error: ApiError, spent?: Usage): void;
  /** The caller aborted a generation that had started; `spent`: what it cost until it stopped. */
  aborted?(spent: Usage | null): void;
}

interface Job {
  id: string;
  request: PlannedRequest | EmbeddingRequest;
  sink: RequestSink;
  abort: AbortController;
}

export class Scheduler {
  private readonly waiting: Job[] = [];
  private running: Job | null = null;
  /** Moving average of how long a job holds the engine, for `retry-after`. */
  private averageMs = 1000;

  private readonly engine: CompleteEngine;

  constructor(
    engine: Engine,
    private readonly depth: number,
  ) {
    this.engine = complete(engine);
  }

  get queued(): number {
    return this.waiting.length;
  }

  get busy(): boolean {
    return this.running !== null;
  }

  submit(id: string, given: EngineRequest, sink: RequestSink): void {
    if (this.running && this.waiting.length >= this.depth) {
      const retryAfter = Math.max(1, Math.ceil((this.averageMs * (this.waiting.length + 1)) / 1000));
      sink.error(
        new ApiError('queue_full', `The generation queue is full (${this.depth} waiting); retry in ${retryAfter} s.`, { retryAfter }),
      );
      return;
    }
    let request: PlannedRequest | EmbeddingRequest;
    try {
      // The one plan of a chat request, made before any engine sees it (shared/plan.ts).
      request = isEmbeddingRequest(given) ? given : withPlan(given);
      // A request this engine cannot honour is refused now, not after waiting its turn.
      if (!isEmbeddingRequest(request)) this.engine.supports(request);
      else if (!this.engine.has.has('embed')) throw cannotEmbed(request.model);
    } catch (err) {
      sink.error(ApiError.from(err));
      return;
    }
    sink.accepted();
    this.waiting.push({ id, request, sink, abort: new AbortController() });
    void this.pump();
  }

  /** Takes a waiting request out of the queue, or interrupts the running one. */
  abort(id: string): void {
    const index = this.waiting.findIndex((job) => job.id === id);
    if (index >= 0) {
      this.waiting.splice(index, 1);
      return;
    }
    if (this.running?.id === id) this.running.abort.abort();
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    const job = this.waiting.shift();
    if (!job) return;
    this.running = job;
    const began = performance.now();
    try {
      await this.run(job);
    } finally {
      this.averageMs = 0.8 * this.averageMs + 0.2 * (performance.now() - began);
      this.running = null;
      void this.pump();
    }
  }

  private async run({ request, sink, abort }: Job): Promise<void> {
    const { signal } = abort;
    let started: Generation | null = null;
    /** What the started generation cost, once it has stopped (null: the engine cannot tell). */
    const spent = async (): Promise<Usage | null> => (started?.spent ? started.spent().catch(() => null) : null);
    try {
      // Embeddings wait their turn in the same queue as generations: one request holds the GPU at a time.
      const generation: Generation = isEmbeddingRequest(request)
        ? await this.engine.embed(request, signal)
        : await this.engine.generate(request, signal);
      if (signal.aborted) return;
      sink.start(generation.fingerprint);
      started = generation;
      for await (const event of generation.events) {
        if (signal.aborted) break;
        sink.event(event);
      }
      if (!signal.aborted) sink.end();
    } catch (err) {
      if (!signal.aborted) {
        const cost = await spent();
        sink.error(ApiError.from(err), cost ?? undefined);
      }
    }
    // Aborted after it began: the engine has stopped (its events ended); say what it cost. Held in the queue
    // until then, as the GPU was.
    if (signal.aborted && started) sink.aborted?.(await spent());
  }
}
