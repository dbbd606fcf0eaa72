// Ready-to-paste client code for the Connect area.
import { modelIds, variantOf } from '#shared/catalog';
import type { ModelStatus } from '#shared/wire/engine-port';
import { KEY_PLACEHOLDER, fetchStreamCode, quote } from '../../kit/client-code';
import { answerable, chooseChatModel } from '../../kit/model-facts';

/** The embedding model the snippets name when the key reaches no other. */
const EMBED_MODEL = 'svc-embed';

/** The models the snippets name; null where the key reaches none of that kind. */
export interface SnippetModels {
  chat: string | null;
  embed: string | null;
  /** Whether this device (or its upstream) answers `chat`; false: no chat model the key reaches runs here. */
  chatRuns: boolean;
}

/**
 * The models for snippets run with a key that reaches `reach` (every id of the deployment without a key): the chat
 * model the Playground starts on (model-facts.ts: one this device, or its upstream, answers), among those the key
 * reaches; and the first embedding model reached, in the catalog's order. `statuses`: the engine's model states
 * (null while unknown: every model counts as answering).
 */
export function snippetModels(reach: readonly string[] = modelIds(), statuses: readonly ModelStatus[] | null = null): SnippetModels {
  const reached = modelIds().filter((id) => reach.includes(id));
  const chats = reached.filter((id) => !variantOf(id)?.embeddings);
  const chat = chats.length > 0 ? chooseChatModel(statuses, (id) => chats.includes(id)) : null;
  return {
    chat,
    embed:
      reached.find((id) => variantOf(id)?.embeddings && answerable(statuses?.find((m) => m.id === id))) ??
      reached.find((id) => variantOf(id)?.embeddings) ??
      null,
    chatRuns: chat !== null && answerable(statuses?.find((m) => m.id === chat)),
  };
}

export interface Snippet {
  id: 'fetch' | 'openai' | 'responses' | 'embeddings' | 'ai-sdk';
  title: string;
  note: string;
  code: string;
}

export function snippets(baseURL: string, key: string | null, models: SnippetModels = snippetModels()): Snippet[] {
  const k = quote(key ?? KEY_PLACEHOLDER);
  const base = quote(baseURL);
  const chatModel = models.chat ?? 'MODEL_THIS_KEY_REACHES';
  /** Said on a snippet whose kind of model the key does not reach. */
  const noChat = !models.chat
    ? ' This key reaches no chat model: make one that does in API Keys.'
    : models.chatRuns
      ? ''
      : ` No chat model this key reaches can run on this device (${models.chat} cannot): make a key that reaches one that runs, in API Keys.`;
  const noEmbed = models.embed ? '' : ' This key reaches no embedding model: make one that includes svc-embed in API Keys.';
  return [
    {
      id: 'fetch',
      title: 'fetch',
      note: `No library; reads the answer as a stream of server-sent events.${noChat}`,
      code: fetchStreamCode(
        `${baseURL}/chat/completions`,
        `'Bearer ' + ${k}`,
        `{
    model: '${chatModel}',
    messages: [{ role: 'user', content: 'Say hello in five words.' }],
    stream: true,
  }`,
      ),
    },
    {
      id: 'openai',
      title: 'openai SDK',
      note: `npm install openai${noChat}`,
      code: `import OpenAI from 'openai';

const client = new OpenAI({
  baseURL: ${base},
  apiKey: ${k},
  dangerouslyAllowBrowser: true, // the key never leaves this browser
});

const stream = await client.chat.completions.create({
  model: '${chatModel}',
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
      note: `npm install openai; responses are stored in this browser unless store: false${noChat}`,
      code: `import OpenAI from 'openai';

const client = new OpenAI({ baseURL: ${base}, apiKey: ${k}, dangerouslyAllowBrowser: true });

const first = await client.responses.create({
  model: '${chatModel}',
  input: 'Say hello in five words.',
});
console.log(first.output_text);
// The conversation continues from the stored response.
const next = await client.responses.create({
  model: '${chatModel}',
  previous_response_id: first.id,
  input: 'Now in three.',
});
console.log(next.output_text);`,
    },
    {
      id: 'embeddings',
      title: 'Embeddings',
      note: models.embed
        ? `npm install openai; ${models.embed}: ${variantOf(models.embed)?.embeddings?.dimensions ?? 384} dimensions, unit length`
        : `npm install openai.${noEmbed}`,
      code: `import OpenAI from 'openai';

const client = new OpenAI({ baseURL: ${base}, apiKey: ${k}, dangerouslyAllowBrowser: true });

const { data } = await client.embeddings.create({
  model: '${models.embed ?? EMBED_MODEL}',
  input: ['The cat sat on the mat.', 'A feline rested on the rug.'],
});
const [a, b] = data.map((d) => d.embedding);
// Unit-length vectors: the dot product is the cosine similarity.
console.log(a.reduce((sum, x, i) => sum + x * b[i], 0));`,
    },
    {
      id: 'ai-sdk',
      title: 'AI SDK',
      note: `npm install ai @ai-sdk/openai-compatible${noChat}`,
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
  model: inpage('${chatModel}'),
  prompt: 'Say hello in five words.',
});
for await (const text of result.textStream) {
  console.log(text);
}`,
    },
  ];
}
