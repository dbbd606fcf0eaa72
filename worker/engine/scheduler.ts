// One generation at a time, first come first served, with a bounded wait list (429 beyond it). Hybrid
// (docs/hybrid.md): a request an upstream answers runs at once on that upstream's side, beside the local queue, up to
// the upstream's limit (429 beyond it); a side that fails before its first token hands the request to the next side
// the engine's route allows. Each side carries what runs it (engine.ts `Side`).
import { ApiError } from '#shared/protocol/errors';
import type { EngineEvent, EngineRequest } from '#shared/wire/engine-port';
import type { Usage } from '#shared/protocol/types';
import { isEmbeddingRequest } from '#shared/protocol/embeddings';
import type { Engine, Generation, Side } from './engine';
import { cannotEmbed, complete, type CompleteEngine } from './capabilities';
import { withPlan, type PlannedRequest } from './common/plan';
import type { EmbeddingRequest } from '#shared/protocol/embeddings';

/** Failures of a side that mean "this side cannot answer now" (not "this request is wrong"): the next side may try. */
const FALLS_OVER: ReadonlySet<string> = new Set([
  'upstream_unavailable',
  'upstream_timeout',
  'upstream_error',
  'queue_full',
  'engine_unavailable',
  'webgpu_unavailable',
  'model_load_failed',
  'model_too_large_for_device',
]);

/** Where one request's replies go; nothing is sent after `end` or `error`, or once the caller aborted. */
export interface RequestSink {
  accepted(): void;
  /** `servedBy`: where it runs, for the `x-inpage-served-by` header (absent: local). */
  start(fingerprint: string, servedBy?: string): void;
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
  /** The sides the engine's route allows, in order, and the one tried now. */
  sides: readonly Side[];
  at: number;
  /** The failure of an earlier side, said along with the last one's if every side fails. */
  earlier?: ApiError;
  isAccepted?: boolean;
}

export class Scheduler {
  private readonly waiting: Job[] = [];
  private running: Job | null = null;
  /** Moving average of how long a job holds the engine, for `retry-after`. */
  private averageMs = 1000;

  private engine: CompleteEngine;
  /** The sides beside the local queue (an upstream, the provider), by name: the jobs running there now. */
  private readonly beside = new Map<string, Set<Job>>();

  constructor(
    engine: Engine,
    /** Requests that may wait behind the running one (`queueDepth`, docs/configuration.md). */
    private depth: number,
  ) {
    this.engine = complete(engine);
  }

  /** A new depth for the next requests (the deployment's setting changed); those waiting keep their place. */
  resize(depth: number): void {
    this.depth = depth;
  }

  /**
   * Runs the next requests on `engine` (the engine worker's composite with upstreams, once a person adds the first
   * connection): the same queue, so the local engine still runs one at a time; requests running finish where they are.
   */
  use(engine: Engine): void {
    this.engine = complete(engine);
  }

  get queued(): number {
    return this.waiting.length;
  }

  get busy(): boolean {
    return this.running !== null;
  }

  submit(id: string, given: EngineRequest, sink: RequestSink): void {
    let request: PlannedRequest | EmbeddingRequest;
    let sides: readonly Side[];
    try {
      // The one plan of a chat request, made before any engine sees it (common/plan.ts).
      request = isEmbeddingRequest(given) ? given : withPlan(given);
      sides = this.engine.route(request);
    } catch (err) {
      sink.error(ApiError.from(err));
      return;
    }
    this.dispatch({ id, request, sink, abort: new AbortController(), sides, at: 0 });
  }

  /** Sends the job to its current side, or on to the next when this one cannot take it now. */
  private dispatch(job: Job): void {
    const side = job.sides[job.at];
    if (!side) return;
    const more = job.at + 1 < job.sides.length;
    if (side.kind !== 'local') {
      const running = this.beside.get(side.name) ?? new Set<Job>();
      this.beside.set(side.name, running);
      // The provider's side holds what this site's queue would: one running, `depth` waiting (engine.ts Side).
      const limit = side.kind === 'upstream' ? side.limit : this.depth + 1;
      if (running.size >= limit) {
        const full = new ApiError(
          'queue_full',
          side.kind === 'upstream'
            ? `The upstream '${side.name}' is answering ${limit} requests, its limit; retry in 1 s.`
            : `The model provider '${side.name}' holds ${limit} requests of this site (one running and the queue's depth, ${this.depth}, waiting); retry in 1 s.`,
          { retryAfter: 1 },
        );
        return this.next(job, full, more);
      }
      this.accept(job);
      running.add(job);
      void this.run(job, side).finally(() => running.delete(job));
      return;
    }
    if (this.running && this.waiting.length >= this.depth) {
      const retryAfter = Math.max(1, Math.ceil((this.averageMs * (this.waiting.length + 1)) / 1000));
      const full = new ApiError('queue_full', `The generation queue is full (${this.depth} waiting); retry in ${retryAfter} s.`, { retryAfter });
      return this.next(job, full, more);
    }
    try {
      // A request this engine cannot honour is refused now, not after waiting its turn.
      if (!isEmbeddingRequest(job.request)) side.supports(job.request);
      else if (!this.engine.has.has('embed')) throw cannotEmbed(job.request.model);
    } catch (err) {
      return this.next(job, ApiError.from(err), more);
    }
    this.accept(job);
    this.waiting.push(job);
    void this.pump();
  }

  private accept(job: Job): void {
    if (job.isAccepted) return;
    job.isAccepted = true;
    job.sink.accepted();
  }

  /** A side failed before it began: the next side, if the failure allows it, or the error (with the earlier one's words). */
  private next(job: Job, error: ApiError, more: boolean, spent?: Usage): void {
    const side = job.sides[job.at];
    const fallsOver = (side?.kind !== 'local' && side?.fallsOver) || FALLS_OVER;
    if (more && fallsOver.has(error.code) && !job.abort.signal.aborted) {
      job.earlier ??= error;
      job.at++;
      this.dispatch(job);
      return;
    }
    const said =
      job.earlier && job.earlier.message !== error.message
        ? new ApiError(error.code, `${error.message} (Tried first: ${job.earlier.message})`, {
            param: error.param,
            retryAfter: error.retryAfter,
            status: error.status,
          })
        : error;
    job.sink.error(said, spent);
  }

  /** Takes a waiting request out of the queue, or interrupts the running one. */
  abort(id: string): void {
    const index = this.waiting.findIndex((job) => job.id === id);
    if (index >= 0) {
      this.waiting[index]!.abort.abort();
      this.waiting.splice(index, 1);
      return;
    }
    if (this.running?.id === id) this.running.abort.abort();
    for (const running of this.beside.values()) for (const job of running) if (job.id === id) job.abort.abort();
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    const job = this.waiting.shift();
    if (!job) return;
    this.running = job;
    const began = performance.now();
    try {
      await this.run(job, job.sides[job.at]!);
    } finally {
      this.averageMs = 0.8 * this.averageMs + 0.2 * (performance.now() - began);
      this.running = null;
      void this.pump();
    }
  }

  private async run(job: Job, side: Side): Promise<void> {
    const { request, sink, abort } = job;
    const { signal } = abort;
    let started: Generation | null = null;
    /** What the started generation cost, once it has stopped (null: the engine cannot tell). */
    const spent = async (): Promise<Usage | null> => (started?.spent ? started.spent().catch(() => null) : null);
    try {
      // Embeddings wait their turn in the same queue as generations: one request holds the GPU at a time.
      const generation: Generation = isEmbeddingRequest(request) ? await side.embed(request, signal) : await side.generate(request, signal);
      if (signal.aborted) return;
      sink.start(generation.fingerprint, generation.servedBy);
      started = generation;
      for await (const event of generation.events) {
        if (signal.aborted) break;
        sink.event(event);
      }
      if (!signal.aborted) sink.end();
    } catch (err) {
      if (!signal.aborted) {
        const error = ApiError.from(err);
        if (!started) {
          // Before its first token: the next side, where the route allows (after this turn: the local queue's
          // pump must move on first).
          queueMicrotask(() => this.next(job, error, job.at + 1 < job.sides.length));
        } else {
          const cost = await spent();
          sink.error(error, cost ?? undefined);
        }
      }
    }
    // Aborted after it began: the engine has stopped (its events ended); say what it cost. Held in the queue
    // until then, as the GPU was.
    if (signal.aborted && started) sink.aborted?.(await spent());
  }
}
