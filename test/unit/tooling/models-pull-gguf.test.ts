// models:pull's llama.cpp part against a local server holding generated GGUF files at the defaults' paths: the
// files land in DIR/gguf in Hugging Face's layout (what `ggufBaseUrl: "/models/gguf"` reads), a whole file is not
// fetched again, a cut one is, a missing one fails naming its URL; the command suggests ggufBaseUrl.
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GGUF_DIR, ggufFor, pullGguf } from '../../../scripts/models-pull/gguf';
import { main } from '../../../scripts/models-pull/pull';
import { synthesizeGguf } from '../../../scripts/gguf/synthesize';
import { GGUF_DEFAULTS } from '../../../worker/engine/llamacpp/models';
import { serveStatic, type StaticServer } from '../../browser/static-server';

let dir: string;
let host: StaticServer;
const small = synthesizeGguf({ seed: 5 }).bytes;
const vision = synthesizeGguf({ seed: 6 }).bytes;
const projector = synthesizeGguf({ seed: 8 }).bytes.slice(0, 3000);
const at = (group: string, file?: string) => `${GGUF_DEFAULTS[group]!.repo}/resolve/main/${file ?? GGUF_DEFAULTS[group]!.file}`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inpage-pull-gguf-'));
  const put = async (path: string, bytes: Uint8Array) => {
    await mkdir(dirname(join(dir, 'host', path)), { recursive: true });
    await writeFile(join(dir, 'host', path), bytes);
  };
  await put(at('qwen3-1.7b'), small);
  await put(at('phi-3.5-vision'), vision);
  await put(at('phi-3.5-vision', GGUF_DEFAULTS['phi-3.5-vision']!.mmproj), projector);
  host = await serveStatic(4632, { '/': join(dir, 'host') });
});
afterAll(async () => {
  await host?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('models:pull, GGUF', () => {
  it('knows which files each variant needs: one set per weight group, the projector of a vision model, none for svc-embed', () => {
    expect(ggufFor(['svc-model-5.2-short', 'svc-model-5.2-short-fast', 'svc-vision', 'svc-embed'])).toEqual([
      {
        group: 'qwen3-1.7b',
        variants: ['svc-model-5.2-short', 'svc-model-5.2-short-fast'],
        repo: GGUF_DEFAULTS['qwen3-1.7b']!.repo,
        files: [GGUF_DEFAULTS['qwen3-1.7b']!.file],
      },
      {
        group: 'phi-3.5-vision',
        variants: ['svc-vision'],
        repo: GGUF_DEFAULTS['phi-3.5-vision']!.repo,
        files: [GGUF_DEFAULTS['phi-3.5-vision']!.file, GGUF_DEFAULTS['phi-3.5-vision']!.mmproj],
      },
    ]);
  });

  it("pulls into DIR/gguf in Hugging Face's layout; a whole file stays, a cut one is fetched again", async () => {
    const out = join(dir, 'out');
    const source = `${host.origin}/`;
    const first = await pullGguf({ variants: ['svc-model-5.2-short', 'svc-vision'], out, ggufSource: source });
    expect(first.flatMap((g) => g.files.map((f) => [f.path, f.bytes, f.downloaded]))).toEqual([
      [join(GGUF_DIR, at('qwen3-1.7b')), small.length, true],
      [join(GGUF_DIR, at('phi-3.5-vision')), vision.length, true],
      [join(GGUF_DIR, at('phi-3.5-vision', GGUF_DEFAULTS['phi-3.5-vision']!.mmproj)), projector.length, true],
    ]);
    expect(Buffer.from(await readFile(join(out, GGUF_DIR, at('qwen3-1.7b')))).equals(Buffer.from(small))).toBe(true);

    // Cut the vision model short: only it is fetched again.
    await writeFile(join(out, GGUF_DIR, at('phi-3.5-vision')), vision.slice(0, 100));
    const gets = host.gets.length;
    const second = await pullGguf({ variants: ['svc-model-5.2-short', 'svc-vision'], out, ggufSource: source });
    expect(second.flatMap((g) => g.files.map((f) => f.downloaded))).toEqual([false, true, false]);
    expect(host.gets.slice(gets)).toEqual([`/${at('phi-3.5-vision')}`]);
    expect((await stat(join(out, GGUF_DIR, at('phi-3.5-vision')))).size).toBe(vision.length);
  });

  it('a missing file fails naming its URL, and leaves no partial file behind', async () => {
    const out = join(dir, 'out-missing');
    const err = await pullGguf({ variants: ['svc-model-5.2'], out, ggufSource: host.origin }).catch((e: unknown) => e);
    expect(String(err)).toContain(`${host.origin}/${at('qwen3-8b')}`);
    await expect(stat(join(out, GGUF_DIR, at('qwen3-8b')))).rejects.toThrow();
    await expect(stat(join(out, GGUF_DIR, `${at('qwen3-8b')}.partial`))).rejects.toThrow();
  });

  it('the command pulls GGUF only with --engine llamacpp and suggests ggufBaseUrl for the folder', async () => {
    const out = join(dir, 'out-cli');
    const printed: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void printed.push(line));
    const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    let code: number;
    try {
      code = await main(['svc-model-5.2-short-fast', '--engine', 'llamacpp', '--gguf-source', host.origin, '--out', out]);
    } finally {
      log.mockRestore();
      err.mockRestore();
    }
    expect(code).toBe(0);
    const suggested = JSON.parse(await readFile(join(out, 'suggested-inpage.config.json'), 'utf8')) as Record<string, unknown>;
    expect(suggested).toEqual({ ggufBaseUrl: '/models/gguf' });
    expect(printed.join('\n')).toContain(GGUF_DEFAULTS['qwen3-1.7b']!.file);
    // No web-llm file was asked for.
    expect(host.gets.some((p) => !p.endsWith('.gguf'))).toBe(false);
  });

  it('refuses an unknown engine', async () => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect(await main(['svc-model-5.2', '--engine', 'onnx', '--out', join(dir, 'x')])).toBe(2);
      expect(err.mock.calls[0]![0]).toContain("--engine is webllm, llamacpp or both, not 'onnx'.");
    } finally {
      err.mockRestore();
    }
  });
});
