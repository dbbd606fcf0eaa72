// The upstream engine (docs/hybrid.md): sends a request inpage has already checked to an OpenAI-compatible server
// (vLLM, Ollama, llama-server, LM Studio, a hosted API behind the deployment's own backend) and streams its answer
// back as engine events, so the service worker writes JSON or SSE, Responses and legacy completions exactly as for a
// local answer. It never queues: the composite (worker/engine/hybrid.ts) and the scheduler bound how many requests
// run at once per upstream.
import { ApiError } from '#shared/protocol/errors';
import type { EngineEvent, ModelStatus } from '#shared/wire/engine-port';
import type { ConnectionTest } from '#shared/wire/engine-control';
import type { PlannedRequest } from '../common/plan';
import type { ChatCompletionRequest } from '#shared/protocol/types';
import type { EmbeddingRequest } from '#shared/protocol/embeddings';
import { embeddingFinish } from '#shared/wire/engine-port';
import type { UpstreamSpec } from '#shared/upstreams';
import type { Engine, Generation } from '../engine';
import { assertUpstreamSupports, chatBody, embeddingsBody } from './dialects';
import { ChunkReader, callerMessage, describeUpstream, httpError, usageCount } from './wire';
import { readSseData } from '#shared/protocol/sse-reader';
import { readCapped } from './read-capped';
import { assertImagesAllowed } from '../common/images';

export { describeUpstream } from './wire';

/** Where one id goes upstream: the server and its name for the model. */
export interface UpstreamTarget {
  spec: UpstreamSpec;
  model: string;
}

/** An estimate of a prompt's tokens (four characters a token) for servers that report no usage. */
function estimateTokens(request: ChatCompletionRequest): number {
  let chars = request.raw_prompt?.length ?? 0;
  for (const m of request.messages) chars += typeof m.content === 'string' ? m.content.length : JSON.stringify(m.content).length;
  return Math.max(1, Math.ceil(chars / 4));
}

/** `fetch` and a clock, swappable in unit tests. */
export interface UpstreamDeps {
  fetch: typeof fetch;
  online(): boolean;
}

const realDeps: UpstreamDeps = {
  fetch: (input, init) => fetch(input, init),
  online: () => (typeof navigator === 'undefined' ? true : navigator.onLine !== false),
};

/** Which image URLs a request may send upstream: the local engines' rule (src/shared/csp.ts `imageUrlAllowed`). */
export type ImageRule = (url: string) => boolean;
/** Without the deployment's rule (unit tests): data: URLs only. */
export const DATA_URLS_ONLY: ImageRule = (url) => /^data:/i.test(url);

/**
 * One engine for every upstream: `targets` says, per id, which server answers and its model name. Statuses say
 * `ready` for every routed id (the server is asked only when a request comes).
 */
export class UpstreamEngine implements Engine {
  private readonly listeners: (() => void)[] = [];

  constructor(
    private readonly targets: Record<string, UpstreamTarget>,
    private readonly deps: UpstreamDeps = realDeps,
    private readonly images: ImageRule = DATA_URLS_ONLY,
  ) {}

  target(id: string): UpstreamTarget {
    const target = this.targets[id];
    if (!target) throw new ApiError('upstream_unavailable', `No upstream serves '${id}' here.`);
    return target;
  }

  /**
   * A watch on the upstream's first token: `signal` aborts with the caller's signal, or when `timeoutMs` passes before
   * `done()` (then `timedOut()` is true). Nothing from the server until then is 504 `upstream_timeout`, never a hang.
   */
  private watch(spec: UpstreamSpec, signal: AbortSignal) {
    const watchdog = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      watchdog.abort();
    }, spec.timeoutMs);
    const who = describeUpstream(spec.name, spec.url);
    return {
      signal: AbortSignal.any([signal, watchdog.signal]),
      timedOut: () => timedOut,
      timeout: () => new ApiError('upstream_timeout', `The upstream ${who} sent nothing within ${spec.timeoutMs} ms.`),
      done: () => clearTimeout(timer),
      /** Stops the request (the connection closes): a bound was passed, or the server went silent. */
      abort: () => watchdog.abort(),
    };
  }

  /**
   * POSTs `body` to `{url}{path}` and resolves with the server's answer once its status is read. Anything before that
   * is thrown as inpage's error (the composite may fall over); `watch.signal` aborts the request at any point.
   */
  private post(target: UpstreamTarget, path: string, body: unknown, signal: AbortSignal, watch: ReturnType<UpstreamEngine['watch']>): Promise<Response> {
    return this.send(target.spec, path, body, signal, watch);
  }

  /**
   * Sends to `{url}{path}` (a POST of `body` as JSON, or a GET without one) with the upstream's credentials rule and
   * key, and resolves with the server's answer once its status is read; what fails before that is inpage's error.
   */
  private async send(
    spec: UpstreamSpec,
    path: string,
    body: unknown,
    signal: AbortSignal,
    watch: ReturnType<UpstreamEngine['watch']>,
    seen?: (status: number) => void,
  ): Promise<Response> {
    const who = describeUpstream(spec.name, spec.url);
    if (!this.deps.online()) throw new ApiError('upstream_unavailable', `The browser is offline: the upstream ${who} cannot be reached.`);
    const headers: Record<string, string> = { accept: 'text/event-stream, application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (spec.key) headers.authorization = `Bearer ${spec.key}`;
    try {
      const res = await this.deps.fetch(`${spec.url}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        credentials: spec.credentials,
        signal: watch.signal,
        cache: 'no-store',
        redirect: 'error',
      });
      seen?.(res.status);
      if (!res.ok) throw await httpError(res, who, spec);
      return res;
    } catch (err) {
      if (err instanceof ApiError) throw err;
      if (signal.aborted) throw err;
      if (watch.timedOut()) throw watch.timeout();
      // A browser tells a refused CORS request (vLLM's 401 carries no CORS headers) from a dead server by nothing.
      throw new ApiError(
        'upstream_unavailable',
        `The upstream ${who} could not be reached (${callerMessage(err instanceof Error ? err.message : String(err), spec.key)}): it is down, or it refused this origin (CORS; a server that answers 401 without CORS headers looks the same).`,
      );
    }
  }

  supports(request: PlannedRequest): void {
    const target = this.targets[request.variant.id];
    if (target) assertUpstreamSupports(request, target.spec.dialect);
    if (target) assertImagesAllowed(request.messages, this.images);
  }

  async generate(request: PlannedRequest, signal: AbortSignal): Promise<Generation> {
    const target = this.target(request.variant.id);
    const { spec } = target;
    // An image URL the local engines may not fetch is refused before anything is sent: the server would fetch it.
    assertImagesAllowed(request.messages, this.images);
    const body = chatBody(request, spec.dialect, target.model);
    const watch = this.watch(spec, signal);
    try {
      return await this.stream(target, request, body, signal, watch);
    } catch (err) {
      if (!(err instanceof ApiError) && !signal.aborted && watch.timedOut()) throw watch.timeout();
      throw err;
    } finally {
      watch.done();
    }
  }

  /** The chat request's answer: resolves at its first event (text, reasoning or a call), read through `watch`. */
  private async stream(
    target: UpstreamTarget,
    request: ChatCompletionRequest,
    body: Record<string, unknown>,
    signal: AbortSignal,
    watch: ReturnType<UpstreamEngine['watch']>,
  ): Promise<Generation> {
    const { spec } = target;
    const who = describeUpstream(spec.name, spec.url);
    const res = await this.post(target, request.raw_prompt !== undefined ? '/completions' : '/chat/completions', body, signal, watch);
    const type = res.headers.get('content-type') ?? '';
    const json = /json/i.test(type) && !/event-stream/i.test(type);
    const reader = new ChunkReader(who, estimateTokens(request), { ...spec, expectDone: !json });
    let source: AsyncIterator<EngineEvent[]>;
    if (json) {
      // A server that answered one JSON body despite `stream: true`: read up to the answer's bound.
      const text = await readCapped(res, spec.maxAnswerBytes, 'refuse', who, 'maxAnswerBytes');
      source = (async function* () {
        yield reader.chunk(text);
      })();
    } else {
      if (!res.body) throw new ApiError('upstream_error', `The upstream ${who} sent an empty answer.`);
      const payloads = readSseData(res.body, { signal: watch.signal, bounds: spec, who });
      source = (async function* () {
        try {
          for await (const payload of payloads) yield reader.chunk(payload);
        } catch (err) {
          if (err instanceof ApiError || signal.aborted) throw err;
          if (watch.timedOut()) throw watch.timeout();
          // The connection broke off mid-answer (the server died, the network went).
          throw new ApiError(
            'upstream_error',
            `The upstream ${who} broke off its answer (${callerMessage(err instanceof Error ? err.message : String(err), spec.key)}).`,
          );
        }
      })();
    }
    // Read up to the first event of the answer before saying it began: a failure until then can still fall over.
    const early: EngineEvent[] = [];
    let ended = false;
    while (!reader.began) {
      const next = await source.next();
      if (next.done) {
        ended = true;
        break;
      }
      early.push(...next.value);
    }
    if (watch.timedOut()) throw watch.timeout();
    const events = (async function* (): AsyncGenerator<EngineEvent> {
      try {
        yield* early;
        if (!ended) {
          for (;;) {
            if (signal.aborted) return;
            const next = await idle(source.next(), spec.idleMs, who);
            if (next.done) break;
            yield* next.value;
          }
        }
        if (signal.aborted) return;
        yield reader.finish();
      } finally {
        // However the answer ended (a bound, silence, the client gone, its finish), the request is over.
        watch.abort();
        void source.return?.(undefined)?.catch(() => undefined);
      }
    })();
    if (ended && early.length === 0) reader.finish(); // throws: the stream ended before any answer
    return { fingerprint: fingerprintOf(spec.name, target.model), events, servedBy: servedByUpstream(spec) };
  }

  async embed(request: EmbeddingRequest, signal: AbortSignal): Promise<Generation> {
    const target = this.target(request.model);
    const { spec } = target;
    const who = describeUpstream(spec.name, spec.url);
    const watch = this.watch(spec, signal);
    let parsed: unknown;
    try {
      const res = await this.post(target, '/embeddings', embeddingsBody(request, target.model), signal, watch);
      try {
        parsed = JSON.parse(await readCapped(res, spec.maxAnswerBytes, 'refuse', who, 'maxAnswerBytes'));
      } catch (err) {
        if (err instanceof ApiError || signal.aborted) throw err;
        if (watch.timedOut()) throw watch.timeout();
        throw new ApiError('upstream_error', `The upstream ${who} sent an embeddings answer that is not JSON.`);
      }
    } finally {
      watch.done();
    }
    const data = (parsed as { data?: unknown })?.data;
    if (!Array.isArray(data) || data.length !== request.input.length) {
      throw new ApiError('upstream_error', `The upstream ${who} sent ${Array.isArray(data) ? data.length : 'no'} vectors for ${request.input.length} inputs.`);
    }
    const vectors: number[][] = new Array(request.input.length);
    data.forEach((item: unknown, i) => {
      const v = item as { index?: unknown; embedding?: unknown };
      const at = typeof v?.index === 'number' ? v.index : i;
      if (!Array.isArray(v?.embedding) || !v.embedding.every((x) => typeof x === 'number' && Number.isFinite(x)) || at < 0 || at >= vectors.length) {
        throw new ApiError('upstream_error', `The upstream ${who} sent a vector inpage cannot read (data[${i}]).`);
      }
      vectors[at] = v.embedding as number[];
    });
    const usage = (parsed as { usage?: { prompt_tokens?: unknown } }).usage;
    const prompt = usageCount(usage?.prompt_tokens) ?? request.input.reduce((n, x) => n + (typeof x === 'string' ? Math.ceil(x.length / 4) : x.length), 0);
    const events: EngineEvent[] = [...vectors.map((embedding, index) => ({ type: 'embedding' as const, index, embedding })), embeddingFinish(prompt)];
    return {
      fingerprint: fingerprintOf(spec.name, target.model),
      events: (async function* () {
        yield* events;
      })(),
      servedBy: servedByUpstream(spec),
    };
  }

  /**
   * The workspace's test of a connection (docs/hybrid.md): `GET {url}/models` sent as this engine sends its requests
   * (the key, the credentials rule, the first-byte timeout, the answer's bound): the model names the server lists, or
   * inpage's error with the HTTP status the server answered (none: it was not reached).
   */
  async check(spec: UpstreamSpec, signal: AbortSignal): Promise<ConnectionTest> {
    const who = describeUpstream(spec.name, spec.url);
    const watch = this.watch(spec, signal);
    let status: number | null = null;
    try {
      const res = await this.send(spec, '/models', undefined, signal, watch, (s) => (status = s));
      const text = await readCapped(res, spec.maxAnswerBytes, 'refuse', who, 'maxAnswerBytes');
      let data: unknown;
      try {
        data = (JSON.parse(text) as { data?: unknown } | null)?.data;
      } catch {
        // not JSON: said below
      }
      if (!Array.isArray(data))
        throw new ApiError('upstream_error', `The upstream ${who} answered GET /models without a list of models: is the base URL the server's /v1?`);
      return { ok: true, models: data.map((m: unknown) => (m as { id?: unknown } | null)?.id).filter((id): id is string => typeof id === 'string') };
    } catch (err) {
      const error = !(err instanceof ApiError) && !signal.aborted && watch.timedOut() ? watch.timeout() : ApiError.from(err, 'upstream_error');
      return { ok: false, status, code: error.code, message: error.message };
    } finally {
      watch.done();
    }
  }

  status(): ModelStatus[] {
    return Object.keys(this.targets).map((id) => ({ id, state: 'ready', context_length: 0 }));
  }

  onStatus(listener: () => void): void {
    this.listeners.push(listener);
  }
}

/**
 * The next piece of an answer that has begun, or an in-band 504 `upstream_timeout` when the server sends nothing for
 * `ms` (its `idleMs` bound): a server that sends one token and then nothing does not hold a lane until the client goes.
 */
async function idle<T>(next: Promise<T>, ms: number, who: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const silent = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ApiError(
            'upstream_timeout',
            `The upstream ${who} sent nothing for ${ms} ms in the middle of its answer (its 'idleMs' bound): the answer stops here.`,
          ),
        ),
      ms,
    );
  });
  try {
    return await Promise.race([next, silent]);
  } finally {
    clearTimeout(timer);
  }
}

/** `fp_` and the upstream's name and model, as one token (system_fingerprint). */
function fingerprintOf(name: string, model: string): string {
  return `fp_upstream_${`${name}_${model}`.replace(/[^\w.:/-]+/g, '_')}`;
}

/** The `x-inpage-served-by` value of an upstream answer: `upstream; host=…`. */
export function servedByUpstream(spec: Pick<UpstreamSpec, 'url'>): string {
  let host = '';
  try {
    host = new URL(spec.url).host;
  } catch {
    // a URL was checked at start-up
  }
  return `upstream; host=${host}`;
}
