// Hostile upstreams for the bounds tests (docs/hybrid.md "Bounds"; test/browser/hybrid-floods.spec.ts): flavours
// `flood-<kind>` of the test upstream server (server.ts). Each streams as an OpenAI-compatible server would, then
// misbehaves; each stops writing as soon as its client goes (the `_log` of the tag records that).
import type { IncomingMessage, ServerResponse } from 'node:http';

export const FLOODS = ['line', 'silence', 'endless', 'tools', 'usage', 'truncated', 'echo-key'] as const;
export type Flood = (typeof FLOODS)[number];

/** The size of the `line` flood: one event of this many bytes without a newline. */
export const FLOOD_LINE_BYTES = 64 * 1024 * 1024;
/** How many calls the `tools` flood sends. */
export const FLOOD_TOOL_CALLS = 10_000;

const base = { id: 'chatcmpl-flood', object: 'chat.completion.chunk', created: 0, model: 'flood' };
const event = (legacy: boolean, text: string | null, finish: string | null = null, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({
    ...base,
    ...(legacy ? { object: 'text_completion' } : {}),
    choices: [
      legacy ? { index: 0, text: text ?? '', finish_reason: finish } : { index: 0, delta: text === null ? {} : { content: text }, finish_reason: finish },
    ],
    ...extra,
  })}\n\n`;

/** Writes `text`, waiting while the socket's buffer is full; false once the client is gone. */
async function put(res: ServerResponse, text: string | Buffer, closed: Promise<void>): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return false;
  if (res.write(text)) return true;
  await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed]);
  return !res.destroyed;
}

/** Answers one request as the flood `kind`; `path` tells chat from legacy completions. */
export async function flood(kind: Flood, req: IncomingMessage, res: ServerResponse, path: string, closed: Promise<void>): Promise<void> {
  const legacy = path === '/v1/completions';
  if (kind === 'echo-key') {
    // A gateway that echoes what it was sent: the Authorization header in its words.
    res.writeHead(401, { 'content-type': 'application/json' });
    return void res.end(
      JSON.stringify({
        error: {
          message: `Incorrect API key provided: ${req.headers.authorization ?? '(none)'}. You can find your API key at https://example.com.`,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      }),
    );
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  // Every flood begins an answer: the failure then comes after the first token, in-band.
  if (!(await put(res, event(legacy, 'One'), closed))) return;
  switch (kind) {
    case 'line': {
      // 64 MiB in one line, never a newline.
      const piece = Buffer.alloc(65_536, 0x61);
      if (!(await put(res, 'data: ', closed))) return;
      for (let sent = 0; sent < FLOOD_LINE_BYTES; sent += piece.length) if (!(await put(res, piece, closed))) return;
      return void res.end();
    }
    case 'silence':
      // Nothing more, until the client goes (or two minutes pass).
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 120_000))]);
      return void res.end();
    case 'endless':
      for (let i = 0; ; i++) if (!(await put(res, event(legacy, ` ${i}`), closed))) return;
    case 'tools':
      for (let i = 0; i < FLOOD_TOOL_CALLS; i++) {
        const call = { index: i, id: `call_${i}`, type: 'function', function: { name: 'f', arguments: '{}' } };
        if (!(await put(res, `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { tool_calls: [call] }, finish_reason: null }] })}\n\n`, closed)))
          return;
      }
      await put(res, event(legacy, null, 'tool_calls'), closed);
      await put(res, 'data: [DONE]\n\n', closed);
      return void res.end();
    case 'usage':
      await put(res, event(legacy, ' two', 'stop'), closed);
      await put(
        res,
        `data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 1e308, completion_tokens: 1e308, total_tokens: 1e308 } })}\n\n`,
        closed,
      );
      await put(res, 'data: [DONE]\n\n', closed);
      return void res.end();
    case 'truncated':
      // Half an answer, then a clean end: no finish_reason, no [DONE].
      await put(res, event(legacy, ' half'), closed);
      return void res.end();
  }
}
