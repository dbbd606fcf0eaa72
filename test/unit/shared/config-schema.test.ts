// The settings' JSON Schema (src/shared/config-schema.ts) agrees with what inpage accepts at start-up: configs it takes
// validate, and the mistakes an editor should flag do not.
import Ajv2020 from 'ajv/dist/2020';
import { describe, expect, it } from 'vitest';
import { configJsonSchema } from '#shared/config-schema';
import { DEFAULT_CONFIG, TEST_KNOBS } from '#shared/config';
import { buildCatalog } from '#shared/model-config';

const validate = new Ajv2020({ strict: false }).compile(configJsonSchema());

describe('the settings JSON Schema', () => {
  it('takes the defaults and the documented examples (which start-up takes too)', () => {
    const examples = [
      // The defaults (less the test build's knobs, URL parameters that are no settings of the file).
      Object.fromEntries(Object.entries(DEFAULT_CONFIG).filter(([key]) => !TEST_KNOBS.includes(key))),
      { $schema: './node_modules/inpage/dist-pkg/config.schema.json', ggufBaseUrl: '/gguf', engineHeartbeatMs: 0 },
      { isolationReload: 'off' },
      { models: { 'svc-model-5.2-short-fast': { engine: 'llamacpp', gguf: '/g/own-Q8_0.gguf', context: 2048 }, 'svc-vision': { hidden: true } } },
      {
        upstreams: { gpu: { url: 'https://llm.example.com/v1', dialect: 'vllm', credentials: 'include', concurrency: 8 } },
        models: { 'svc-model-5.2': { mode: 'prefer-local', upstream: { via: 'gpu', model: 'Qwen/Qwen3-8B-FP8' } } },
      },
    ];
    for (const example of examples) {
      expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
      buildCatalog((example as { models?: unknown }).models ?? {});
    }
  });

  it('flags unknown settings, wrong types, unknown engines, modes and dialects, and fields of the wrong engine', () => {
    const bad = [
      { queueDept: 4 },
      { queueDepth: '4' },
      { engineChoice: 'cuda' },
      { isolationReload: 'never' },
      { models: { 'svc-model-5.2': { mode: 'sometimes' } } },
      { models: { 'svc-model-5.2': { engine: 'llamacpp', webllm: 'Qwen3-8B-q4f16_1-MLC' } } },
      { upstreams: { gpu: { url: 'https://llm.example.com/v1', dialect: 'tgi' } } },
      { upstreams: { gpu: { url: 'https://llm.example.com/v1', apiKey: 'sk-live' } } },
      { upstreams: { gpu: { dialect: 'vllm' } } },
    ];
    for (const example of bad) expect(validate(example), JSON.stringify(example)).toBe(false);
  });
});
