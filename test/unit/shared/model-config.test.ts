// Models by configuration: the `models` setting → the catalog (variants and weight groups) → what web-llm loads.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '#shared/config';
import type { EngineEvent } from '#shared/wire/engine-port';
import { ModelConfigError, buildCatalog } from '#shared/model-config';
import { ApiError } from '#shared/protocol/errors';
import { validateChatRequest } from '#shared/protocol/validate';
import { VARIANTS, VARIANT_IDS } from '#shared/variants';
import { WebLlmEngine } from '../../../worker/engine/webllm/adapter';
import { appConfigFor, webllmModels } from '../../../worker/engine/webllm/models';
import { rig } from '../fakes/webllm-fake';
import { withPlan } from '../../../worker/engine/common/plan';

/** A request as the service worker checks it against the deployment's catalog (`models`). */
const planned = (body: Record<string, unknown>, models: unknown = {}) => withPlan(validateChatRequest(body, buildCatalog(models)));

const SMALLER_QWEN = { webllm: { f16: 'Qwen3-0.6B-q4f16_1-MLC', f32: 'Qwen3-0.6B-q4f32_1-MLC' } };
const LLAMA = { webllm: { f16: 'Llama-3.2-1B-Instruct-q4f16_1-MLC', f32: 'Llama-3.2-1B-Instruct-q4f32_1-MLC' } };
const OWN_RECORD = {
  model_id: 'Acme-Chat-q4f32_1-MLC',
  model: '/models/Acme-Chat-q4f32_1-MLC',
  model_lib: '/models/libs/Acme-Chat-q4f32_1-webgpu.wasm',
  vram_required_MB: 900,
  overrides: { context_window_size: 2048, conv_template: { name: 'chatml' } },
};

function errorOf(models: unknown): string {
  try {
    webllmModels(buildCatalog(models));
  } catch (err) {
    expect(err).toBeInstanceOf(ModelConfigError);
    return (err as Error).message;
  }
  throw new Error('expected the config to be refused');
}

describe('the models setting', () => {
  it('absent or empty: the five as they ship', () => {
    for (const models of [undefined, null, {}]) {
      const catalog = buildCatalog(models);
      expect(catalog.variants).toEqual(VARIANT_IDS.map((id) => VARIANTS[id]));
      expect(Object.keys(catalog.groups)).toEqual(['qwen3-8b', 'qwen3-1.7b', 'phi-3.5-vision', 'arctic-embed-s']);
    }
  });

  it('maps one of the five to another prebuilt model: its own weight group, the default context, the thinking switch of Qwen3', () => {
    const catalog = buildCatalog({ 'svc-model-5.2-short-fast': SMALLER_QWEN });
    const fast = catalog.variants.find((v) => v.id === 'svc-model-5.2-short-fast')!;
    const short = catalog.variants.find((v) => v.id === 'svc-model-5.2-short')!;
    expect(short.weightGroup).toBe('qwen3-1.7b');
    expect(fast).toMatchObject({
      thinks: false,
      vision: false,
      trainedContext: 4096,
      hostedContext: 200_000,
      created: VARIANTS['svc-model-5.2-short-fast'].created,
    });
    expect(fast.weightGroup).not.toBe(short.weightGroup);
    expect(webllmModels(catalog).get(fast.weightGroup)).toEqual({
      f16: 'Qwen3-0.6B-q4f16_1-MLC',
      f32: 'Qwen3-0.6B-q4f32_1-MLC',
      thinkingSwitch: 'enable_thinking',
      toolFormat: 'qwen3',
    });
  });

  it("gives each model its family's tool format, or the entry's own, and none to a family without one", () => {
    const catalog = buildCatalog({
      'team/llama': LLAMA,
      'team/mistral': { webllm: 'Mistral-7B-Instruct-v0.3-q4f16_1-MLC' },
      'team/phi': { webllm: 'Phi-4-mini-instruct-q4f16_1-MLC' },
      'team/hermes': { webllm: 'Hermes-3-Llama-3.1-8B-q4f16_1-MLC' },
      'team/qwen25': { webllm: 'Qwen2.5-1.5B-Instruct-q4f16_1-MLC' },
      'team/gemma': { webllm: 'gemma-2-2b-it-q4f16_1-MLC' },
      'team/gemma-as-llama': { webllm: 'gemma-2-2b-it-q4f32_1-MLC', toolFormat: 'llama3' },
      'team/llama-off': { webllm: 'Llama-3.2-1B-Instruct-q4f32_1-MLC', toolFormat: 'none' },
      'acme-chat': { record: OWN_RECORD },
      'acme-qwen': { record: { ...OWN_RECORD, model_id: 'Acme-Qwen-MLC' }, thinking: 'enable_thinking' },
    });
    const format = (id: string) => webllmModels(catalog).get(catalog.variants.find((v) => v.id === id)!.weightGroup)!.toolFormat;
    expect(['svc-model-5.2', 'svc-vision', 'team/llama', 'team/mistral', 'team/phi', 'team/hermes', 'team/qwen25', 'team/gemma'].map(format)).toEqual([
      'qwen3',
      'none',
      'llama3',
      'mistral',
      'phi4-mini',
      'qwen3',
      'qwen3',
      'none',
    ]);
    expect(['team/gemma-as-llama', 'team/llama-off', 'acme-chat', 'acme-qwen'].map(format)).toEqual(['llama3', 'none', 'none', 'qwen3']);
  });

  it("hides any of the five and adds ids of the deployment's own, after the five, in order", () => {
    const catalog = buildCatalog({ 'svc-vision': { hidden: true }, 'acme-chat': { record: OWN_RECORD }, 'team/llama': LLAMA });
    expect(catalog.variants.map((v) => v.id)).toEqual([
      'svc-model-5.2',
      'svc-model-5.2-fast',
      'svc-model-5.2-short',
      'svc-model-5.2-short-fast',
      'svc-embed',
      'acme-chat',
      'team/llama',
    ]);
    const [acme, llama] = catalog.variants.slice(5);
    expect(acme).toMatchObject({ thinks: false, vision: false, hostedContext: null, trainedContext: 4096 });
    expect(llama!.created).toBeGreaterThan(acme!.created);
    expect(acme!.created).toBeGreaterThan(VARIANTS['svc-vision'].created);
    const table = webllmModels(catalog);
    expect(table.get(acme!.weightGroup)).toMatchObject({ f16: OWN_RECORD.model_id, f32: OWN_RECORD.model_id, thinkingSwitch: 'none', custom: OWN_RECORD });
    expect(table.get(llama!.weightGroup)!.thinkingSwitch).toBe('none');
    // A hidden model is not there for requests.
    expect(() => validateChatRequest({ model: 'svc-vision', messages: [{ role: 'user', content: 'hi' }] }, catalog)).toThrow(/does not exist/);
    expect(validateChatRequest({ model: 'acme-chat', messages: [{ role: 'user', content: 'hi' }] }, catalog).variant).toEqual(acme);
  });

  it('gives web-llm the custom record with its URLs resolved against the origin, next to the prebuilt ones', () => {
    const app = appConfigFor(buildCatalog({ 'acme-chat': { record: OWN_RECORD } }), { modelBaseUrl: '', modelLibBaseUrl: '' }, 'https://app.example');
    const record = app.model_list.find((r) => r.model_id === OWN_RECORD.model_id)!;
    expect(record).toMatchObject({
      model: 'https://app.example/models/Acme-Chat-q4f32_1-MLC',
      model_lib: 'https://app.example/models/libs/Acme-Chat-q4f32_1-webgpu.wasm',
      vram_required_MB: 900,
      overrides: OWN_RECORD.overrides,
    });
    expect(app.model_list.some((r) => r.model_id === 'Qwen3-8B-q4f32_1-MLC')).toBe(true);
  });

  it('llama.cpp entries: a GGUF by URL (or split parts), its projector, thinking, context; ids naming one file share a group', () => {
    const catalog = buildCatalog({
      'svc-model-5.2-short': {
        engine: 'llamacpp',
        gguf: 'https://files.example/q/Qwen3-4B-Q8_0.gguf',
        contextLength: 32768,
        context: 8192,
        bytes: 4_280_000_000,
      },
      'svc-model-5.2-short-fast': { engine: 'llamacpp', gguf: 'https://files.example/q/Qwen3-4B-Q8_0.gguf', thinks: false },
      'svc-vision': { engine: 'llamacpp', gguf: ['/g/vl-00001-of-00002.gguf', '/g/vl-00002-of-00002.gguf'], mmproj: '/g/mmproj-vl.gguf', thinks: true },
      'svc-model-5.2': { engine: 'llamacpp' },
      'svc-model-5.2-fast': { engine: 'webllm' },
      'team-gguf': { engine: 'llamacpp', gguf: '/models/team-00001-of-00003.gguf', thinking: 'none' },
    });
    const v = Object.fromEntries(catalog.variants.map((x) => [x.id, x]));
    expect(v['svc-model-5.2-short']).toMatchObject({ engine: 'llamacpp', thinks: true, trainedContext: 32768, weightGroup: 'gguf:Qwen3-4B-Q8_0' });
    expect(v['svc-model-5.2-short-fast']).toMatchObject({ engine: 'llamacpp', thinks: false, weightGroup: 'gguf:Qwen3-4B-Q8_0' });
    expect(catalog.groups['gguf:Qwen3-4B-Q8_0']).toMatchObject({
      engine: 'llamacpp',
      configuredBy: 'svc-model-5.2-short',
      gguf: { files: ['https://files.example/q/Qwen3-4B-Q8_0.gguf'], context: 8192, bytes: 4_280_000_000 },
    });
    expect(v['svc-vision']).toMatchObject({ engine: 'llamacpp', thinks: true, vision: true, trainedContext: 4096, weightGroup: 'gguf:vl' });
    expect(catalog.groups['gguf:vl']!.gguf).toEqual({ files: ['/g/vl-00001-of-00002.gguf', '/g/vl-00002-of-00002.gguf'], mmproj: '/g/mmproj-vl.gguf' });
    // Tied to an engine without naming a model: the shipped weight group, the GGUF default (or web-llm model).
    expect(v['svc-model-5.2']).toMatchObject({ engine: 'llamacpp', weightGroup: 'qwen3-8b', trainedContext: 40_960 });
    expect(v['svc-model-5.2-fast']).toMatchObject({ engine: 'webllm', weightGroup: 'qwen3-8b' });
    // One file named by its first split part stands for all of them.
    expect(v['team-gguf']).toMatchObject({ engine: 'llamacpp', thinks: false, weightGroup: 'gguf:team' });
    expect(catalog.groups['gguf:team']!.gguf).toEqual({ files: ['/models/team-00001-of-00003.gguf'], thinking: 'none' });
    // Untouched: no engine tie. A web-llm model named: tied to web-llm. web-llm's table leaves the GGUF groups out.
    expect(buildCatalog({}).variants.every((x) => x.engine === undefined)).toBe(true);
    expect(buildCatalog({ 'svc-model-5.2-short-fast': SMALLER_QWEN }).variants.find((x) => x.id === 'svc-model-5.2-short-fast')!.engine).toBe('webllm');
    expect([...webllmModels(catalog).keys()]).toEqual(['qwen3-8b', 'arctic-embed-s']);
    // Two files of one name get two groups.
    const two = buildCatalog({ a: { engine: 'llamacpp', gguf: '/x/m.gguf' }, b: { engine: 'llamacpp', gguf: '/y/m.gguf' } });
    expect(two.variants.slice(-2).map((x) => x.weightGroup)).toEqual(['gguf:m', 'gguf:m~2']);
  });

  it('refuses a bad entry with a message that names it', () => {
    const cases: [unknown, RegExp][] = [
      [[], /^models: expected an object/],
      ['Qwen3', /^models: expected an object/],
      [{ 'svc-model-5.2': 'Qwen3-4B-q4f16_1-MLC' }, /^models\["svc-model-5\.2"\]: Invalid input: expected object/],
      [{ 'svc-model-5.2': { webllm: 'No-Such-Model-MLC' } }, /^models\["svc-model-5\.2"\]\.webllm: this web-llm release ships no model 'No-Such-Model-MLC'/],
      [{ 'svc-vision': { webllm: 'Qwen3-4B-q4f16_1-MLC' } }, /^models\["svc-vision"\]\.webllm: 'Qwen3-4B-q4f16_1-MLC' takes no images/],
      [{ mine: { thinks: true } }, /^models\["mine"\]: a model id of the deployment's own needs 'webllm'/],
      [{ mine: { ...LLAMA, thinks: true } }, /^models\["mine"\]: a model that thinks needs a thinking switch/],
      [{ mine: { ...LLAMA, colour: 'red' } }, /^models\["mine"\]: unknown field 'colour'/],
      [{ mine: { ...LLAMA, toolFormat: 'gorilla' } }, /^models\["mine"\]\.toolFormat: .*"qwen3".*"phi4-mini"/],
      [{ 'svc-model-5.2': { toolFormat: 'llama3' } }, /^models\["svc-model-5\.2"\]: 'thinking', 'kv' and 'toolFormat' describe a model/],
      [{ mine: { ...LLAMA, record: OWN_RECORD } }, /^models\["mine"\]: give either 'webllm'/],
      [{ mine: { record: { ...OWN_RECORD, model_lib: 3 } } }, /^models\["mine"\]\.record\.model_lib: /],
      [
        { mine: { record: { ...OWN_RECORD, model_id: 'Qwen3-8B-q4f32_1-MLC' } } },
        /^models\["mine"\]\.record\.model_id: 'Qwen3-8B-q4f32_1-MLC' is a web-llm prebuilt id/,
      ],
      [{ mine: { ...LLAMA, kv: { layers: 16, kvHeads: 8, headDim: 64 } } }, /^models\["mine"\]\.kv: give 'contextLength'/],
      [{ 'svc-model-5.2': { thinking: 'none' } }, /^models\["svc-model-5\.2"\]: 'thinking', 'kv' and 'toolFormat' describe a model/],
      [{ 'bad id!': LLAMA }, /^models\["bad id!"\]: a model id must be/],
      [{ gguf: { engine: 'llamacpp', url: '/m.gguf' } }, /^models\["gguf"\]: unknown field 'url'/],
      [{ mine: { engine: 'onnx', gguf: '/m.gguf' } }, /^models\["mine"\]\.engine: unknown engine "onnx" \(engines: webllm, llamacpp\)/],
      [{ mine: { engine: 'llamacpp' } }, /^models\["mine"\]: a model id of the deployment's own on llama\.cpp needs 'gguf'/],
      [{ mine: { engine: 'llamacpp', gguf: '/m.bin' } }, /^models\["mine"\]\.gguf: must be an http\(s\) URL \(or a path on this origin\) of a \.gguf file/],
      [{ mine: { engine: 'llamacpp', gguf: 'file:///m.gguf' } }, /^models\["mine"\]\.gguf: must be an http\(s\) URL/],
      [{ mine: { engine: 'llamacpp', gguf: ['/a.gguf', 7] } }, /^models\["mine"\]\.gguf\[1\]: /],
      [{ mine: { engine: 'llamacpp', gguf: [] } }, /^models\["mine"\]\.gguf: /],
      [
        { mine: { engine: 'llamacpp', gguf: '/m-00002-of-00003.gguf' } },
        /^models\["mine"\]\.gguf: '\/m-00002-of-00003\.gguf' is part 2 of a split model; give the first part \(-00001-of-00003\.gguf\)/,
      ],
      [
        { mine: { engine: 'llamacpp', gguf: ['/m-00001-of-00002.gguf', '/m-00003-of-00002.gguf'] } },
        /^models\["mine"\]\.gguf\[1\]: the parts of a split model must be named .* expected '\/m-00002-of-00002\.gguf', got '\/m-00003-of-00002\.gguf'/,
      ],
      [
        { mine: { engine: 'llamacpp', gguf: ['/m-00001-of-00003.gguf', '/m-00002-of-00003.gguf'] } },
        /^models\["mine"\]\.gguf\[0\]: the parts of a split model .* expected '\/m-00001-of-00002\.gguf'/,
      ],
      [
        { mine: { engine: 'llamacpp', gguf: ['/a-00001-of-00002.gguf', '/b-00002-of-00002.gguf'] } },
        /^models\["mine"\]\.gguf\[1\]: .* one prefix: expected '\/a-00002-of-00002\.gguf'/,
      ],
      [{ mine: { engine: 'llamacpp', gguf: ['/a.gguf', '/b.gguf'] } }, /^models\["mine"\]\.gguf\[0\]: the parts of a split model/],
      [{ mine: { engine: 'llamacpp', gguf: '/m.gguf', vision: true } }, /^models\["mine"\]: a vision model on llama\.cpp needs 'mmproj'/],
      [{ mine: { engine: 'llamacpp', gguf: '/m.gguf', mmproj: '/p.gguf' } }, /^models\["mine"\]\.mmproj: a vision projector is for a vision model/],
      [
        { mine: { engine: 'llamacpp', gguf: '/m.gguf', kv: { layers: 1, kvHeads: 1, headDim: 1 } } },
        /^models\["mine"\]\.kv: 'kv' sizes web-llm's context; on llama\.cpp give 'context'/,
      ],
      [
        { mine: { engine: 'llamacpp', gguf: '/m.gguf', context: 8192, contextLength: 4096 } },
        /^models\["mine"\]\.context: 8192 is more than the model's trained maximum/,
      ],
      [{ mine: { engine: 'llamacpp', gguf: '/m.gguf', thinks: true, thinking: 'none' } }, /^models\["mine"\]: a model that thinks needs a thinking switch/],
      [{ mine: { engine: 'llamacpp', gguf: '/m.gguf', webllm: 'Qwen3-4B-q4f16_1-MLC' } }, /^models\["mine"\]: unknown field 'webllm'/],
      [{ 'svc-embed': { engine: 'llamacpp' } }, /^models\["svc-embed"\]\.engine: the llama\.cpp engine has no embedding model/],
      [{ 'svc-model-5.2': { engine: 'llamacpp', mmproj: '/p.gguf' } }, /^models\["svc-model-5\.2"\]\.mmproj: 'mmproj' describes a model: give it with 'gguf'/],
      [Object.fromEntries(VARIANT_IDS.map((id) => [id, { hidden: true }])), /^models: every model is hidden/],
    ];
    for (const [models, expected] of cases) expect(errorOf(models), JSON.stringify(models)).toMatch(expected);
  });

  it("pins: each model id's hashes reach its web-llm record (shipped, prebuilt or own), always as errors, never warnings", () => {
    const pin = { config: `sha384-${'A'.repeat(64)}`, model_lib: `sha256-${'B'.repeat(43)}=`, tokenizer: { 'tokenizer.json': `sha512-${'C'.repeat(86)}==` } };
    const catalog = buildCatalog({
      'svc-model-5.2-short': { integrity: { 'Qwen3-1.7B-q4f16_1-MLC': pin } },
      // the same pin again through the other id on these weights is allowed
      'svc-model-5.2-short-fast': { integrity: { 'Qwen3-1.7B-q4f16_1-MLC': pin } },
      'acme-chat': { record: OWN_RECORD, integrity: { [OWN_RECORD.model_id]: { model_lib: pin.model_lib } } },
    });
    const app = appConfigFor(catalog, { modelBaseUrl: '/models', modelLibBaseUrl: '/models/libs' }, 'https://app.example');
    const byId = (id: string) => app.model_list.find((r) => r.model_id === id)!;
    expect(byId('Qwen3-1.7B-q4f16_1-MLC').integrity).toEqual({ ...pin, onFailure: 'error' });
    expect(byId(OWN_RECORD.model_id).integrity).toEqual({ model_lib: pin.model_lib, onFailure: 'error' });
    // Not pinned by the deployment: web-llm checks nothing (it ships no hashes of its own).
    expect(byId('Qwen3-1.7B-q4f32_1-MLC').integrity).toBeUndefined();
    expect(byId('Qwen3-8B-q4f16_1-MLC').integrity).toBeUndefined();
  });

  it('refuses a pin that is not one SRI hash, a file web-llm does not check, a contradiction and a model nothing serves', () => {
    const good = `sha384-${'A'.repeat(64)}`;
    const cases: [unknown, RegExp][] = [
      [
        { 'svc-model-5.2': { integrity: { 'Qwen3-8B-q4f16_1-MLC': { config: 'sha384-abc' } } } },
        /^models\["svc-model-5\.2"\]\.integrity\.Qwen3-8B-q4f16_1-MLC\.config: must be one SRI hash/,
      ],
      [{ 'svc-model-5.2': { integrity: { 'Qwen3-8B-q4f16_1-MLC': { config: `md5-${'A'.repeat(24)}` } } } }, /must be one SRI hash/],
      [{ 'svc-model-5.2': { integrity: { 'Qwen3-8B-q4f16_1-MLC': { config: `${good} ${good}` } } } }, /must be one SRI hash/],
      [
        { 'svc-model-5.2': { integrity: { 'Qwen3-8B-q4f16_1-MLC': { tokenizer: { 'vocab.json': good } } } } },
        /^models\["svc-model-5\.2"\]\.integrity\.Qwen3-8B-q4f16_1-MLC\.tokenizer/,
      ],
      [{ 'svc-model-5.2': { integrity: { 'Qwen3-8B-q4f16_1-MLC': { onFailure: 'warn' } } } }, /unknown field 'onFailure'/],
      [
        {
          'svc-model-5.2': { integrity: { 'Qwen3-8B-q4f16_1-MLC': { config: good } } },
          'svc-model-5.2-fast': { integrity: { 'Qwen3-8B-q4f16_1-MLC': { config: `sha384-${'B'.repeat(64)}` } } },
        },
        /^models\["svc-model-5\.2-fast"\]\.integrity\.Qwen3-8B-q4f16_1-MLC: pins 'Qwen3-8B-q4f16_1-MLC' differently from models\["svc-model-5\.2"\]/,
      ],
      [
        { 'svc-model-5.2': { integrity: { 'Qwen3-8B-q4f16-MLC': { config: good } } } },
        /^models\["svc-model-5\.2"\]\.integrity: no id of this deployment is served by 'Qwen3-8B-q4f16-MLC'/,
      ],
    ];
    for (const [models, expected] of cases) expect(errorOf(models), JSON.stringify(models)).toMatch(expected);
  });

  it('any value at all: a catalog of at least one model, or a ModelConfigError naming where; never another failure', () => {
    // GGUF URLs near the rules: split parts in and out of order, other extensions, odd schemes.
    const ggufName = fc
      .tuple(
        fc.constantFrom('/m', 'https://h.example/m', 'data:m', '', 'ftp://x/m'),
        fc.constantFrom('', '-00001-of-00002', '-00002-of-00002', '-00001-of-00001', '-1-of-2'),
        fc.constantFrom('.gguf', '.GGUF', '.bin', '.gguf?x=1'),
      )
      .map(([a, b, c]) => a + b + c);
    const entryValue = fc.oneof(
      fc.anything(),
      fc.record(
        {
          engine: fc.constantFrom('webllm', 'llamacpp', 'other', 3),
          hidden: fc.oneof(fc.boolean(), fc.string()),
          thinks: fc.boolean(),
          vision: fc.boolean(),
          thinking: fc.constantFrom('enable_thinking', 'none', 'maybe'),
          contextLength: fc.oneof(fc.integer({ min: -5, max: 200_000 }), fc.double()),
          kv: fc.record({ layers: fc.integer({ min: 0, max: 64 }), kvHeads: fc.integer({ min: 0, max: 64 }), headDim: fc.integer({ min: 0, max: 256 }) }),
          webllm: fc.oneof(
            fc.constantFrom('Qwen3-4B-q4f16_1-MLC', 'Llama-3.2-1B-Instruct-q4f32_1-MLC', 'Phi-3.5-vision-instruct-q4f32_1-MLC', 'Nope-MLC', ''),
            fc.record({ f16: fc.string(), f32: fc.string() }),
          ),
          record: fc.record(
            { model_id: fc.string(), model: fc.string(), model_lib: fc.oneof(fc.string(), fc.integer()), overrides: fc.anything() },
            { requiredKeys: [] },
          ),
          gguf: fc.oneof(ggufName, fc.array(ggufName, { maxLength: 4 }), fc.anything()),
          mmproj: fc.oneof(ggufName, fc.integer()),
          context: fc.integer({ min: -1, max: 100_000 }),
          bytes: fc.oneof(fc.integer({ min: -1, max: 2 ** 40 }), fc.double()),
        },
        { requiredKeys: [] },
      ),
    );
    const id = fc.oneof(fc.constantFrom(...VARIANT_IDS), fc.string({ maxLength: 70 }), fc.constantFrom('__proto__', 'constructor', 'mine'));
    const models = fc.oneof(fc.anything(), fc.dictionary(id, entryValue, { maxKeys: 7 }));
    fc.assert(
      fc.property(models, (value) => {
        try {
          const catalog = buildCatalog(value);
          webllmModels(catalog);
          expect(catalog.variants.length).toBeGreaterThan(0);
          for (const v of catalog.variants) expect(catalog.groups[v.weightGroup]).toBeDefined();
        } catch (err) {
          expect(err).toBeInstanceOf(ModelConfigError);
          expect((err as Error).message).toMatch(/^models(\[|:)/);
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe('the web-llm engine serves a configured model', () => {
  /** `models`: the deployment's setting the engine was made with (the service worker checks requests against it). */
  async function run(engine: WebLlmEngine, models: unknown, model: string, extra: Record<string, unknown> = {}) {
    const generation = await engine.generate(planned({ model, messages: [{ role: 'user', content: 'hi' }], ...extra }, models), new AbortController().signal);
    const events: EngineEvent[] = [];
    for await (const event of generation.events) events.push(event);
    return { fingerprint: generation.fingerprint, events };
  }

  it('a model without a thinking switch gets no enable_thinking and no empty-block allowance; the fingerprint and status name it', async () => {
    const r = rig();
    const models = { 'svc-model-5.2-short-fast': LLAMA };
    const engine = new WebLlmEngine({ ...DEFAULT_CONFIG, models }, r.deps);
    await engine.ready();
    const out = await run(engine, models, 'svc-model-5.2-short-fast', { max_tokens: 5 });
    const sent = r.engine().requests[0]!;
    expect(r.engine().reloads[0]!.modelId).toBe('Llama-3.2-1B-Instruct-q4f32_1-MLC');
    expect(sent.extra_body).toBeUndefined();
    expect(sent.max_tokens).toBe(5);
    expect(out.fingerprint).toBe('fp_Llama-3.2-1B-Instruct-q4f32_1-MLC');
    const status = engine.status();
    expect(status.find((s) => s.id === 'svc-model-5.2-short-fast')).toMatchObject({
      modelId: 'Llama-3.2-1B-Instruct-q4f32_1-MLC',
      state: 'ready',
      context_length: 4096,
    });
    expect(status.find((s) => s.id === 'svc-model-5.2-short')).toMatchObject({ modelId: 'Qwen3-1.7B-q4f32_1-MLC', state: 'not_downloaded' });
    // Qwen3 as shipped still gets its switch.
    await run(engine, models, 'svc-model-5.2-fast', { max_tokens: 5 });
    expect(r.engine().requests[1]!.extra_body).toEqual({ enable_thinking: false });
  });

  it("an id of the deployment's own, from its own record: listed, loadable, its load error names the configured URLs", async () => {
    const r = rig();
    const models = { 'acme-chat': { record: OWN_RECORD }, 'svc-vision': { hidden: true } };
    const engine = new WebLlmEngine({ ...DEFAULT_CONFIG, models }, r.deps);
    await engine.ready();
    expect(engine.status().map((s) => s.id)).toEqual([
      'svc-model-5.2',
      'svc-model-5.2-fast',
      'svc-model-5.2-short',
      'svc-model-5.2-short-fast',
      'svc-embed',
      'acme-chat',
    ]);
    r.engine().onReload = () => {
      throw new Error('HTTP 404 Not Found');
    };
    const err = await engine
      .generate(planned({ model: 'acme-chat', messages: [{ role: 'user', content: 'hi' }] }, models), new AbortController().signal)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'model_load_failed' });
    expect((err as ApiError).message).toContain('https://app.example/models/Acme-Chat-q4f32_1-MLC');
    expect((err as ApiError).message).toContain('https://app.example/models/libs/Acme-Chat-q4f32_1-webgpu.wasm');
    expect(r.engine().reloads[0]!.modelId).toBe('Acme-Chat-q4f32_1-MLC');
  });

  it('a file that fails its pin: model_load_failed naming the file and both hashes; the rejected config and library leave the cache', async () => {
    const r = rig();
    const models = { 'acme-chat': { record: OWN_RECORD, integrity: { [OWN_RECORD.model_id]: { model_lib: `sha256-${'B'.repeat(43)}=` } } } };
    const engine = new WebLlmEngine({ ...DEFAULT_CONFIG, models }, r.deps);
    await engine.ready();
    const url = 'https://app.example/models/libs/Acme-Chat-q4f32_1-webgpu.wasm';
    r.engine().onReload = () => {
      // web-llm's IntegrityError, as it throws it (its own message is several lines).
      throw Object.assign(new Error(`Integrity verification failed for ${url}\n  Expected: x\n  Actual: y`), {
        name: 'IntegrityError',
        url,
        expected: `sha256-${'B'.repeat(43)}=`,
        actual: 'sha256-Zm9v',
      });
    };
    const err = await engine
      .generate(planned({ model: 'acme-chat', messages: [{ role: 'user', content: 'hi' }] }, models), new AbortController().signal)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'model_load_failed' });
    expect((err as ApiError).message).toContain(
      `${url} does not match the hash this deployment pinned for it (pinned sha256-${'B'.repeat(43)}=, the file has sha256-Zm9v)`,
    );
    expect(r.cache.deletedParts.sort()).toEqual([`${OWN_RECORD.model_id}:config`, `${OWN_RECORD.model_id}:library`]);
    expect(r.engine().reloads[0]!.modelId).toBe(OWN_RECORD.model_id);
    expect(
      appConfigFor(buildCatalog(models), { modelBaseUrl: '', modelLibBaseUrl: '' }, 'https://app.example').model_list.find(
        (m) => m.model_id === OWN_RECORD.model_id,
      )!.integrity,
    ).toMatchObject({ onFailure: 'error' });
  });

  it('a bad entry stops the engine at start, naming it', () => {
    expect(() => new WebLlmEngine({ ...DEFAULT_CONFIG, models: { 'svc-model-5.2': { webllm: 'Nope-MLC' } } }, rig().deps)).toThrow(
      /models\["svc-model-5\.2"\]\.webllm/,
    );
  });
});
