// Server-sent-event framing: one `data:` line per event, then a blank line.

const encoder = new TextEncoder();

export const SSE_DONE = 'data: [DONE]\n\n';

/** One event carrying `data` as JSON. JSON never contains a raw newline, so one line is always enough. */
export function sseData(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

export function encodeSse(text: string): Uint8Array {
  return encoder.encode(text);
}

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};
