// Imported files land where web-llm itself looks: its own hasModelInCache says the model is cached, and its own
// delete removes what was imported. Real IndexedDB, real web-llm cache code, in Chromium.
import { deleteModelAllInfoInCache, hasModelInCache } from '@mlc-ai/web-llm';
import { DEFAULT_CATALOG } from '#shared/model-config';
import { openDB } from 'idb';
import { describe, expect, it } from 'vitest';
import { CACHE_SCOPES, planImport, writeImport, type ImportFile } from '../../../worker/engine/webllm/import-files';
import { appConfigFor, prebuiltRecord } from '../../../worker/engine/webllm/models';

const origin = location.origin;
/** A model source of its own for each test, so no test sees another's files (web-llm keeps its databases open). */
const selfHosted = () => ({ modelBaseUrl: `/models-${crypto.randomUUID()}`, modelLibBaseUrl: 'https://libs.example/web-llm' });

function bytes(length: number, seed: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(new ArrayBuffer(length));
  for (let i = 0; i < length; i++) out[i] = (i * 31 + seed) & 0xff;
  return out;
}

/** A made-up model folder: the names and manifests web-llm reads, bytes that are not a model. */
function folder(prefix: string, modelId: string, options: { legacy?: boolean; drop?: string; lib?: boolean } = {}): ImportFile[] {
  const shards = ['params_shard_0.bin', 'params_shard_1.bin'];
  const files: Record<string, Blob> = {
    'mlc-chat-config.json': new Blob([JSON.stringify({ tokenizer_files: ['tokenizer.json', 'vocab.json'], model_type: 'qwen3' })]),
    'tokenizer.json': new Blob([JSON.stringify({ model: { type: 'BPE' } })]),
    'vocab.json': new Blob(['{}']),
    [options.legacy ? 'ndarray-cache.json' : 'tensor-cache.json']: new Blob([
      JSON.stringify({ metadata: {}, records: shards.map((dataPath) => ({ dataPath, nbytes: 1000, format: 'raw-shard', records: [] })) }),
    ]),
  };
  shards.forEach((name, i) => (files[name] = new Blob([bytes(1000, i)])));
  if (options.lib !== false) {
    const lib = prebuiltRecord(modelId).model_lib;
    files[lib.slice(lib.lastIndexOf('/') + 1)] = new Blob([bytes(64, 9)]);
  }
  if (options.drop) delete files[options.drop];
  return Object.entries(files).map(([name, file]) => ({ path: `${prefix}/${name}`, file }));
}

describe('importing model files into web-llm’s cache', () => {
  it('web-llm’s own hasModelInCache sees an imported model; its bytes come back as written; its own delete removes it', async () => {
    const modelId = 'Qwen3-1.7B-q4f16_1-MLC';
    const source = selfHosted();
    const appConfig = appConfigFor(DEFAULT_CATALOG, source, origin);
    expect(await hasModelInCache(modelId, appConfig)).toBe(false);

    const files = folder(`disk/${modelId}`, modelId);
    const plan = await planImport(DEFAULT_CATALOG, files, source, origin);
    expect(plan.problems).toEqual([]);
    expect(plan.models.map((m) => [m.modelId, m.variants])).toEqual([[modelId, ['svc-model-5.2-short', 'svc-model-5.2-short-fast']]]);
    const progress: number[] = [];
    await writeImport(plan, (p) => progress.push(p.bytesDone));
    expect(progress.at(-1)).toBe(plan.models[0]!.bytes);

    expect(await hasModelInCache(modelId, appConfig)).toBe(true);
    // Another model of the same weights family is not.
    expect(await hasModelInCache('Qwen3-1.7B-q4f32_1-MLC', appConfig)).toBe(false);

    const base = `${origin}${source.modelBaseUrl}/${modelId}/resolve/main/`;
    const model = await openDB(CACHE_SCOPES.model, 1);
    const shard = (await model.get('urls', `${base}params_shard_1.bin`)) as { data: ArrayBuffer };
    expect(new Uint8Array(shard.data)).toEqual(bytes(1000, 1));
    const manifest = (await model.get('urls', `${base}tensor-cache.json`)) as { data: { records: unknown[] } };
    expect(manifest.data.records).toHaveLength(2);
    model.close();
    const wasm = await openDB(CACHE_SCOPES.wasm, 1);
    expect(await wasm.get('urls', appConfig.model_list.find((r) => r.model_id === modelId)!.model_lib)).toBeDefined();
    wasm.close();
    const config = await openDB(CACHE_SCOPES.config, 1);
    expect(await config.get('urls', `${base}mlc-chat-config.json`)).toBeDefined();
    config.close();

    await deleteModelAllInfoInCache(modelId, appConfig);
    expect(await hasModelInCache(modelId, appConfig)).toBe(false);
  });

  it('knows the model from its library when the folder has another name; keys follow web-llm’s own hosts by default', async () => {
    const modelId = 'Phi-3.5-vision-instruct-q4f32_1-MLC';
    const plan = await planImport(DEFAULT_CATALOG, folder('my-copy', modelId), { modelBaseUrl: '', modelLibBaseUrl: '' }, origin);
    expect(plan.models.map((m) => m.modelId)).toEqual([modelId]);
    expect(plan.models[0]!.entries.at(-1)!.url).toBe(`https://huggingface.co/mlc-ai/${modelId}/resolve/main/tensor-cache.json`);
    await writeImport(plan);
    expect(await hasModelInCache(modelId, appConfigFor(DEFAULT_CATALOG, { modelBaseUrl: '', modelLibBaseUrl: '' }, origin))).toBe(true);
  });

  it('imports an older ndarray-cache.json under the name web-llm reads, and several models at once', async () => {
    const a = 'Qwen3-8B-q4f16_1-MLC';
    const b = 'Qwen3-8B-q4f32_1-MLC';
    const files = [...folder(`pulled/${a}/resolve/main`, a, { legacy: true, lib: false }), ...folder(`pulled/${b}/resolve/main`, b, { lib: false })];
    const source = selfHosted();
    const plan = await planImport(DEFAULT_CATALOG, files, source, origin);
    expect(plan.models.map((m) => m.modelId).sort()).toEqual([a, b]);
    expect(plan.models.find((m) => m.modelId === a)!.warnings.join(' ')).toContain('ndarray-cache.json was imported as tensor-cache.json');
    expect(plan.models[0]!.warnings.join(' ')).toContain('is not in the selection');
    await writeImport(plan);
    const appConfig = appConfigFor(DEFAULT_CATALOG, source, origin);
    expect(await hasModelInCache(a, appConfig)).toBe(true);
    expect(await hasModelInCache(b, appConfig)).toBe(true);
  });

  it('refuses incomplete or unknown folders with a reason, and writes nothing for them', async () => {
    const modelId = 'Qwen3-1.7B-q4f16_1-MLC';
    const source = selfHosted();
    const missingShard = await planImport(DEFAULT_CATALOG, folder(modelId, modelId, { drop: 'params_shard_1.bin' }), source, origin);
    expect(missingShard.models).toEqual([]);
    expect(missingShard.problems[0]).toContain('params_shard_1.bin is missing');
    const noTokenizer = await planImport(DEFAULT_CATALOG, folder(modelId, modelId, { drop: 'tokenizer.json' }), source, origin);
    expect(noTokenizer.problems[0]).toContain('no tokenizer');
    const unknown = await planImport(DEFAULT_CATALOG, folder('mystery', modelId, { lib: false }), source, origin);
    expect(unknown.problems[0]).toContain('name the folder after its web-llm model id');
    const empty = await planImport(DEFAULT_CATALOG, [{ path: 'x/readme.txt', file: new Blob(['hi']) }], source, origin);
    expect(empty.problems[0]).toContain('No model found');
    await writeImport(missingShard);
    expect(await hasModelInCache(modelId, appConfigFor(DEFAULT_CATALOG, source, origin))).toBe(false);
  });
});
