// models:pull pins what it pulls: against a local server holding generated model files, the hashes it writes are
// the SRI hashes of the files it saved (checked with web-llm's own verifier, which fails on a changed byte), and
// the settings it suggests are accepted by the deployment's `models` setting and reach web-llm's records.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyIntegrity } from '@mlc-ai/web-llm';
import { buildCatalog } from '#shared/model-config';
import { pull, parseArgs, SUGGESTED_CONFIG, main } from '../../../scripts/models-pull/pull';
import { recordFor, webllmModels } from '../../../worker/engine/webllm/models';
import { fakeModel, writeHosted, type FakeModel } from '../../browser/fake-model';
import { serveStatic, type StaticServer } from '../../browser/static-server';

let dir: string;
let host: StaticServer;
const f16 = fakeModel('Qwen3-1.7B-q4f16_1-MLC', { shardBytes: 4_000 });
const f32 = fakeModel('Qwen3-1.7B-q4f32_1-MLC', { shardBytes: 4_000 });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inpage-pins-'));
  await writeHosted(join(dir, 'host'), f16);
  await writeHosted(join(dir, 'host'), f32);
  host = await serveStatic(4630, { '/': join(dir, 'host') });
});
afterAll(async () => {
  await host?.close();
  await rm(dir, { recursive: true, force: true });
});

const b64 = (algorithm: string, data: Uint8Array) => `${algorithm}-${createHash(algorithm).update(data).digest('base64')}`;
const filesOf = (m: FakeModel) => ({ config: m.files.get('mlc-chat-config.json')!, tokenizer: m.files.get('tokenizer.json')!, lib: m.libBytes });

describe('models:pull pins', () => {
  it('writes sha384 pins of the config, library and checked tokenizer file of every model it pulled', async () => {
    const out = join(dir, 'out');
    const report = await pull({
      variants: ['svc-model-5.2-short', 'svc-model-5.2-short-fast'],
      precisions: ['f16', 'f32'],
      out,
      source: `${host.origin}/hf`,
      libSource: `${host.origin}/libs`,
    });
    expect(report.models.map((m) => m.modelId)).toEqual([f16.modelId, f32.modelId]);
    for (const [pulled, model] of [
      [report.models[0]!, f16],
      [report.models[1]!, f32],
    ] as const) {
      const files = filesOf(model);
      expect(pulled.integrity).toEqual({
        config: b64('sha384', files.config),
        model_lib: b64('sha384', files.lib),
        // tokenizer_config.json is pulled too, but web-llm never reads it: it has no pin.
        tokenizer: { 'tokenizer.json': b64('sha384', files.tokenizer) },
      });
      // web-llm's own check accepts each file against its pin, and refuses it with one byte changed.
      const saved = join(out, model.modelId, 'resolve', 'main');
      const ab = (b: Buffer) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
      await verifyIntegrity(ab(await readFile(join(saved, 'mlc-chat-config.json'))), pulled.integrity.config!, 'config');
      await verifyIntegrity(ab(await readFile(join(out, 'libs', model.lib))), pulled.integrity.model_lib!, 'lib');
      await verifyIntegrity(ab(await readFile(join(saved, 'tokenizer.json'))), pulled.integrity.tokenizer!['tokenizer.json']!, 'tok');
      const changed = Buffer.from(files.lib);
      changed[changed.length - 1] = changed[changed.length - 1]! ^ 1;
      await expect(verifyIntegrity(ab(changed), pulled.integrity.model_lib!, 'lib')).rejects.toThrow(/Integrity verification failed for lib/);
    }
  });

  it("the command line writes the suggested settings, which the models setting accepts and web-llm's records carry", async () => {
    const out = join(dir, 'cli');
    const lines: string[] = [];
    const log = console.log;
    const err = console.error;
    console.log = (line: string) => void lines.push(line);
    console.error = () => undefined;
    let code: number;
    try {
      code = await main([
        'svc-model-5.2-short',
        '--precision',
        'f16',
        '--sri',
        'sha256',
        '--out',
        out,
        '--source',
        `${host.origin}/hf`,
        '--lib-source',
        `${host.origin}/libs`,
        '--engine',
        'webllm',
      ]);
    } finally {
      console.log = log;
      console.error = err;
    }
    expect(code).toBe(0);
    const suggested = JSON.parse(await readFile(join(out, SUGGESTED_CONFIG), 'utf8')) as { modelBaseUrl: string; modelLibBaseUrl: string; models: unknown };
    expect(lines.join('\n')).toContain(JSON.stringify(suggested, null, 2));
    const files = filesOf(f16);
    expect(suggested).toEqual({
      modelBaseUrl: '/models',
      modelLibBaseUrl: '/models/libs',
      models: {
        'svc-model-5.2-short': {
          integrity: {
            [f16.modelId]: {
              config: b64('sha256', files.config),
              model_lib: b64('sha256', files.lib),
              tokenizer: { 'tokenizer.json': b64('sha256', files.tokenizer) },
            },
          },
        },
      },
    });
    const catalog = buildCatalog(suggested.models);
    webllmModels(catalog);
    // Both short variants use this model: the pin reaches its record whichever id loads it.
    const record = recordFor(catalog, f16.modelId, suggested, 'http://127.0.0.1:1');
    expect(record.integrity).toEqual({
      ...(suggested.models as Record<string, { integrity: Record<string, object> }>)['svc-model-5.2-short']!.integrity[f16.modelId],
      onFailure: 'error',
    });
    expect(recordFor(catalog, f32.modelId, suggested, 'http://127.0.0.1:1').integrity).toBeUndefined();
  });

  it('refuses an unknown hash name', () => {
    expect(() => parseArgs(['all', '--out', 'x', '--sri', 'md5'])).toThrow("--sri is sha256, sha384, sha512, not 'md5'.");
  });
});
