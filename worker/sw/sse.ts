// Server-sent-event framing, the service worker's one SSE writer: an `event:` line when the event is named, one `data:`
// line, then a blank line.

const encoder = new TextEncoder();

/** The event that ends a chat or completions stream (what a reader sees as `[DONE]`: src/shared/protocol/sse-reader.ts). */
export const SSE_DONE_EVENT = 'data: [DONE]\n\n';

/**
 * One event carrying `data` as JSON, named `type` when given (the /v1/responses events). JSON never contains a raw
 * newline, so one line is always enough.
 */
export function sseEvent(data: unknown, type?: string): string {
  return `${type === undefined ? '' : `event: ${type}\n`}data: ${JSON.stringify(data)}\n\n`;
}

export function encodeSse(text: string): Uint8Array {
  return encoder.encode(text);
}

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};
