import { describe, expect, it } from 'vitest';
import { ENGINE_FILE_GLOBS, engineChunkFileNames, engineOfChunk, engineOfPath, withoutHash } from '#shared/engine-files';

describe("each engine's own files", () => {
  it('names a chunk after the one engine whose modules it holds; shared code keeps its name', () => {
    expect(engineOfChunk(['/r/worker/engine/webllm/index.ts', '/r/node_modules/@mlc-ai/web-llm/lib/index.js', '/r/worker/engine/common/gpu.ts'])).toBe(
      'webllm',
    );
    expect(engineOfChunk(['/r/worker/engine/llamacpp/index.ts', '/r/node_modules/@wllama/wllama/esm/index.js'])).toBe('llamacpp');
    expect(engineOfChunk(['/r/worker/engine/common/stop-matcher.ts'])).toBeNull();
    expect(engineOfChunk(['/r/worker/engine/webllm/thinking.ts', '/r/worker/engine/llamacpp/run.ts'])).toBeNull();
    const names = engineChunkFileNames('inpage-');
    expect(names({ name: 'index', moduleIds: ['/r/worker/engine/llamacpp/index.ts'] })).toBe('inpage-engine-llamacpp-index-[hash].js');
    expect(names({ name: 'llamacpp', moduleIds: ['/r/worker/engine/llamacpp/index.ts'] })).toBe('inpage-engine-llamacpp-[hash].js');
    expect(names({ name: 'hybrid', moduleIds: ['/r/worker/engine/hybrid.ts'] })).toBe('inpage-[name]-[hash].js');
  });

  it("knows a served file's engine at any base path, in the app's assets/ and in the package's inpage-… names", () => {
    expect(engineOfPath('/app/inpage-engine-webllm-Un-lplyI.js')).toBe('webllm');
    expect(engineOfPath('/assets/engine-llamacpp-CJ7LnzSo.js')).toBe('llamacpp');
    expect(engineOfPath('/a/b/inpage-wllama-DrYkKwf9.wasm')).toBe('llamacpp');
    expect(engineOfPath('/assets/wllama-DrYkKwf9.wasm')).toBe('llamacpp');
    expect(engineOfPath('/inpage-engine-worker-4G-e0xNg.js')).toBeNull();
    expect(engineOfPath('/inpage-device-engine-7Co7utmQ.js')).toBeNull();
    expect(engineOfPath('/app/inpage.js')).toBeNull();
    expect(ENGINE_FILE_GLOBS).toEqual(['**/*engine-webllm-*.js', '**/*engine-llamacpp-*.js', '**/*wllama-*.*']);
  });

  it('keeps one version per file: the name less its content hash', () => {
    expect(withoutHash('/app/inpage-engine-webllm-Un-lplyI.js')).toBe('/app/inpage-engine-webllm.js');
    expect(withoutHash('/app/inpage-wllama-DrYkKwf9.wasm')).toBe('/app/inpage-wllama.wasm');
  });
});
