// The engine registry (worker/engine/registry.ts) and the engine kinds it lists (src/shared/engine-kinds/): every
// kind has one descriptor, its entry schema, its files and a place in the settings' JSON Schema, and the device's
// engine reaches each through them.
import { describe, expect, it } from 'vitest';
import { ENGINE_KINDS, DEFAULT_ENTRY_KIND } from '#shared/engine-kinds/names';
import { ENGINE_KIND_SPECS } from '#shared/engine-kinds/specs';
import { ENGINE_FILES, engineCache } from '#shared/engine-files';
import { configJsonSchema } from '#shared/config-schema';
import { buildCatalog, modelEntrySchemas } from '#shared/model-config';
import { ENGINES, ENGINE_ORDER } from '../../../worker/engine/registry';
import { chooseEngine, importRoutes } from '../../../worker/engine/device-engine';

const noGpu = { report: { available: false, reason: 'No WebGPU adapter.', features: [], shaderF16: false } };
const gpu = { report: { available: true, features: ['shader-f16'], shaderF16: true } };

describe('the engine registry', () => {
  it('lists each kind once, in the order of ENGINE_KINDS, each descriptor under its own kind', () => {
    expect(ENGINE_ORDER.map((d) => d.kind)).toEqual([...ENGINE_KINDS]);
    for (const kind of ENGINE_KINDS) expect(ENGINES[kind].kind).toBe(kind);
    expect(Object.keys(ENGINES).sort()).toEqual([...ENGINE_KINDS].sort());
  });

  it('gives every kind its entry schema, its label, its files and its cache', () => {
    expect(Object.keys(modelEntrySchemas()).sort()).toEqual([...ENGINE_KINDS].sort());
    expect(Object.keys(ENGINE_FILES).sort()).toEqual([...ENGINE_KINDS].sort());
    expect(ENGINE_KIND_SPECS.webllm.label).toBe('web-llm (WebGPU)');
    expect(ENGINE_KIND_SPECS.llamacpp.label).toBe('llama.cpp');
    expect(ENGINE_KINDS.map(engineCache)).toEqual(['inpage-engine-webllm', 'inpage-engine-llamacpp']);
  });

  it('offers each kind in the settings JSON Schema: engineChoice and a models entry per kind', () => {
    const properties = (configJsonSchema() as { properties: Record<string, { enum?: string[]; additionalProperties?: { anyOf: unknown[] } }> }).properties;
    expect(properties.engineChoice!.enum).toEqual(['auto', ...ENGINE_KINDS]);
    expect(properties.models!.additionalProperties!.anyOf).toHaveLength(ENGINE_KINDS.length);
  });

  it('forces each kind by engineChoice, and picks by the registry order on auto', () => {
    for (const kind of ENGINE_KINDS) expect(chooseEngine(kind, noGpu)).toEqual({ kind, reason: ENGINES[kind].forcedWhy });
    expect(chooseEngine('auto', gpu)).toEqual({ kind: 'webllm', reason: "WebGPU meets web-llm's needs." });
    expect(chooseEngine('auto', noGpu)).toEqual({ kind: 'llamacpp', reason: 'llama.cpp on the CPU: No WebGPU adapter.' });
  });

  it('parses an entry naming no engine as the default kind, and each kind by its own schema', () => {
    expect(DEFAULT_ENTRY_KIND).toBe('webllm');
    const catalog = buildCatalog({ 'own-web': { webllm: 'Some-Model-q4f16_1-MLC' }, 'own-gguf': { engine: 'llamacpp', gguf: '/m/own.gguf' } });
    expect(catalog.variants.find((v) => v.id === 'own-web')?.engine).toBe('webllm');
    expect(catalog.variants.find((v) => v.id === 'own-gguf')?.engine).toBe('llamacpp');
    expect(catalog.groups['gguf:own']).toMatchObject({ engine: 'llamacpp', gguf: { files: ['/m/own.gguf'] } });
    expect(() => buildCatalog({ x: { engine: 'other' } })).toThrow(`models["x"].engine: unknown engine "other" (engines: ${ENGINE_KINDS.join(', ')})`);
  });

  it("routes an import by each engine's files: GGUF to llama.cpp, the rest to web-llm", () => {
    const file = (path: string) => ({ path, file: new Blob([]) });
    const gguf = file('m/model.gguf');
    const config = file('w/mlc-chat-config.json');
    expect(importRoutes([gguf, config], ['webllm', 'llamacpp'])).toEqual({
      routes: [
        ['llamacpp', [gguf]],
        ['webllm', [config]],
      ],
      problems: [],
    });
    const notHere = importRoutes([gguf, config], ['webllm']);
    expect(notHere.routes).toEqual([['webllm', [config]]]);
    expect(notHere.problems).toEqual([expect.stringContaining('Not imported: model.gguf. GGUF files are for the llama.cpp engine')]);
    // Only llama.cpp runs: web-llm's files go to it, which names the files it expected.
    expect(importRoutes([config], ['llamacpp'])).toEqual({ routes: [['llamacpp', [config]]], problems: [] });
  });
});
