// Bounds on what an upstream sends (src/shared/upstreams.ts UPSTREAM_BOUNDS, docs/hybrid.md "Bounds"): the SSE parser (an
// event over its bound stops the read, lines split anywhere, the thread given back during a flood), the answer's and
// the error body's caps, tool calls, usage numbers, a stream cut off before its finish or [DONE], an idle server after
// the first token, the key redacted from error text, the image-URL rule before anything is sent, and the literal-key
// check's shapes.
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '#shared/wire/engine-port';
import { ApiError } from '#shared/protocol/errors';
import { validateChatRequest } from '#shared/protocol/validate';
import { DEFAULT_BOUNDS, buildUpstreamPlan, type UpstreamSpec } from '#shared/upstreams';
import { buildCatalog } from '#shared/model-config';
import { checkModelUrls, checkSourceUrls, looksLikeKey, redactSecrets } from '#shared/secrets';
import { imageUrlAllowed } from '#shared/csp';
import { DEFAULT_CONFIG } from '#shared/config';
import { ChunkReader, httpError } from '../../../worker/engine/upstream/wire';
import { SSE_DONE, readSseData } from '#shared/protocol/sse-reader';
import { UpstreamEngine } from '../../../worker/engine/upstream';
import { withPlan } from '../../../worker/engine/common/plan';

const WHO = "'gpu' (llm.example.com)";
const enc = new TextEncoder();

/** A body that hands out `pieces` one per pull and counts the pulls and whether it was cancelled. */
function body(pieces: Iterable<Uint8Array>) {
  const it = pieces[Symbol.iterator]();
  const seen = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      const next = it.next();
      if (next.done) return c.close();
      seen.pulled++;
      c.enqueue(next.value);
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}
function* repeat(piece: Uint8Array, times: number) {
  for (let i = 0; i < times; i++) yield piece;
}
const text = (...parts: string[]) => parts.map((p) => enc.encode(p));

async function payloads(stream: ReadableStream<Uint8Array>, bounds = DEFAULT_BOUNDS): Promise<string[]> {
  const out: string[] = [];
  for await (const p of readSseData(stream, { signal: new AbortController().signal, bounds, who: WHO })) out.push(p);
  return out;
}
const failure = async (p: Promise<unknown>): Promise<ApiError> => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
};
const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

describe('the SSE parser', () => {
  it('finds lines wherever the network splits them: CR at the end of one piece and LF at the start of the next, a character split in two', async () => {
    const e = enc.encode('data: "é"\n\n');
    const at = 8; // inside é's two bytes
    expect(
      await payloads(
        body([...text('data: a\r'), new Uint8Array(0), ...text('\ndata: b\r\n\r'), ...text('\n'), e.slice(0, at), e.slice(at), ...text('data: [DONE]\n\n')])
          .stream,
      ),
    ).toEqual(['a\nb', '"é"', SSE_DONE]);
  });

  it('64 MiB without a newline: refused once it passes maxEventBytes, the body read no further and cancelled', async () => {
    const piece = new Uint8Array(65_536).fill(0x61);
    const { stream, seen } = body(repeat(piece, 1024));
    const err = await failure(payloads(stream));
    expect(err).toMatchObject({ code: 'upstream_error', status: 502 });
    expect(err.message).toContain("'maxEventBytes'");
    expect(err.message).toContain('1.00 MiB');
    expect(seen.pulled).toBeLessThanOrEqual(DEFAULT_BOUNDS.maxEventBytes / piece.byteLength + 2);
    expect(seen.cancelled).toBe(true);
  });

  it('an event of many data lines is one event: its bound counts them all', async () => {
    const line = `data: ${'x'.repeat(1000)}\n`;
    const err = await failure(payloads(body(repeat(enc.encode(line), 2000)).stream, { ...DEFAULT_BOUNDS, maxEventBytes: 100_000 }));
    expect(err.message).toContain("'maxEventBytes'");
  });

  it('endless small events: refused once the answer passes maxAnswerBytes; timers of the thread still run during the flood', async () => {
    const event = enc.encode(chunk({ content: 'x' }));
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    try {
      const err = await failure(payloads(body(repeat(event, 1_000_000)).stream, { ...DEFAULT_BOUNDS, maxAnswerBytes: 4 << 20 }));
      expect(err.message).toContain("'maxAnswerBytes'");
      expect(err.message).toContain('4.00 MiB');
    } finally {
      clearInterval(timer);
    }
    // The parser gave the event loop back (every MiB): a timer set before the flood ran before it ended.
    expect(ticks).toBeGreaterThan(0);
  });
});

describe('the answer', () => {
  const read = async (stream: string[], options: Partial<ConstructorParameters<typeof ChunkReader>[2]> = {}): Promise<EngineEvent[]> => {
    const reader = new ChunkReader(WHO, 3, { ...DEFAULT_BOUNDS, expectDone: true, ...options });
    const events: EngineEvent[] = [];
    for await (const p of readSseData(body(text(...stream)).stream, { signal: new AbortController().signal, bounds: DEFAULT_BOUNDS, who: WHO }))
      events.push(...reader.chunk(p));
    events.push(reader.finish());
    return events;
  };

  it('a stream that ends without its finish_reason, or without [DONE], is an upstream_error, never a stop', async () => {
    for (const [stream, missing] of [
      [[chunk({ content: 'Half' })], 'a finish_reason'],
      [[chunk({ content: 'Half' }), 'data: [DONE]\n\n'], 'a finish_reason'],
      [[chunk({ content: 'Whole' }, 'stop')], 'its closing data: [DONE]'],
    ] as const) {
      const err = await failure(read([...stream]));
      expect(err).toMatchObject({ code: 'upstream_error', status: 502 });
      expect(err.message).toContain(`ended without ${missing}`);
    }
    // The whole answer, and a JSON body (no [DONE] there), still finish.
    expect((await read([chunk({ content: 'Whole' }, 'stop'), 'data: [DONE]\n\n'])).at(-1)).toMatchObject({ type: 'finish', finish_reason: 'stop' });
    const json = new ChunkReader(WHO, 3, { ...DEFAULT_BOUNDS, expectDone: false });
    json.chunk(JSON.stringify({ choices: [{ index: 0, message: { content: 'ok' }, finish_reason: 'length' }] }));
    expect(json.finish()).toMatchObject({ type: 'finish', finish_reason: 'length' });
  });

  it('10,000 tool calls: refused past maxToolCalls; arguments past maxToolArgumentBytes', async () => {
    const calls = Array.from({ length: 10_000 }, (_, i) => ({ index: i, id: `call_${i}`, type: 'function', function: { name: 'f', arguments: '{}' } }));
    const many = await failure(read([chunk({ tool_calls: calls }, 'tool_calls'), 'data: [DONE]\n\n']));
    expect(many.message).toContain("more than 128 tool calls in one answer (its 'maxToolCalls' bound)");
    const under = await read([chunk({ tool_calls: calls.slice(0, 128) }, 'tool_calls'), 'data: [DONE]\n\n']);
    expect(under.filter((e) => e.type === 'tool_call')).toHaveLength(128);
    const big = [
      chunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'f', arguments: '' } }] }),
      ...Array.from({ length: 5 }, () => chunk({ tool_calls: [{ index: 0, function: { arguments: 'x'.repeat(300) } }] })),
    ];
    const err = await failure(read([...big, chunk({}, 'tool_calls'), 'data: [DONE]\n\n'], { maxToolArgumentBytes: 1000 }));
    expect(err.message).toContain("arguments pass 1000 bytes (its 'maxToolArgumentBytes' bound)");
  });

  it('usage numbers that are not whole numbers from 0 to 2^31−1 are disregarded: counted here, never Infinity', async () => {
    for (const bad of [1e308, -5, 2.5, '7', 2 ** 53]) {
      const events = await read([
        chunk({ content: 'a' }),
        chunk({ content: 'b' }, 'stop'),
        `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: bad, completion_tokens: bad, total_tokens: bad } })}\n\n`,
        'data: [DONE]\n\n',
      ]);
      const finish = events.at(-1) as Extract<EngineEvent, { type: 'finish' }>;
      // The prompt's estimate (3) and one token per piece (2), as for a server that reports no usage.
      expect(finish.usage, String(bad)).toMatchObject({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });
    }
  });
});

describe("the key in an upstream's error text", () => {
  const KEY = 'sk-proj-Abc123def456ghi789jkl';
  const res = (status: number, text: string) => new Response(text, { status });
  it("is redacted: the connection's own key whatever its shape, key-shaped strings and Bearer values", async () => {
    const echo = await httpError(res(401, JSON.stringify({ error: { message: `Invalid key ${KEY}. Header was Bearer ${KEY}` } })), WHO, {
      ...DEFAULT_BOUNDS,
      key: KEY,
    });
    expect(echo.message).not.toContain('Abc123');
    expect(echo.message).toContain('Invalid key [redacted]');
    const odd = await httpError(res(400, 'no such key: plain-secret-value-9'), WHO, { ...DEFAULT_BOUNDS, key: 'plain-secret-value-9' });
    expect(odd.message).toBe(`The upstream ${WHO} refused the request (HTTP 400): no such key: [redacted]`);
    for (const shaped of [
      'gsk_abcdefgh12345678',
      'AIzaSyA1234567890abcdefghijk',
      'xai-abcdefgh1234',
      'hf_abcdefghijkl',
      'ghp_abcdefghijklmnop1234',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig_nature',
    ]) {
      const err = await httpError(res(500, `gateway said: ${shaped} is wrong`), WHO, DEFAULT_BOUNDS);
      expect(err.message, shaped).toBe(`The upstream ${WHO} failed (HTTP 500): gateway said: [redacted] is wrong`);
    }
  });
  it('an error body is read only up to maxErrorBytes; a key cut off at that bound is redacted too', async () => {
    const { stream, seen } = body(repeat(new Uint8Array(65_536).fill(0x20), 1024));
    const err = await httpError(new Response(stream, { status: 500 }), WHO, DEFAULT_BOUNDS);
    expect(err.code).toBe('upstream_error');
    expect(seen.pulled).toBeLessThanOrEqual(2);
    expect(seen.cancelled).toBe(true);
    const cut = redactSecrets(`Invalid key ${KEY.slice(0, 12)}`, KEY);
    expect(cut).toBe('Invalid key [redacted]');
  });
  it('an error event mid-stream is redacted as well', () => {
    const reader = new ChunkReader(WHO, 1, { ...DEFAULT_BOUNDS, expectDone: true, key: KEY });
    expect(() => reader.chunk(JSON.stringify({ error: { message: `key ${KEY} expired` } }))).toThrow(
      expect.objectContaining({ message: `The upstream ${WHO} failed mid-answer: key [redacted] expired` }),
    );
  });
});

/** An upstream engine over a fake fetch; `answer` is the server's body. */
function engineWith(answer: () => ReadableStream<Uint8Array>, bounds: Partial<UpstreamSpec> = {}, type = 'text/event-stream') {
  const sent: string[] = [];
  const spec: UpstreamSpec = {
    name: 'gpu',
    url: 'https://llm.example.com/v1',
    dialect: 'openai',
    credentials: 'omit',
    concurrency: 2,
    timeoutMs: 5000,
    ...DEFAULT_BOUNDS,
    ...bounds,
  };
  const engine = new UpstreamEngine(
    { 'svc-vision': { spec, model: 'v' }, 'svc-model-5.2-fast': { spec, model: 'm' }, 'svc-embed': { spec, model: 'e' } },
    {
      fetch: async (url) => {
        sent.push(String(url));
        return new Response(answer(), { headers: { 'content-type': type } });
      },
      online: () => true,
    },
    (url) => imageUrlAllowed(url, DEFAULT_CONFIG, 'https://app.example.com'),
  );
  return { engine, sent };
}

describe('the upstream engine', () => {
  it('one token then silence: the answer ends with an in-band upstream_timeout after idleMs, and the request is closed', async () => {
    let cancelled = false;
    const { engine } = engineWith(
      () =>
        new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(enc.encode(chunk({ content: 'One' })));
          },
          cancel() {
            cancelled = true;
          },
        }),
      { idleMs: 150 },
    );
    const generation = await engine.generate(
      withPlan(validateChatRequest({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'x' }] })),
      new AbortController().signal,
    );
    const got: EngineEvent[] = [];
    const err = await failure(
      (async () => {
        for await (const e of generation.events) got.push(e);
      })(),
    );
    expect(got).toEqual([{ type: 'delta', content: 'One' }]);
    expect(err).toMatchObject({ code: 'upstream_timeout', status: 504 });
    expect(err.message).toContain("sent nothing for 150 ms in the middle of its answer (its 'idleMs' bound)");
    await expect.poll(() => cancelled).toBe(true);
  });

  it('a JSON chat body and an embeddings body are read up to maxAnswerBytes, not whole', async () => {
    const big = () => body(repeat(enc.encode(`{"data":[${'0.5,'.repeat(16_000)}`), 64));
    for (const run of [
      (engine: UpstreamEngine) =>
        engine.generate(
          withPlan(validateChatRequest({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'x' }] })),
          new AbortController().signal,
        ),
      (engine: UpstreamEngine) => engine.embed({ model: 'svc-embed', input: ['a'] } as Parameters<UpstreamEngine['embed']>[0], new AbortController().signal),
    ]) {
      const answer = big();
      const { engine } = engineWith(() => answer.stream, { maxAnswerBytes: 100_000 }, 'application/json');
      const err = await failure(run(engine));
      expect(err).toMatchObject({ code: 'upstream_error', status: 502 });
      expect(err.message).toContain("(its 'maxAnswerBytes' bound)");
      // 100 kB in 64 KiB pieces: the second passes the bound (the stream may pull one ahead).
      expect(answer.seen.pulled).toBeLessThanOrEqual(3);
      expect(answer.seen.cancelled).toBe(true);
    }
  });

  it('a link-local or internal image URL is a 400 naming the part, and nothing is sent', async () => {
    const { engine, sent } = engineWith(() => new ReadableStream());
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://10.0.0.5/x.png', 'http://localhost:8080/admin']) {
      const request = withPlan(
        validateChatRequest({
          model: 'svc-vision',
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'what' },
                { type: 'image_url', image_url: { url } },
              ],
            },
          ],
        }),
      );
      expect(() => engine.supports(request), url).toThrow(expect.objectContaining({ code: 'invalid_value', param: 'messages[0].content[1].image_url.url' }));
      const err = await failure(engine.generate(request, new AbortController().signal));
      expect(err).toMatchObject({ code: 'invalid_value', status: 400, param: 'messages[0].content[1].image_url.url' });
    }
    expect(sent).toEqual([]);
  });
});

describe('the literal-key check', () => {
  const ORIGIN = 'https://app.example.com';
  const plan = (url: string) => buildUpstreamPlan({ gpu: { url } }, buildCatalog({}), ORIGIN);
  const SHAPES = [
    'sk-abcdefgh1234',
    'sk-proj-abcdefgh1234',
    'sk-ant-api03-abcdefgh',
    'gsk_abcdefgh12345678',
    'AIzaSyA1234567890abcdefghijk',
    'xai-abcdefgh1234',
    'hf_abcdefghijkl',
    'ghp_abcdefghijklmnop1234',
    'github_pat_11ABCDEFG0123456789_abc',
    'glpat-abcdefghijklmnop12',
    'r8_abcdefghijklmnop12',
    'pplx-abcdefghijklmnop12',
    'nvapi-abcdefghijklmnop12',
    'AKIAABCDEFGHIJKLMNOP',
    'xoxb-1234567890-abcdef',
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig_nature',
  ];
  it('knows the common key shapes of hosted APIs, and not ordinary words', () => {
    for (const shape of SHAPES) expect(looksLikeKey(`x ${shape} y`), shape).toBe(true);
    for (const plain of ['Qwen/Qwen3-8B-FP8', 'https://llm.example.com/v1', 'task-manager', 'desk-lamp-model', 'ask-me'])
      expect(looksLikeKey(plain), plain).toBe(false);
  });
  it("refuses a key in an upstream URL's query values and path, naming the field", () => {
    for (const shape of SHAPES) {
      for (const url of [`https://llm.example.com/v1?q=${shape}`, `https://llm.example.com/${shape}/v1`, `https://llm.example.com/v1?api-key=x`]) {
        expect(() => plan(url), url).toThrow(/upstreams(\["gpu"\]|\.gpu)\.url: a literal credential in inpage\.config\.json is refused/);
      }
    }
    expect(plan('https://llm.example.com/v1?region=eu').upstreams.gpu!.url).toBe('https://llm.example.com/v1?region=eu');
  });
  it('refuses a key in modelBaseUrl, modelLibBaseUrl and ggufBaseUrl, naming the setting', () => {
    for (const field of ['modelBaseUrl', 'modelLibBaseUrl', 'ggufBaseUrl'] as const) {
      for (const shape of SHAPES) {
        for (const url of [
          `https://cdn.example.com/models?token=${shape}`,
          `https://cdn.example.com/models?sig=x`,
          `https://cdn.example.com/${shape}/models`,
          `https://user:pw@cdn.example.com/m`,
        ]) {
          expect(() => checkSourceUrls({ [field]: url }, ORIGIN, '/inpage.config.json'), `${field} ${url}`).toThrow(
            new RegExp(`^/inpage\\.config\\.json: ${field}: a literal credential`),
          );
        }
      }
      expect(() => checkSourceUrls({ [field]: 'https://cdn.example.com/models' }, ORIGIN)).not.toThrow();
      expect(() => checkSourceUrls({ [field]: '/models' }, ORIGIN)).not.toThrow();
    }
  });
  it("refuses a key in the models setting's own URLs (a GGUF, its projector, a web-llm record's files) or text, naming the entry's field", () => {
    const record = (model: string) => ({ record: { model, model_id: 'Acme-q4f32_1-MLC', model_lib: 'https://cdn.example.com/acme.wasm' } });
    for (const shape of SHAPES) {
      for (const [models, where] of [
        [{ team: { engine: 'llamacpp', gguf: `https://files.example/t.gguf?token=${shape}` } }, 'models["team"].gguf'],
        [{ team: { engine: 'llamacpp', gguf: ['https://files.example/t-1.gguf', `https://files.example/${shape}/t-2.gguf`] } }, 'models["team"].gguf[1]'],
        [{ 'svc-vision': { engine: 'llamacpp', gguf: '/v.gguf', mmproj: `/mmproj.gguf?x=${shape}` } }, 'models["svc-vision"].mmproj'],
        [{ acme: record(`https://user:pw@cdn.example.com/acme`) }, 'models["acme"].record.model'],
        [{ acme: { ...record('https://cdn.example.com/acme'), note: shape } }, 'models["acme"].note'],
      ] as const) {
        expect(() => checkModelUrls(models, ORIGIN, '/inpage.config.json'), `${where} ${shape}`).toThrow(
          new RegExp(`^/inpage\\.config\\.json: ${where.replace(/[[\]().]/g, '\\$&')}: a literal credential`),
        );
      }
    }
    // What a deployment writes: public URLs, relative paths, pins (base64 hashes) and model names pass.
    expect(() =>
      checkModelUrls(
        {
          team: {
            engine: 'llamacpp',
            gguf: ['https://files.example/t-00001-of-00002.gguf', '/g/t-00002-of-00002.gguf'],
            mmproj: './mmproj.gguf',
            context: 8192,
          },
          acme: { ...record('https://cdn.example.com/acme'), integrity: { 'Acme-q4f32_1-MLC': { model_lib: `sha256-${'B'.repeat(43)}=` } } },
          big: { mode: 'upstream', upstream: { model: 'Qwen/Qwen3-235B-A22B' } },
        },
        ORIGIN,
      ),
    ).not.toThrow();
  });
  it('the bounds are fields of an upstream with defaults and ranges', () => {
    const p = buildUpstreamPlan({ gpu: { url: 'https://a.example/v1', idleMs: 500, maxToolCalls: 4 } }, buildCatalog({}), ORIGIN);
    expect(p.upstreams.gpu).toMatchObject({ ...DEFAULT_BOUNDS, idleMs: 500, maxToolCalls: 4 });
    expect(() => buildUpstreamPlan({ gpu: { url: 'https://a.example/v1', maxEventBytes: 10 } }, buildCatalog({}), ORIGIN)).toThrow(
      /upstreams\["gpu"\]\.maxEventBytes: must be a whole number from 1024 to 67108864/,
    );
  });
});
