// Client code a person can take away, in the one style of every snippet (Connect's snippets, the Playground's
// "View code"): the placeholder for a key, JavaScript string literals, and streaming a chat with plain fetch.

export const KEY_PLACEHOLDER = 'YOUR_INPAGE_KEY';

/** A JavaScript string literal in single quotes, the one quote style of every snippet. */
export function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}

/**
 * Code that streams a chat completion (or, `api` `responses`, a /v1/responses answer: its `output_text` deltas) with
 * plain `fetch` and prints its text. `authorization` and `body` are JavaScript expressions, written into the code as they are.
 */
export function fetchStreamCode(url: string, authorization: string, body: string, api: 'chat' | 'responses' = 'chat'): string {
  const read =
    api === 'chat'
      ? `    const data = event.replace(/^data: /, '');
    if (data === '[DONE]') continue;
    text += JSON.parse(data).choices[0]?.delta.content ?? '';`
      : `    const data = JSON.parse(event.slice(event.indexOf('data: ') + 6));
    if (data.type === 'response.output_text.delta') text += data.delta;`;
  return `const res = await fetch(${quote(url)}, {
  method: 'POST',
  headers: { authorization: ${authorization}, 'content-type': 'application/json' },
  body: JSON.stringify(${body}),
});
if (!res.ok) throw new Error((await res.json()).error.message);
const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
let text = '', buffer = '';
for (;;) {
  const { value, done } = await reader.read();
  if (done) break;
  buffer += value;
  const events = buffer.split('\\n\\n');
  buffer = events.pop();
  for (const event of events) {
${read}
  }
}
console.log(text);`;
}
