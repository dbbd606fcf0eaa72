// The workspace's words for this device, declared once (src/page/ui/model-facts.ts, plain-error.ts, snippets.ts):
// an error's cause from the status its host answered before the words of a failed fetch; the chat model the
// snippets and the Playground use is one this device answers; one label of how a model thinks.
import { describe, expect, it } from 'vitest';
import { httpStatusIn, plainLoadError } from '../../src/page/ui/plain-error';
import { snippetModels } from '../../src/page/ui/snippets';
import { capabilityLabel, chooseChatModel, thinkingHere } from '../../src/page/ui/model-facts';
import type { ModelStatus } from '../../src/engine-protocol';

const url = 'http://127.0.0.1:7000/gguf/Qwen/Qwen3-VL-2B-Thinking-GGUF/resolve/main/Qwen3VL-2B-Thinking-Q4_K_M.gguf';

describe('plainLoadError: the status first', () => {
  it('a 404 after "Failed to fetch" names the missing file and its address, not the network', () => {
    const message = `Loading svc-vision (GGUF Qwen3VL-2B-Thinking-Q4_K_M.gguf) failed: Failed to fetch ${url}: HTTP 404`;
    expect(plainLoadError(message, true)).toBe(
      `The model file Qwen3VL-2B-Thinking-Q4_K_M.gguf is missing at ${url}: 127.0.0.1:7000 answered 404 (not found). Check the deployment's model URLs, or import the file from a folder.`,
    );
  });
  it('401 and 403 are refusals, 5xx the host failing, 429 a limit', () => {
    expect(plainLoadError(`Failed to fetch ${url}: HTTP 403`, true)).toMatch(/^127\.0\.0\.1:7000 refused the model files \(403, access denied\)/);
    expect(plainLoadError(`Failed to fetch ${url}: HTTP 401`, true)).toMatch(/^127\.0\.0\.1:7000 refused the model files \(401, it asks to sign in\)/);
    expect(plainLoadError(`Failed to fetch ${url}: HTTP 503`, true)).toBe('127.0.0.1:7000 failed while sending the model files (503, a server error): try again later.');
    expect(plainLoadError(`Failed to fetch ${url}: HTTP 429`, true)).toMatch(/\(429, too many requests\)/);
  });
  it('no status: the network, online or not', () => {
    expect(plainLoadError(`Loading x failed: TypeError: Failed to fetch ${url}`, true)).toBe(
      'Could not reach 127.0.0.1:7000: the connection failed (the host is down, blocked, or this device is offline).',
    );
    expect(plainLoadError(`Loading x failed: TypeError: Failed to fetch ${url}`, false)).toBe('Could not reach 127.0.0.1:7000: this device seems to be offline.');
  });
  it('reads the ways engines write a status, and no number that is not one', () => {
    expect(httpStatusIn('answered 404')).toBe(404);
    expect(httpStatusIn('status: 500')).toBe(500);
    expect(httpStatusIn('GET x 403 Forbidden')).toBe(403);
    expect(httpStatusIn('Qwen3-4B 404 tokens')).toBeNull();
    expect(httpStatusIn(`Failed to fetch ${url}`)).toBeNull();
  });
});

const status = (id: string, state: ModelStatus['state'], extra: Partial<ModelStatus> = {}): ModelStatus => ({ id: id as ModelStatus['id'], state, context_length: 4096, ...extra });
/** A CPU device where Qwen3-8B's variants do not fit. */
const cpuDevice: ModelStatus[] = [
  status('svc-model-5.2', 'unavailable'),
  status('svc-model-5.2-fast', 'unavailable'),
  status('svc-model-5.2-short', 'not_downloaded'),
  status('svc-model-5.2-short-fast', 'not_downloaded'),
  status('svc-vision', 'not_downloaded', { thinks: true }),
  status('svc-embed', 'not_downloaded'),
];

describe('one chat model for the Playground and Connect', () => {
  it('is svc-model-5.2-fast where it runs', () => {
    expect(chooseChatModel(null)).toBe('svc-model-5.2-fast');
    expect(snippetModels()).toEqual({ chat: 'svc-model-5.2-fast', embed: 'svc-embed', chatRuns: true });
  });
  it('on a device that cannot run it, the first that runs and answers directly, for the snippets too', () => {
    expect(chooseChatModel(cpuDevice)).toBe('svc-model-5.2-short-fast');
    expect(snippetModels(undefined, cpuDevice)).toEqual({ chat: 'svc-model-5.2-short-fast', embed: 'svc-embed', chatRuns: true });
  });
  it('an upstream that answers a model this device cannot run makes it answerable', () => {
    const hybrid = cpuDevice.map((m) => (m.id === 'svc-model-5.2-fast' ? { ...m, serving: { engine: 'upstream' as const, mode: 'prefer-local' as const, why: 'x' } } : m));
    expect(snippetModels(undefined, hybrid as ModelStatus[]).chat).toBe('svc-model-5.2-fast');
  });
  it('a key that reaches only models that cannot run here: named, and said not to run', () => {
    expect(snippetModels(['svc-model-5.2', 'svc-embed'], cpuDevice)).toEqual({ chat: 'svc-model-5.2', embed: 'svc-embed', chatRuns: false });
    expect(snippetModels(['svc-embed'], cpuDevice)).toEqual({ chat: null, embed: 'svc-embed', chatRuns: false });
  });
});

describe('one label of how a model thinks here', () => {
  it('svc-vision on llama.cpp always thinks, in every area', () => {
    const vision = cpuDevice.find((m) => m.id === 'svc-vision');
    expect(thinkingHere('svc-vision', vision)).toBe('always');
    expect(capabilityLabel('svc-vision', vision)).toBe('always thinks, vision');
    expect(capabilityLabel('svc-vision', undefined)).toBe('answers directly, vision');
    expect(capabilityLabel('svc-model-5.2', undefined)).toBe('thinks first');
    expect(capabilityLabel('svc-embed', undefined)).toBe('embeddings');
  });
});
