// Ready-to-paste client code for the Connect area.

export const KEY_PLACEHOLDER = 'YOUR_INPAGE_KEY';
export const SNIPPET_MODEL = 'svc-model-5.2-fast';

export interface Snippet {
  id: 'fetch' | 'openai' | 'responses' | 'embeddings' | 'ai-sdk';
  title: string;
  note: string;
  code: string;
}

/** A JavaScript string literal in single quotes, the one quote style of every snippet. */
export function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}

/**
 * Code that streams a chat completion with plain `fetch` and prints its text. `authorization` and `body` are
 * JavaScript expressions, written into the code as they are.
 */
export function fetchStreamCode(url: string, authorization: string, body: string): string {
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
    const data = event.replace(/^data: /, '');
    if (data === '[DONE]') continue;
    text += JSON.parse(data).choices[0]?.delta.content ?? '';
  }
}
console.log(text);`;
}

export function snippets(baseURL: string, key: string | null): Snippet[] {
  const k = quote(key ?? KEY_PLACEHOLDER);
  const base = quote(baseURL);
  return [
    {
      id: 'fetch',
      title: 'fetch',
      note: 'No library; reads the answer as a stream of server-sent events.',
      code: fetchStreamCode(
        `${baseURL}/chat/completions`,
        `'Bearer ' + ${k}`,
        `{
    model: '${SNIPPET_MODEL}',
    messages: [{ role: 'user', content: 'Say hello in five words.' }],
    stream: true,
  }`,
      ),
    },
    {
      id: 'openai',
      title: 'openai SDK',
      note: 'npm install openai',
      code: `import OpenAI from 'openai';

const client = new OpenAI({
  baseURL: ${base},
  apiKey: ${k},
  dangerouslyAllowBrowser: true, // the key never leaves this browser
});

const stream = await client.chat.completions.create({
  model: '${SNIPPET_MODEL}',
  messages: [{ role: 'user', content: 'Say hello in five words.' }],
  stream: true,
});
let text = '';
for await (const chunk of stream) {
  text += chunk.choices[0]?.delta?.content ?? '';
}
console.log(text);`,
    },
    {
      id: 'responses',
      title: 'Responses API',
      note: 'npm install openai; responses are stored in this browser unless store: false',
      code: `import OpenAI from 'openai';

const client = new OpenAI({ baseURL: ${base}, apiKey: ${k}, dangerouslyAllowBrowser: true });

const first = await client.responses.create({
  model: '${SNIPPET_MODEL}',
  input: 'Say hello in five words.',
});
console.log(first.output_text);
// The conversation continues from the stored response.
const next = await client.responses.create({
  model: '${SNIPPET_MODEL}',
  previous_response_id: first.id,
  input: 'Now in three.',
});
console.log(next.output_text);`,
    },
    {
      id: 'embeddings',
      title: 'Embeddings',
      note: 'npm install openai; svc-embed: 384 dimensions, unit length',
      code: `import OpenAI from 'openai';

const client = new OpenAI({ baseURL: ${base}, apiKey: ${k}, dangerouslyAllowBrowser: true });

const { data } = await client.embeddings.create({
  model: 'svc-embed',
  input: ['The cat sat on the mat.', 'A feline rested on the rug.'],
});
const [a, b] = data.map((d) => d.embedding);
// Unit-length vectors: the dot product is the cosine similarity.
console.log(a.reduce((sum, x, i) => sum + x * b[i], 0));`,
    },
    {
      id: 'ai-sdk',
      title: 'AI SDK',
      note: 'npm install ai @ai-sdk/openai-compatible',
      code: `import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { streamText } from 'ai';

const inpage = createOpenAICompatible({
  name: 'inpage',
  baseURL: ${base},
  apiKey: ${k},
  // json_schema answers are held to the schema (generateObject, Output.object)
  supportsStructuredOutputs: true,
});

const result = streamText({
  model: inpage('${SNIPPET_MODEL}'),
  prompt: 'Say hello in five words.',
});
for await (const text of result.textStream) {
  console.log(text);
}`,
    },
  ];
}
