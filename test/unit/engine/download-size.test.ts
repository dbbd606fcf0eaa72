// The download size told before a download: web-llm's manifest summed with the library's length, never guessed.
import { describe, expect, it } from 'vitest';
import { contentLength, type Fetch } from '../../../worker/engine/common/download-size';
import { manifestBytes, webllmDownloadSize, webllmFilesUrl } from '../../../worker/engine/webllm/download-size';

const record = { model: 'https://huggingface.co/mlc-ai/Qwen3-1.7B-q4f16_1-MLC', model_lib: 'https://libs.example/Qwen3-1.7B-q4f16_1_cs1k-webgpu.wasm' };
const manifest = {
  records: [
    { dataPath: 'params_shard_0.bin', nbytes: 1000 },
    { dataPath: 'params_shard_1.bin', nbytes: 2500 },
  ],
};

/** Answers from a table of URL → response; records the requests (method and URL). */
function server(answers: Record<string, () => Response>) {
  const seen: string[] = [];
  const fetchFn: Fetch = async (url, init) => {
    seen.push(`${init?.method ?? 'GET'} ${url}`);
    const answer = answers[url];
    if (!answer) throw new TypeError('Failed to fetch');
    return answer();
  };
  return { fetchFn, seen };
}

describe('download size', () => {
  it('finds the files where web-llm does', () => {
    expect(webllmFilesUrl('https://huggingface.co/mlc-ai/M')).toBe('https://huggingface.co/mlc-ai/M/resolve/main/');
    expect(webllmFilesUrl('http://127.0.0.1:1/hf/M/resolve/main/')).toBe('http://127.0.0.1:1/hf/M/resolve/main/');
  });

  it('sums the shards of a manifest, and refuses anything else', () => {
    expect(manifestBytes(manifest)).toBe(3500);
    expect(manifestBytes({ records: [] })).toBeNull();
    expect(manifestBytes({ records: [{ nbytes: -1 }] })).toBeNull();
    expect(manifestBytes({ records: [{ nbytes: '5' }] })).toBeNull();
    expect(manifestBytes(null)).toBeNull();
  });

  it('weights by the manifest plus the library by HEAD; only the manifest is fetched whole', async () => {
    const { fetchFn, seen } = server({
      'https://huggingface.co/mlc-ai/Qwen3-1.7B-q4f16_1-MLC/resolve/main/tensor-cache.json': () => Response.json(manifest),
      [record.model_lib]: () => new Response(null, { headers: { 'content-length': '500' } }),
    });
    expect(await webllmDownloadSize(record, fetchFn)).toEqual({ bytes: 4000, basis: 'manifest', host: 'huggingface.co', covers: 'weights and model library' });
    expect(seen).toEqual(['GET https://huggingface.co/mlc-ai/Qwen3-1.7B-q4f16_1-MLC/resolve/main/tensor-cache.json', `HEAD ${record.model_lib}`]);
  });

  it('says so when the library has no length, and is unknown when the manifest cannot be had', async () => {
    const noLib = server({ 'https://huggingface.co/mlc-ai/Qwen3-1.7B-q4f16_1-MLC/resolve/main/tensor-cache.json': () => Response.json(manifest) });
    expect(await webllmDownloadSize(record, noLib.fetchFn)).toMatchObject({
      bytes: 3500,
      basis: 'manifest',
      covers: expect.stringContaining('library’s size is not known'),
    });
    expect(await webllmDownloadSize(record, server({}).fetchFn)).toEqual({ bytes: null, basis: 'unknown', host: 'huggingface.co' });
    const missing = server({
      'https://huggingface.co/mlc-ai/Qwen3-1.7B-q4f16_1-MLC/resolve/main/tensor-cache.json': () => new Response('Not found', { status: 404 }),
    });
    expect(await webllmDownloadSize(record, missing.fetchFn)).toEqual({ bytes: null, basis: 'unknown', host: 'huggingface.co' });
  });

  it('reads a length only from a successful answer that has one', async () => {
    const { fetchFn } = server({
      'https://a/ok': () => new Response(null, { headers: { 'content-length': '42' } }),
      'https://a/none': () => new Response(null),
      'https://a/404': () => new Response(null, { status: 404, headers: { 'content-length': '9' } }),
    });
    expect(await contentLength('https://a/ok', fetchFn)).toBe(42);
    expect(await contentLength('https://a/none', fetchFn)).toBeNull();
    expect(await contentLength('https://a/404', fetchFn)).toBeNull();
    expect(await contentLength('https://a/unreachable', fetchFn)).toBeNull();
  });
});
