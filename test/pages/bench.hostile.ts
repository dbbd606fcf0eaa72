// Test build only: property-based hostile input against the real service worker, run inside the page so
// thousands of cases cost milliseconds each. Every generated request goes to /v1 with fetch; every answer
// must be a contract-shaped error or a valid completion / stream / model list, the service worker must never
// fail (no network error, no 500), and a plain valid request right after each case must still succeed.
import fc from 'fast-check';
import { VARIANT_IDS } from '#shared/variants';
import { anyText, hostileHistory, message, word } from './hostile-histories';

/** docs/contract.md "Errors": code → status, written out from the contract rather than imported from the code. */
const CONTRACT_STATUS: Record<string, number> = {
  invalid_json: 400,
  invalid_content_type: 400,
  missing_required_parameter: 400,
  invalid_type: 400,
  invalid_value: 400,
  unsupported_parameter: 400,
  context_length_exceeded: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  model_not_found: 404,
  unknown_url: 404,
  method_not_allowed: 405,
  request_too_large: 413,
  queue_full: 429,
  internal_error: 500,
  engine_unavailable: 503,
  webgpu_unavailable: 503,
  model_load_failed: 503,
};
const typeFor = (code: string) => (code === 'queue_full' ? 'rate_limit_exceeded' : CONTRACT_STATUS[code]! >= 500 ? 'server_error' : 'invalid_request_error');

export interface HostileKeys {
  /** Reaches every model. */
  all: string;
  /** Reaches svc-model-5.2-fast only. */
  fastOnly: string;
  /** Revoked before the run. */
  revoked: string;
}

interface Case {
  method: string;
  path: string;
  headers: [string, string][];
  body: string | Uint8Array | null;
  /** A request the service must answer 200 with exactly `expect` as content (JSON or streamed). */
  plain?: { expect: string; stream: boolean };
  /** A valid request with one field the model cannot honour: must get 400 with exactly this code and param. */
  refused?: { code: string; param: string | null };
  /** A body nested this many levels (objects and arrays, the body counting as one): over 64 must get 400 invalid_value. */
  depth?: number;
}

export interface HostileReport {
  numRuns: number;
  failed: boolean;
  seed: number;
  counterexample: string | null;
  error: string | null;
  /** How many answers had each status (HEAD included). */
  statuses: Record<string, number>;
  /** How many error answers had each code. */
  codes: Record<string, number>;
  /** Answers that were a 200 completion, stream or model list. */
  successes: number;
  /** Cases `new Request` itself refused (never reach the service worker; not counted as runs of the service). */
  refusedByFetch: number;
  /** Full-key strings the answers echoed back (must stay empty). */
  keyLeaks: number;
  /** Deep bodies (see `deepCase`) refused for their depth, and those within the limit that were answered. */
  deep: { refused: number; within: number };
}

const printable = fc.string({ unit: 'grapheme-ascii', maxLength: 40 });
const base64urlChar = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.split(''));

function arbitraries(keys: HostileKeys) {
  const fakeKey = fc.string({ unit: base64urlChar, minLength: 43, maxLength: 43 }).map((s) => `sk-svc-${s}`);
  const authorization = fc.oneof(
    { weight: 6, arbitrary: fc.constant(`Bearer ${keys.all}`) },
    fc.constant(`Bearer ${keys.fastOnly}`),
    fc.constant(`Bearer ${keys.revoked}`),
    fc.constant(`bearer    ${keys.all}   `),
    fc.constant('Bearer'),
    fc.constant('Bearer '),
    fakeKey.map((k) => `Bearer ${k}`),
    printable.map((s) => `Bearer ${s}`),
    printable.map((s) => `Basic ${s}`),
    printable,
    fc.constant(`Bearer ${keys.all.slice(0, -1)}`),
    fc.constant(`Bearer ${keys.all}x`),
  );
  const contentType = fc.oneof(
    { weight: 6, arbitrary: fc.constant('application/json') },
    fc.constant('application/json; charset=utf-8'),
    fc.constant('APPLICATION/JSON'),
    fc.constant('application/json;'),
    fc.constant('text/plain'),
    fc.constant('application/jsonx'),
    fc.constant('multipart/form-data; boundary=x'),
    fc.constant('application/x-www-form-urlencoded'),
    printable,
  );
  const headerName = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/).filter((n) => n !== 'authorization' && n !== 'content-type');
  const extraHeaders = fc.array(fc.tuple(headerName, printable), { maxLength: 3 });

  const validish = fc.record(
    {
      model: fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...VARIANT_IDS) }, word, fc.constant('gpt-4o')),
      messages: fc.oneof({ weight: 3, arbitrary: fc.array(message, { minLength: 1, maxLength: 4 }) }, hostileHistory),
      stream: fc.boolean(),
      stream_options: fc.record({ include_usage: fc.boolean() }),
      temperature: fc.double({ min: -1, max: 3, noNaN: true }),
      top_p: fc.double({ min: -0.5, max: 1.5, noNaN: true }),
      max_tokens: fc.integer({ min: -2, max: 64 }),
      max_completion_tokens: fc.integer({ min: 0, max: 5000 }),
      stop: fc.oneof(anyText, fc.array(anyText, { maxLength: 6 })),
      seed: fc.oneof(fc.integer(), fc.double()),
      presence_penalty: fc.double({ min: -3, max: 3, noNaN: true }),
      frequency_penalty: fc.double({ min: -3, max: 3, noNaN: true }),
      n: fc.integer({ min: 0, max: 3 }),
      logprobs: fc.boolean(),
      top_logprobs: fc.integer({ min: -1, max: 7 }),
      response_format: fc.oneof(
        fc.record({ type: fc.constantFrom('text', 'json_object') }),
        fc.record({ type: fc.constant('json_schema'), json_schema: fc.record({ name: word, schema: fc.constant({ type: 'object' }) }) }),
        fc.record({ type: word }),
      ),
      reasoning_effort: fc.constantFrom('none', 'minimal', 'low', 'medium', 'high', 'max'),
      user: anyText,
      unknown_field: fc.jsonValue(),
    },
    { requiredKeys: [] },
  );
  // A valid-ish body with one field (or the whole of something) swapped for any JSON value.
  const mutated = fc
    .tuple(validish, fc.constantFrom('model', 'messages', 'stream', 'stop', 'max_tokens', 'temperature', 'response_format', 'stream_options'), fc.jsonValue())
    .map(([body, field, value]) => ({ ...body, [field]: value }));
  const jsonBody = fc.oneof(
    { weight: 5, arbitrary: validish.map((b) => JSON.stringify(b)) },
    { weight: 2, arbitrary: mutated.map((b) => JSON.stringify(b)) },
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.string({ unit: 'grapheme', maxLength: 200 }),
    fc.constant(''),
    fc.constant('{"model":"svc-model-5.2-fast","messages":[{"role":"user","content":"hi"}]'),
    fc.constant('['.repeat(5000)),
    fc.constant(`{"a":${'['.repeat(3000)}${']'.repeat(3000)}}`),
    fc.constant('{"model":"svc-model-5.2-fast","messages":[{"role":"user","content":"hi"}],"__proto__":{"stream":true}}'),
    fc.constant('{"model":"svc-model-5.2-fast","model":"svc-vision","messages":[{"role":"user","content":"dup"}]}'),
  );
  const binaryBody = fc.uint8Array({ maxLength: 200 });
  const body = fc.oneof({ weight: 8, arbitrary: jsonBody }, binaryBody, fc.constant(null));

  const method = fc.oneof(
    { weight: 10, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD') },
    fc.constantFrom('post', 'get', 'Post', 'PROPFIND', 'QUERY'),
    fc.stringMatching(/^[A-Z]{1,10}$/).filter((m) => !['CONNECT', 'TRACE', 'TRACK'].includes(m)),
  );
  const segment = fc.oneof(word, fc.webSegment(), anyText.map(encodeURIComponent), fc.constantFrom('%', '%zz', '%E0%A4%A', '..', '.', '%2F', '%00', ';x=1'));
  const path = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom('/v1/chat/completions', '/v1/models', '/v1/models/svc-model-5.2-fast', '/v1/models/svc-vision') },
    fc.constantFrom('/v1', '/v1/', '/v1/chat', '/v1/chat/completions/', '/v1//models', '/v1/completions', '/v1/embeddings', '/v1/models/'),
    segment.map((s) => `/v1/models/${s}`),
    fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `/v1/${parts.join('/')}`),
  );
  const query = fc.oneof(
    { weight: 5, arbitrary: fc.constant('') },
    fc.webQueryParameters().map((q) => `?${q}`),
  );

  const headerList = (authorization: string | undefined, contentType: string | undefined, extra: [string, string][]) => {
    const headers: [string, string][] = [...extra];
    if (authorization !== undefined) headers.push(['authorization', authorization]);
    if (contentType !== undefined) headers.push(['content-type', contentType]);
    return headers;
  };
  const goodAuth = fc.constantFrom(`Bearer ${keys.all}`, `Bearer ${keys.all}`, `Bearer ${keys.fastOnly}`);
  // Bodies: POST /v1/chat/completions with a good key and content type, any body.
  const bodies: fc.Arbitrary<Case> = fc.record({ auth: goodAuth, body: jsonBody, extra: extraHeaders }).map(({ auth, body, extra }) => ({
    method: 'POST',
    path: '/v1/chat/completions',
    headers: headerList(auth, 'application/json', extra),
    body,
  }));
  // Headers: the chat route with any authorization and content type, a valid-ish body.
  const headerCases: fc.Arbitrary<Case> = fc
    .record({
      authorization: fc.option(authorization, { nil: undefined, freq: 6 }),
      contentType: fc.option(contentType, { nil: undefined, freq: 6 }),
      extra: extraHeaders,
      body: fc.oneof(
        validish.map((b) => JSON.stringify(b)),
        binaryBody,
      ),
    })
    .map(({ authorization, contentType, extra, body }) => ({
      method: 'POST',
      path: '/v1/chat/completions',
      headers: headerList(authorization, contentType, extra),
      body,
    }));

  // Routes: any method, path, headers and body.
  const routes: fc.Arbitrary<Case> = fc
    .record({
      method,
      path: fc.tuple(path, query).map(([p, q]) => p + q),
      authorization: fc.option(authorization, { nil: undefined, freq: 8 }),
      contentType: fc.option(contentType, { nil: undefined, freq: 8 }),
      extra: extraHeaders,
      body,
    })
    .map(({ method, path, authorization, contentType, extra, body }) => {
      const bodyless = ['GET', 'HEAD'].includes(method.toUpperCase());
      return { method, path, headers: headerList(authorization, contentType, extra), body: bodyless ? null : body };
    });

  const validHeaders: [string, string][] = [
    ['authorization', `Bearer ${keys.all}`],
    ['content-type', 'application/json'],
  ];
  // Valid requests with only the fields every text variant honours: these must answer 200 with the echo.
  const plainText = fc.array(fc.stringMatching(/^[A-Za-z0-9,.!?'"<>&;:()éü中😀-]{1,10}$/u), { minLength: 1, maxLength: 6 }).map((w) => w.join(' '));
  const plain: fc.Arbitrary<Case> = fc
    .record({
      model: fc.constantFrom('svc-model-5.2-fast', 'svc-model-5.2-short-fast'),
      text: plainText.filter((t) => !/^(count|fail after) /.test(t)),
      stream: fc.boolean(),
      temperature: fc.option(fc.double({ min: 0, max: 2, noNaN: true }), { nil: undefined }),
      system: fc.option(anyText, { nil: undefined }),
      ignored: fc.option(fc.jsonValue(), { nil: undefined }),
    })
    .map(({ model, text, stream, temperature, system, ignored }) => {
      const messages = [...(system !== undefined ? [{ role: 'system', content: system }] : []), { role: 'user', content: text }];
      const body: Record<string, unknown> = { model, messages, stream };
      if (temperature !== undefined) body.temperature = temperature;
      if (ignored !== undefined) body.x_extension = ignored;
      const expected = (`Echo: ${text}`.match(/\s*\S+/g) ?? []).join('');
      return {
        method: 'POST',
        path: '/v1/chat/completions',
        headers: validHeaders,
        body: JSON.stringify(body),
        plain: { expect: expected, stream },
      };
    });

  // Valid requests but for one field the chosen variant cannot honour: 400 unsupported_parameter naming it.
  const refusal = fc.oneof(
    fc.integer({ min: 2, max: 8 }).map((n) => ({ model: 'svc-model-5.2-fast', extra: { n }, param: 'n', last: 'user' })),
    fc
      .constantFrom('low', 'medium', 'high')
      .map((effort) => ({ model: 'svc-model-5.2-short-fast', extra: { reasoning_effort: effort }, param: 'reasoning_effort', last: 'user' })),
    fc.constantFrom('svc-model-5.2-fast', 'svc-vision').map((model) => ({ model, extra: {}, param: 'messages[1].role', last: 'assistant' })),
  );
  const unsupported: fc.Arbitrary<Case> = fc.record({ refusal, text: plainText, stream: fc.boolean() }).map(({ refusal, text, stream }) => ({
    method: 'POST',
    path: '/v1/chat/completions',
    headers: validHeaders,
    body: JSON.stringify({
      model: refusal.model,
      messages: [
        { role: 'user', content: text },
        { role: refusal.last, content: text },
      ],
      stream,
      ...refusal.extra,
    }),
    refused: { code: 'unsupported_parameter', param: refusal.param },
  }));

  // Deep bodies: one part of a valid request nested 1 to 5,000 levels deep (an ignored field, the JSON schema,
  // a message's content, the stop list), as arrays or objects. Over 64 levels: 400 invalid_value naming the
  // top-level field, before anything clones or validates the body; up to 64, an ordinary answer (never a 500).
  const deepCase: fc.Arbitrary<Case> = fc
    .record({
      levels: fc.oneof(fc.integer({ min: 1, max: 70 }), fc.integer({ min: 1, max: 5000 })),
      kind: fc.constantFrom('array', 'object'),
      where: fc.constantFrom('x_extension', 'metadata', 'response_format', 'messages', 'stop'),
      stream: fc.boolean(),
    })
    .map(({ levels, kind, where, stream }) => {
      const nested = kind === 'array' ? '['.repeat(levels) + '1' + ']'.repeat(levels) : '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
      const text = '"hi"';
      // The containers the fixed part of each placement puts around `nested`, the body not included (it is the
      // 1 below): response_format's object and json_schema's; the messages array and its message.
      const [json, around] =
        where === 'response_format'
          ? [`{"type":"json_schema","json_schema":{"name":"s","schema":${nested}}}`, 2]
          : where === 'messages'
            ? [`[{"role":"user","content":${nested}}]`, 2]
            : [nested, 0];
      const messages = where === 'messages' ? json : `[{"role":"user","content":${text}}]`;
      const extra = where === 'messages' ? '' : `,"${where}":${json}`;
      const depth = 1 + around + levels;
      return {
        method: 'POST',
        path: '/v1/chat/completions',
        headers: validHeaders,
        body: `{"model":"svc-model-5.2-fast","stream":${stream},"messages":${messages}${extra}}`,
        depth,
        ...(depth > 64 ? { refused: { code: 'invalid_value', param: where } } : {}),
      };
    });

  return fc.oneof(
    { weight: 1, arbitrary: deepCase },
    { weight: 6, arbitrary: bodies },
    { weight: 2, arbitrary: headerCases },
    { weight: 3, arbitrary: routes },
    { weight: 1, arbitrary: plain },
    { weight: 1, arbitrary: unsupported },
  );
}

class Violation extends Error {}
const must = (ok: boolean, what: string): void => {
  if (!ok) throw new Violation(what);
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkError(status: number, text: string, headers: Headers): string {
  must(headers.get('content-type') === 'application/json; charset=utf-8', `error content-type ${headers.get('content-type')}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Violation(`error body is not JSON: ${text.slice(0, 200)}`);
  }
  must(isObject(body) && Object.keys(body).join() === 'error', `not {error}: ${text.slice(0, 200)}`);
  const error = (body as { error: unknown }).error;
  must(isObject(error), 'error is not an object');
  const e = error as Record<string, unknown>;
  must(Object.keys(e).sort().join() === 'code,message,param,type', `error keys ${Object.keys(e).join()}`);
  must(typeof e.message === 'string' && e.message.length > 0, 'empty message');
  must(e.param === null || typeof e.param === 'string', 'param not string|null');
  must(typeof e.code === 'string' && e.code in CONTRACT_STATUS, `unknown code ${String(e.code)}`);
  const code = e.code as string;
  must(CONTRACT_STATUS[code] === status, `code ${code} with status ${status}`);
  must(e.type === typeFor(code), `code ${code} with type ${String(e.type)}`);
  if (status === 405) must(!!headers.get('allow'), '405 without allow');
  if (status === 429) must(Number(headers.get('retry-after')) >= 1, '429 without retry-after');
  return code;
}

function checkModel(m: unknown): void {
  must(isObject(m), 'model not an object');
  const model = m as Record<string, unknown>;
  must(typeof model.id === 'string' && (VARIANT_IDS as readonly string[]).includes(model.id), `model id ${String(model.id)}`);
  must(model.object === 'model' && typeof model.created === 'number' && typeof model.owned_by === 'string', 'model fields');
  must(typeof model.context_length === 'number' && typeof model.reasoning === 'boolean' && typeof model.vision === 'boolean', 'model fields');
}

function checkCompletion(text: string): string {
  const c = JSON.parse(text) as Record<string, unknown>;
  must(c.object === 'chat.completion' && typeof c.id === 'string' && c.id.startsWith('chatcmpl-'), 'completion id/object');
  must(typeof c.created === 'number' && c.created < 1e11, 'created in seconds');
  const choices = c.choices as { index: number; message: { role: string; content: string; refusal: unknown }; finish_reason: string; logprobs: unknown }[];
  must(Array.isArray(choices) && choices.length === 1, 'one choice');
  const choice = choices[0]!;
  must(choice.message.role === 'assistant' && typeof choice.message.content === 'string' && choice.message.refusal === null, 'message');
  must(choice.finish_reason === 'stop' || choice.finish_reason === 'length', `finish_reason ${choice.finish_reason}`);
  must('logprobs' in choice, 'logprobs present');
  const usage = c.usage as Record<string, number>;
  must(isObject(usage) && usage.total_tokens === usage.prompt_tokens! + usage.completion_tokens!, 'usage');
  return choice.message.content;
}

function checkStream(text: string): string {
  must(text.endsWith('data: [DONE]\n\n'), `stream does not end with [DONE]: ${text.slice(-200)}`);
  const events = text.split('\n\n').filter(Boolean);
  let id: unknown;
  let content = '';
  let finished = false;
  for (const block of events.slice(0, -1)) {
    must(block.startsWith('data: ') && !block.includes('\n'), `bad SSE block ${block.slice(0, 100)}`);
    const chunk = JSON.parse(block.slice(6)) as Record<string, unknown>;
    must(!('error' in chunk), `in-band error: ${block.slice(0, 300)}`);
    must(chunk.object === 'chat.completion.chunk', 'chunk object');
    id ??= chunk.id;
    must(chunk.id === id && typeof id === 'string' && id.startsWith('chatcmpl-'), 'chunk id');
    const choices = chunk.choices as { delta: { content?: string }; finish_reason: string | null }[];
    if (choices.length === 0) {
      must(finished && isObject(chunk.usage), 'usage chunk after finish');
      continue;
    }
    content += choices[0]!.delta.content ?? '';
    if (choices[0]!.finish_reason) finished = true;
  }
  must(finished, 'no finish_reason');
  return content;
}

async function answer(c: Case, report: HostileReport, fullKeys: string[]): Promise<void> {
  let request: Request;
  try {
    request = new Request(c.path, { method: c.method, headers: c.headers, body: c.body as BodyInit | null });
  } catch {
    report.refusedByFetch++;
    fc.pre(false);
    return;
  }
  // Dot segments can lead out of /v1/, where the service worker rightly does not answer.
  const pathname = new URL(request.url).pathname;
  if (pathname !== '/v1' && !pathname.startsWith('/v1/')) {
    fc.pre(false);
    return;
  }
  let res: Response;
  try {
    res = await fetch(request);
  } catch (err) {
    // fetch only rejects here if the service worker failed to answer (respondWith rejected or threw).
    throw new Violation(`fetch failed (the service worker did not answer): ${String(err)}`);
  }
  const text = await res.text();
  report.statuses[res.status] = (report.statuses[res.status] ?? 0) + 1;
  if (c.depth !== undefined) report.deep[c.depth > 64 ? 'refused' : 'within']++;
  must(/^req_[0-9a-f]{24}$/.test(res.headers.get('x-request-id') ?? ''), 'no x-request-id');
  for (const k of fullKeys) if (text.includes(k)) report.keyLeaks++;
  must(!fullKeys.some((k) => text.includes(k)), 'an answer carried a full key');
  const method = request.method;
  if (method === 'HEAD') {
    must(text === '', 'HEAD with a body');
    must([200, 401, 404, 405].includes(res.status), `HEAD status ${res.status}`);
    return;
  }
  if (res.status !== 200) {
    const code = checkError(res.status, text, res.headers);
    report.codes[code] = (report.codes[code] ?? 0) + 1;
    must(code !== 'internal_error', `internal_error for a client's request: ${text.slice(0, 300)}`);
    must(!c.plain, `a plain valid request failed: ${text.slice(0, 300)}`);
    if (c.refused) {
      const param = (JSON.parse(text) as { error: { param: string | null } }).error.param;
      must(code === c.refused.code && param === c.refused.param, `expected ${c.refused.code} for ${c.refused.param}, got ${code} for ${param}`);
    }
    return;
  }
  must(!c.refused, `a request that must be refused (${c.refused?.code}) was answered ${res.status}: ${text.slice(0, 300)}`);
  report.successes++;
  const url = new URL(request.url);
  if (url.pathname === '/v1/chat/completions') {
    must(method === 'POST', `200 for ${method}`);
    const stream = (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
    const content = stream ? checkStream(text) : checkCompletion(text);
    if (c.plain) {
      must(stream === c.plain.stream, 'stream mode');
      must(content === c.plain.expect, `content ${JSON.stringify(content)} ≠ ${JSON.stringify(c.plain.expect)}`);
    }
    return;
  }
  must(method === 'GET', `200 for ${method} ${url.pathname}`);
  const body = JSON.parse(text) as Record<string, unknown>;
  if (url.pathname === '/v1/models') {
    must(body.object === 'list' && Array.isArray(body.data), 'model list');
    (body.data as unknown[]).forEach(checkModel);
  } else {
    checkModel(body);
  }
}

/** After each case: the service still answers a plain request. */
async function stillServes(key: string): Promise<void> {
  const res = await fetch('/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'still here' }] }),
  });
  const text = await res.text();
  must(res.status === 200 && checkCompletion(text) === 'Echo: still here', `the next valid request failed: ${res.status} ${text.slice(0, 200)}`);
}

export async function runHostile(keys: HostileKeys, options: { numRuns: number; seed: number; timeLimitMs: number }): Promise<HostileReport> {
  const report: HostileReport = {
    numRuns: 0,
    failed: false,
    seed: options.seed,
    counterexample: null,
    error: null,
    statuses: {},
    codes: {},
    successes: 0,
    refusedByFetch: 0,
    keyLeaks: 0,
    deep: { refused: 0, within: 0 },
  };
  const fullKeys = [keys.all, keys.fastOnly, keys.revoked];
  const result = await fc.check(
    fc.asyncProperty(arbitraries(keys), async (c) => {
      await answer(c, report, fullKeys);
      await stillServes(keys.all);
    }),
    { numRuns: options.numRuns, seed: options.seed, interruptAfterTimeLimit: options.timeLimitMs, markInterruptAsFailure: false, endOnFailure: true },
  );
  report.numRuns = result.numRuns;
  report.failed = result.failed;
  if (result.failed) {
    report.counterexample = JSON.stringify(result.counterexample, (_k, v: unknown) => (v instanceof Uint8Array ? `bytes[${v.length}]` : v)).slice(0, 2000);
    report.error = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
  }
  return report;
}
