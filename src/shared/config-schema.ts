// The settings of /inpage.config.json (and `installInpage({config})`) as a JSON Schema, so editors complete and
// check them: `"$schema": "./node_modules/inpage/dist-pkg/config.schema.json"` in the file. Derived from what
// declares each part: the defaults (src/shared/config.ts), the `models` entries' zod schemas (src/shared/model-config.ts) and the
// upstreams' fields (src/shared/upstreams.ts); `npm run build:pkg` writes it into the package.
import { DEFAULT_CONFIG, TEST_KNOBS, type InpageConfig } from './config';
import { ENGINE_KINDS } from './engine-kinds/specs';
import { modelEntrySchemas } from './model-config';
import { z } from './protocol/zod';
import { MCP_BOUNDS } from './mcp-servers';
import { CREDENTIALS, DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT_MS, DIALECTS, UPSTREAM_BOUNDS } from './upstreams';

/** What each setting does: a key of InpageConfig missing here, or one more, does not compile. */
const NOTES: Record<keyof InpageConfig, string> = {
  queueDepth: 'Requests that may wait behind the running one before 429 queue_full.',
  modelBaseUrl: "Where web-llm's model weights are fetched from: {modelBaseUrl}/{model id}/resolve/main/…. Empty: web-llm's prebuilt hosts.",
  modelLibBaseUrl: "Where web-llm's compiled model libraries (.wasm) are fetched from: {modelLibBaseUrl}/{file}. Empty: web-llm's prebuilt hosts.",
  gpuMemoryMB: "GPU memory (MB) one loaded model may use, which sets each model's context length. 0: half of navigator.deviceMemory.",
  engineHeartbeatMs: 'How often the page checks that its engine worker is alive (ms); one silent for 3 periods is restarted. 0: never.',
  models: "Which models serve the public ids, which ids are hidden, ids of the deployment's own, and per id the hybrid mode (docs/configuration.md).",
  engineChoice: 'Which engine serves the models on this device: auto (web-llm where its WebGPU needs are met, else llama.cpp), webllm or llamacpp.',
  ggufBaseUrl: "Where llama.cpp's GGUF files are fetched from: {ggufBaseUrl}/{repo}/resolve/main/{file}. Empty: Hugging Face.",
  llamaThreads: 'CPU threads llama.cpp may use; 0: all logical cores (one when the page is not cross-origin isolated).',
  modelProvider:
    "Consumer mode (docs/shared-models.md): the model provider whose models this site runs (its origin, or its provider.html URL); where it cannot serve, this site's own engine does and /v1/models says why. Empty: off.",
  modelProviderWaitMs: "How long (ms) the page waits for the model provider's frame, a person's click included, before this site's own engine serves.",
  mcpServers:
    "Remote MCP tools in /v1/responses: the servers a request's tools[i].server_url may name, as origins (https://mcp.example.com) or URL prefixes (https://mcp.example.com/team/). Empty: none; any other server_url is 400 invalid_value.",
  mcpMaxCalls: MCP_BOUNDS.mcpMaxCalls.note,
  mcpCallTimeoutMs: MCP_BOUNDS.mcpCallTimeoutMs.note,
  mcpMaxResultBytes: MCP_BOUNDS.mcpMaxResultBytes.note,
  mcpMaxTools: MCP_BOUNDS.mcpMaxTools.note,
  upstreams:
    'Hybrid: OpenAI-compatible servers by name, which models entries send ids to (docs/hybrid.md). A literal API key here is refused at start-up: this file is served to every visitor.',
};

const ENGINE_CHOICES = ['auto', ...ENGINE_KINDS];

function upstreamSchema(): Record<string, unknown> {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['url'],
    properties: {
      url: { type: 'string', description: 'The base URL the OpenAI paths go under ({url}/chat/completions): absolute, or a path on this site.' },
      dialect: {
        enum: [...DIALECTS],
        default: 'openai',
        description: "How the server speaks OpenAI's wire (thinking switch, reasoning field, stream quirks).",
      },
      credentials: {
        enum: [...CREDENTIALS],
        default: 'omit',
        description: "include: send the site's cookies (a backend of your own on the same site, which holds the key).",
      },
      concurrency: {
        type: 'integer',
        minimum: 1,
        default: DEFAULT_CONCURRENCY,
        description: 'Requests that may run at once on this server; one more is 429 queue_full.',
      },
      timeoutMs: {
        type: 'integer',
        minimum: 1,
        default: DEFAULT_TIMEOUT_MS,
        description: 'No first token within this time: fall over, or 504 upstream_timeout.',
      },
      ...Object.fromEntries(
        Object.entries(UPSTREAM_BOUNDS).map(([field, b]) => [
          field,
          { type: 'integer', minimum: b.min, maximum: b.max, default: b.default, description: b.note },
        ]),
      ),
    },
  };
}

/** The JSON Schema (draft 2020-12) of the settings file. */
export function configJsonSchema(): Record<string, unknown> {
  const entrySchemas = Object.values(modelEntrySchemas());
  // zod's own JSON Schema of the entries; its refinements (URL checks) cannot be expressed and are checked at start-up.
  const toJsonSchema = z.toJSONSchema as (schema: unknown, options: object) => Record<string, unknown>;
  const entry = (schema: unknown) => {
    const { $schema: _s, ...rest } = toJsonSchema(schema, { unrepresentable: 'any', io: 'input' });
    return rest;
  };
  const properties: Record<string, unknown> = { $schema: { type: 'string' } };
  for (const key of Object.keys(NOTES) as (keyof InpageConfig)[]) {
    const fallback = DEFAULT_CONFIG[key];
    const description = NOTES[key];
    if (key === 'models') {
      properties[key] = { type: 'object', description, additionalProperties: { anyOf: entrySchemas.map(entry) } };
    } else if (key === 'upstreams') {
      properties[key] = { type: 'object', description, additionalProperties: upstreamSchema() };
    } else if (key === 'mcpServers') {
      properties[key] = { type: 'array', items: { type: 'string' }, default: [], description };
    } else if (key === 'engineChoice') {
      properties[key] = { enum: ENGINE_CHOICES, default: fallback, description };
    } else if (typeof fallback === 'number') {
      properties[key] = { type: 'number', minimum: 0, default: fallback, description };
    } else {
      properties[key] = { type: 'string', default: fallback, description };
    }
  }
  void TEST_KNOBS; // test builds' knobs are URL parameters, never settings of the file
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'inpage settings (/inpage.config.json)',
    type: 'object',
    additionalProperties: false,
    properties,
  };
}
