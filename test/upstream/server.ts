// An OpenAI-compatible server on loopback, the upstream of the hybrid browser tests (docs/hybrid.md). Started by
// Playwright (playwright.config.ts `webServer`) with
//   node --import ./test/firefox/register-ts.mjs test/upstream/server.ts [port]
// on 4655 + INPAGE_PORT_OFFSET by default. Paths are `/<tag>/<flavour>/v1/...`; the tag keeps parallel tests apart
// (`GET /<tag>/_last` gives the last body a chat path of that tag received, `GET /<tag>/_log` what happened).
// Flavours:
//   llama                       real llama.cpp (node-llama-cpp's prebuilt CPU binary) on a synthesized GGUF, greedy,
//                               streamed as llama-server streams (reasoning_content, timings)
//   openai, vllm, ollama,       the deterministic test engine's rules (test/engine/), each streamed as that server
//   llama-server                streams (wire.ts in the upstream engine reads all of them); the model name is
//                               `up/<inpage id>` (an id of the deployment's own: a model that does not think), and
//                               thinking is switched off only by that server's own switch
//   json                        ignores `stream: true` and answers one JSON body
//   fault-401, fault-500, fault-garbage, fault-broken, fault-slow, fault-drip
//                               401 (vLLM's bare string), 500, a 200 that is not JSON, a stream that breaks after a
//                               token, headers only after 5 s, a token every 200 ms (for aborts; `_log` records the
//                               client's abort)
//   auth                        like openai, but only with `Authorization: Bearer sk-test-connection`
// `GET …/v1/models` lists up/svc-model-5.2-fast and up/svc-model-5.2-short (auth: with its key; fault-500: a 500).
//   flood-line, flood-silence, flood-endless, flood-tools, flood-usage, flood-truncated, flood-echo-key
//                               hostile servers (floods.ts): after one token, 64 MiB without a newline; silence;
//                               deltas without end; 10,000 tool calls; usage of 1e308; a clean end without finish or
//                               [DONE]; and a 401 that echoes the Authorization header
// A tag `pace<N>-…` paces the deterministic flavours at one token every N ms.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AddressInfo } from 'node:net';
import { DEFAULT_CONFIG } from '#shared/config';
import { ApiError } from '#shared/protocol/errors';
import { validateChatRequest } from '#shared/protocol/validate';
import { isVariantId } from '#shared/variants';
import { parseEmbeddingRequest } from '#shared/protocol/embeddings';
import type { EngineEvent } from '#shared/wire/engine-port';
import { DeterministicEngine } from '../engine/deterministic-engine';
import { withPlan } from '../../worker/engine/common/plan';
import { FLOODS, flood, type Flood } from './floods';
import { importNodeLlamaCpp } from '../../scripts/native-llama.mjs';

const engine = new DeterministicEngine({ ...DEFAULT_CONFIG });
/** A tag `pace<N>-…` paces its answers at one token every N ms (the bench's paced rows). */
const paced = new Map<number, DeterministicEngine>();
const engineFor = (tag: string): DeterministicEngine => {
  const m = /^pace(\d+)-/.exec(tag);
  if (!m) return engine;
  const delay = Number(m[1]);
  if (!paced.has(delay)) paced.set(delay, new DeterministicEngine({ ...DEFAULT_CONFIG, tokenDelayMs: delay }));
  return paced.get(delay)!;
};
const last = new Map<string, unknown>();
const logs = new Map<string, string[]>();
const log = (tag: string, what: string) => logs.set(tag, [...(logs.get(tag) ?? []), what]);

function cors(req: IncomingMessage, res: ServerResponse): void {
  const origin = req.headers.origin;
  if (!origin) return;
  res.setHeader('access-control-allow-origin', origin);
  res.setHeader('access-control-allow-credentials', 'true');
  res.setHeader('access-control-allow-headers', 'content-type, authorization');
  res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
  res.setHeader('vary', 'origin');
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : {};
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};
const sse = (res: ServerResponse, data: unknown) => res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Flavour = 'openai' | 'vllm' | 'ollama' | 'llama-server' | 'json';

/** The request as the deterministic engine takes it, thinking switched off only by this flavour's own switch. */
function toEngineRequest(body: Record<string, unknown>, flavour: Flavour) {
  const model = String(body.model ?? '');
  if (!model.startsWith('up/')) throw new ApiError('model_not_found', `The model '${model}' does not exist.`, { param: 'model' });
  const kwargs = body.chat_template_kwargs as { enable_thinking?: boolean } | undefined;
  const off = flavour === 'vllm' || flavour === 'llama-server' ? kwargs?.enable_thinking === false : body.reasoning_effort === 'none';
  const { chat_template_kwargs: _k, reasoning_effort: _r, prompt, ...rest } = body;
  // `up/<an id of the deployment's own>` (one only the upstream answers): the rules of a model that does not think.
  const id = model.slice(3);
  const request = validateChatRequest({
    ...rest,
    model: isVariantId(id) ? id : 'svc-model-5.2-short-fast',
    ...(prompt !== undefined ? { messages: [{ role: 'user', content: String(prompt) }] } : {}),
    ...(off ? { reasoning_effort: 'none' } : {}),
  });
  if (prompt !== undefined) request.raw_prompt = String(prompt);
  return withPlan(request);
}

/** Writes the engine's events as `flavour` streams them. */
async function streamAs(
  res: ServerResponse,
  flavour: Flavour,
  events: AsyncIterable<EngineEvent>,
  includeUsage: boolean,
  legacy: boolean,
  model: string,
): Promise<void> {
  const id = `chatcmpl-${Math.random().toString(36).slice(2)}`;
  const base = { id, object: legacy ? 'text_completion' : 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
  const reasoningField = flavour === 'vllm' || flavour === 'ollama' ? 'reasoning' : 'reasoning_content';
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (flavour !== 'ollama' && !legacy)
    sse(res, { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] });
  const role = flavour === 'ollama' ? { role: 'assistant' } : {};
  const wholeCalls: { id: string; index: number; type: 'function'; function: { name: string; arguments: string } }[] = [];
  for await (const e of events) {
    if (e.type === 'delta') {
      if (legacy) {
        sse(res, { ...base, choices: [{ index: 0, text: e.content ?? '', finish_reason: null }] });
        continue;
      }
      const delta: Record<string, unknown> = { ...role };
      if (e.reasoning) delta[reasoningField] = e.reasoning;
      if (e.content) delta.content = e.content;
      sse(res, { ...base, choices: [{ index: 0, delta, logprobs: e.logprobs ? { content: e.logprobs, refusal: null } : null, finish_reason: null }] });
    } else if (e.type === 'tool_call') {
      if (flavour === 'ollama') wholeCalls.push({ id: e.id, index: e.index, type: 'function', function: { name: e.name, arguments: '' } });
      else
        sse(res, {
          ...base,
          choices: [
            {
              index: 0,
              delta: { tool_calls: [{ index: e.index, id: e.id, type: 'function', function: { name: e.name, arguments: '' } }] },
              finish_reason: null,
            },
          ],
        });
    } else if (e.type === 'tool_arguments') {
      if (flavour === 'ollama') wholeCalls.find((c) => c.index === e.index)!.function.arguments += e.arguments;
      else
        sse(res, { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: e.index, function: { arguments: e.arguments } }] }, finish_reason: null }] });
    } else if (e.type === 'finish') {
      // Ollama: every call whole in one delta, then the finish.
      if (wholeCalls.length > 0) sse(res, { ...base, choices: [{ index: 0, delta: { ...role, content: '', tool_calls: wholeCalls }, finish_reason: null }] });
      const timings =
        flavour === 'llama-server'
          ? { timings: { prompt_n: e.usage.prompt_tokens, prompt_ms: 1.5, predicted_n: e.usage.completion_tokens, predicted_ms: 3 } }
          : {};
      sse(res, {
        ...base,
        choices: [legacy ? { index: 0, text: '', finish_reason: e.finish_reason } : { index: 0, delta: { ...role }, finish_reason: e.finish_reason }],
        ...timings,
      });
      if (includeUsage) {
        const usage =
          flavour === 'ollama'
            ? { prompt_tokens: e.usage.prompt_tokens, completion_tokens: e.usage.completion_tokens, total_tokens: e.usage.total_tokens }
            : e.usage;
        sse(res, { ...base, choices: [], usage });
      }
    }
  }
  sse(res, '[DONE]');
  res.end();
}

/** The real llama.cpp flavour: loaded on first use. */
let llamaModel: Promise<{
  answer(prompt: string, maxTokens: number, onText: (t: string) => void): Promise<{ prompt: number; completion: number; ms: number }>;
}> | null = null;
function realLlama() {
  llamaModel ??= (async () => {
    const { getLlama, LlamaLogLevel } = await importNodeLlamaCpp();
    const { synthesizeGguf } = await import('../../scripts/gguf/synthesize');
    const synth = synthesizeGguf({ seed: 7 });
    const dir = await mkdtemp(join(tmpdir(), 'inpage-upstream-'));
    const path = join(dir, 'tiny.gguf');
    await writeFile(path, synth.bytes);
    const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath: path, gpuLayers: 0 });
    const end = synth.tokenId('<|im_end|>');
    let busy = Promise.resolve();
    return {
      answer(prompt: string, maxTokens: number, onText: (t: string) => void) {
        const run = busy.then(async () => {
          const began = performance.now();
          const context = await model.createContext({ contextSize: 512, threads: 1 });
          try {
            const tokens = model.tokenize(prompt, true);
            let n = 0;
            for await (const token of context.getSequence().evaluate(tokens, { temperature: 0 })) {
              if (token === end) break;
              onText(model.detokenize([token], true));
              if (++n >= maxTokens) break;
            }
            return { prompt: tokens.length, completion: n, ms: performance.now() - began };
          } finally {
            await context.dispose();
          }
        });
        busy = run.then(
          () => undefined,
          () => undefined,
        );
        return run;
      },
    };
  })();
  return llamaModel;
}

async function llamaChat(res: ServerResponse, body: Record<string, unknown>): Promise<void> {
  const messages = (body.messages ?? []) as { role: string; content: unknown }[];
  const prompt =
    messages.map((m) => `<|im_start|>${m.role}\n${typeof m.content === 'string' ? m.content : ''}<|im_end|>\n`).join('') + '<|im_start|>assistant\n';
  const max = Number(body.max_tokens ?? 16);
  const llama = await realLlama();
  const base = { id: `chatcmpl-llama`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: 'tiny.gguf' };
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  sse(res, { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: null }, finish_reason: null }] });
  // llama-server's split of Qwen-style thinking: the text inside <think>…</think> is reasoning_content.
  let inThink = false;
  const out = await llama.answer(prompt, max, (piece) => {
    if (piece.includes('<think>')) return void (inThink = true);
    if (piece.includes('</think>')) return void (inThink = false);
    sse(res, { ...base, choices: [{ index: 0, delta: inThink ? { reasoning_content: piece } : { content: piece }, finish_reason: null }] });
  });
  sse(res, {
    ...base,
    choices: [{ index: 0, delta: {}, finish_reason: out.completion >= max ? 'length' : 'stop' }],
    timings: { prompt_n: out.prompt, prompt_ms: out.ms / 2, predicted_n: out.completion, predicted_ms: out.ms / 2 },
  });
  if ((body.stream_options as { include_usage?: boolean } | undefined)?.include_usage) {
    sse(res, { ...base, choices: [], usage: { prompt_tokens: out.prompt, completion_tokens: out.completion, total_tokens: out.prompt + out.completion } });
  }
  sse(res, '[DONE]');
  res.end();
}

const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
  cors(req, res);
  if (req.method === 'OPTIONS') return void res.writeHead(204).end();
  const url = new URL(req.url ?? '/', 'http://upstream.invalid');
  const [, tag = '', flavour = '', ...rest] = url.pathname.split('/');
  if (flavour === '_last') return json(res, 200, last.get(tag) ?? null);
  if (flavour === '_log') return json(res, 200, logs.get(tag) ?? []);
  const path = `/${rest.join('/')}`;
  if (req.method === 'GET' && path === '/v1/models') {
    // The workspace's connection test: `auth` wants its key, `fault-500` fails; the others list two names.
    if (flavour === 'auth' && req.headers.authorization !== 'Bearer sk-test-connection')
      return json(res, 401, { error: { message: 'Invalid key.', type: 'invalid_request_error' } });
    if (flavour === 'fault-500') return json(res, 500, { object: 'error', message: 'CUDA out of memory', type: 'InternalServerError', code: 500 });
    return json(res, 200, {
      object: 'list',
      data: ['up/svc-model-5.2-fast', 'up/svc-model-5.2-short'].map((id) => ({ id, object: 'model', owned_by: 'upstream' })),
    });
  }
  if (req.method !== 'POST') return json(res, 404, { error: { message: `No route ${req.method} ${url.pathname}`, type: 'invalid_request_error' } });
  let body: Record<string, unknown>;
  try {
    body = (await readBody(req)) as Record<string, unknown>;
  } catch {
    return json(res, 400, { error: { message: 'Body is not JSON.', type: 'invalid_request_error' } });
  }
  if (path === '/v1/chat/completions' || path === '/v1/completions') last.set(tag, body);
  log(tag, `${flavour} ${path}`);
  const closed = new Promise<void>((resolve) => res.on('close', () => resolve()));
  void closed.then(() => !res.writableFinished && log(tag, 'client aborted'));
  try {
    if (flavour.startsWith('flood-') && (FLOODS as readonly string[]).includes(flavour.slice(6)))
      return await flood(flavour.slice(6) as Flood, req, res, path, closed);
    switch (flavour) {
      case 'fault-401':
        // vLLM's API-key middleware: a bare JSON string, and no CORS headers (so a browser sees a network error).
        res.removeHeader('access-control-allow-origin');
        return json(res, 401, { error: 'Unauthorized' });
      case 'fault-401-cors':
        return json(res, 401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } });
      case 'fault-500':
        return json(res, 500, { object: 'error', message: 'CUDA out of memory', type: 'InternalServerError', code: 500 });
      case 'fault-garbage':
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        return void res.end('data: this is not json\n\n');
      case 'fault-broken':
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        sse(res, {
          id: 'x',
          object: 'chat.completion.chunk',
          created: 0,
          model: 'm',
          choices: [{ index: 0, delta: { content: 'Half' }, finish_reason: null }],
        });
        // Long enough for the token to be read before the connection breaks: with 50 ms, a loaded CI machine once
        // got the break first (the answer failed before its first token, as a JSON error).
        await sleep(300);
        return void res.destroy();
      case 'fault-slow':
        await Promise.race([sleep(5000), closed]);
        return json(res, 500, { error: { message: 'too late' } });
      case 'fault-drip': {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (let i = 1; i <= 100 && !res.destroyed; i++) {
          sse(res, {
            id: 'x',
            object: 'chat.completion.chunk',
            created: 0,
            model: 'm',
            choices: [{ index: 0, delta: { content: `${i} ` }, finish_reason: null }],
          });
          await Promise.race([sleep(200), closed]);
        }
        return void res.end();
      }
      case 'llama':
        return await llamaChat(res, body);
      case 'auth':
      case 'openai':
      case 'vllm':
      case 'ollama':
      case 'llama-server':
      case 'json': {
        if (flavour === 'auth' && req.headers.authorization !== 'Bearer sk-test-connection')
          return json(res, 401, { error: { message: 'Invalid key.', type: 'invalid_request_error' } });
        const f: Flavour = flavour === 'auth' ? 'openai' : flavour;
        if (path === '/v1/embeddings') {
          const request = parseEmbeddingRequest({ ...body, model: String(body.model).replace(/^up\//, '') });
          const generation = await engine.embed(request, new AbortController().signal);
          const data: { object: string; index: number; embedding: number[] }[] = [];
          let prompt = 0;
          for await (const e of generation.events) {
            if (e.type === 'embedding') data.push({ object: 'embedding', index: e.index, embedding: e.embedding });
            if (e.type === 'finish') prompt = e.usage.prompt_tokens;
          }
          return json(res, 200, { object: 'list', data, model: body.model, usage: { prompt_tokens: prompt, total_tokens: prompt } });
        }
        const request = toEngineRequest(body, f);
        const abort = new AbortController();
        void closed.then(() => abort.abort());
        const generation = await engineFor(tag).generate(request, abort.signal);
        if (f === 'json' || body.stream !== true) {
          const events: EngineEvent[] = [];
          for await (const e of generation.events) events.push(e);
          const finish = events.at(-1) as Extract<EngineEvent, { type: 'finish' }>;
          const content = events.map((e) => (e.type === 'delta' ? (e.content ?? '') : '')).join('');
          const reasoning = events.map((e) => (e.type === 'delta' ? (e.reasoning ?? '') : '')).join('');
          return json(res, 200, {
            id: 'chatcmpl-json',
            object: 'chat.completion',
            created: 0,
            model: body.model,
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content, ...(reasoning ? { reasoning_content: reasoning } : {}) },
                finish_reason: finish.finish_reason,
              },
            ],
            usage: finish.usage,
          });
        }
        const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
        return await streamAs(res, f, generation.events, includeUsage, path === '/v1/completions', String(body.model));
      }
      default:
        return json(res, 404, { error: { message: `No flavour '${flavour}'.`, type: 'invalid_request_error' } });
    }
  } catch (err) {
    const e = ApiError.from(err);
    if (!res.headersSent) return json(res, e.status, e.toBody());
    res.end();
  }
};

/** Starts the server on loopback (`port` 0: any free port); resolves with its base URL. */
export function startUpstreamServer(port: number): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => void handle(req, res));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${bound}`,
        close: () => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done()))),
      });
    });
  });
}

/** The fixed port of the browser tests: 4655 + INPAGE_PORT_OFFSET. */
export const UPSTREAM_PORT = 4655 + Number(process.env.INPAGE_PORT_OFFSET ?? 0);

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const port = Number(process.argv[2] ?? UPSTREAM_PORT);
  void startUpstreamServer(port).then(({ url }) => {
    console.log(`upstream test server on ${url}`);
    // The real model loads now, so the first test that asks it does not wait for it.
    void realLlama().catch((err: unknown) => console.error('node-llama-cpp did not load:', err));
  });
}
