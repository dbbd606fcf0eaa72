// Generated stand-ins for a web-llm model's files, laid out as Hugging Face and web-llm's library host serve
// them: `<root>/hf/<model id>/resolve/main/<file>` and `<root>/libs/<library>.wasm`. Not a working model: the
// bytes are made up, but the names, the manifests and their sizes are what web-llm and models:pull read.
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prebuiltRecord } from '../../worker/engine/webllm/models';

export interface FakeModel {
  modelId: string;
  /** The library's file name. */
  lib: string;
  /** Every file by its path relative to the model folder (`resolve/main/`), plus the library under `libs/`. */
  files: Map<string, Buffer>;
  libBytes: Buffer;
}

/** Deterministic bytes, different for every seed. */
function bytes(seed: string, length: number): Buffer {
  const out = Buffer.alloc(length);
  let block = createHash('sha256').update(seed).digest();
  for (let at = 0; at < length; at += block.length) {
    block.copy(out, at, 0, Math.min(block.length, length - at));
    block = createHash('sha256').update(block).digest();
  }
  return out;
}

/** `lib`: the library's file name, for a model web-llm does not ship (default: its prebuilt record's). */
export function fakeModel(modelId: string, options: { legacyManifest?: boolean; shardBytes?: number; lib?: string } = {}): FakeModel {
  const shardBytes = options.shardBytes ?? 200_000;
  const files = new Map<string, Buffer>();
  const json = (value: unknown) => Buffer.from(JSON.stringify(value, null, 1));
  files.set(
    'mlc-chat-config.json',
    json({ model_type: 'qwen3', context_window_size: 4096, tokenizer_files: ['tokenizer.json', 'tokenizer_config.json'], conv_template: { name: 'qwen2' } }),
  );
  files.set('tokenizer.json', json({ version: '1.0', model: { type: 'BPE', vocab: { a: 0, b: 1 } }, fake: modelId }));
  files.set('tokenizer_config.json', json({ model_max_length: 4096 }));
  const shards = ['params_shard_0.bin', 'params_shard_1.bin', 'params_shard_2.bin'];
  for (const name of shards) files.set(name, bytes(`${modelId}/${name}`, shardBytes));
  const manifest = json({
    metadata: { ParamSize: shards.length, ParamBytes: shardBytes * shards.length, BitsPerParam: 4 },
    records: shards.map((dataPath) => ({
      dataPath,
      format: 'raw-shard',
      nbytes: shardBytes,
      records: [{ name: `${dataPath}.weight`, shape: [shardBytes / 4], dtype: 'uint32', format: 'f32-to-bf16', nbytes: shardBytes, byteOffset: 0 }],
    })),
  });
  files.set(options.legacyManifest ? 'ndarray-cache.json' : 'tensor-cache.json', manifest);
  const libUrl = options.lib ?? prebuiltRecord(modelId).model_lib;
  const lib = libUrl.slice(libUrl.lastIndexOf('/') + 1);
  const libBytes = Buffer.concat([Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]), bytes(`${modelId}/lib`, 50_000)]);
  return { modelId, lib, files, libBytes };
}

/** Writes `model` under `root` as a model host would serve it. */
export async function writeHosted(root: string, model: FakeModel): Promise<void> {
  const dir = join(root, 'hf', model.modelId, 'resolve', 'main');
  await mkdir(dir, { recursive: true });
  for (const [name, content] of model.files) await writeFile(join(dir, name), content);
  await mkdir(join(root, 'libs'), { recursive: true });
  await writeFile(join(root, 'libs', model.lib), model.libBytes);
}

/** Writes `model` as one flat folder, as someone would copy a model onto a disk: files and library together. */
export async function writeFolder(dir: string, model: FakeModel): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [name, content] of model.files) await writeFile(join(dir, name), content);
  await writeFile(join(dir, model.lib), model.libBytes);
}

export const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
