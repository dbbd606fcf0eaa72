// Which files of a selection go where in wllama's cache (worker/engine/llamacpp/import-files.ts): the model by
// its file name (each part of a split model), the mmproj by its name or paired with the model by "mmproj".
import { describe, expect, it } from 'vitest';
import { planGgufImport } from '../../../worker/engine/llamacpp/import-files';
import type { GgufSource } from '../../../worker/engine/llamacpp/models';
import type { Variant } from '#shared/variants';
import { DEFAULT_CATALOG } from '#shared/model-config';

const H = 'https://host.example/m';
const source = (files: string[], mmproj?: string): GgufSource => ({
  url: `${H}/${files[0]}`,
  files: files.map((f) => `${H}/${f}`),
  ...(mmproj ? { mmprojUrl: `${H}/${mmproj}` } : {}),
  bytes: 0,
  alwaysThinks: false,
  configured: true,
});
const sources: Record<string, GgufSource> = {
  'qwen3-8b': source(['Big-00001-of-00002.gguf', 'Big-00002-of-00002.gguf']),
  'qwen3-1.7b': source(['Small.gguf']),
  'phi-3.5-vision': source(['Vis.gguf'], 'mmproj-Vis-Q8_0.gguf'),
};
const sourceOf = (v: Variant) => sources[v.weightGroup]!;
const file = (path: string, size = 3) => ({ path, file: new Blob([new Uint8Array(size)]) });

describe('planGgufImport', () => {
  it('maps each file to the URL the engine downloads it from; split parts in order', () => {
    const plan = planGgufImport(
      [file('d/Big-00002-of-00002.gguf', 5), file('d/Big-00001-of-00002.gguf', 4), file('d/Small.gguf'), file('d/notes.txt')],
      sourceOf,
      DEFAULT_CATALOG,
    );
    expect(plan.problems).toEqual([]);
    expect(plan.models.map((m) => [m.modelId, m.entries.map((e) => [e.url, e.source.path]), m.bytes])).toEqual([
      [
        'Big-00001-of-00002.gguf',
        [
          [`${H}/Big-00001-of-00002.gguf`, 'd/Big-00001-of-00002.gguf'],
          [`${H}/Big-00002-of-00002.gguf`, 'd/Big-00002-of-00002.gguf'],
        ],
        9,
      ],
      ['Small.gguf', [[`${H}/Small.gguf`, 'd/Small.gguf']], 3],
    ]);
    expect(plan.models[1]!.variants).toContain('svc-model-5.2-short');
  });

  it('a missing split part or mmproj is a problem naming it; an mmproj is paired by name beside its model', () => {
    expect(planGgufImport([file('Big-00001-of-00002.gguf'), file('Vis.gguf')], sourceOf, DEFAULT_CATALOG).problems).toEqual([
      'Big-00001-of-00002.gguf: the model is split in 2 files and Big-00002-of-00002.gguf is not in the selection.',
      'Vis.gguf: its vision projector mmproj-Vis-Q8_0.gguf (or one .gguf file with "mmproj" in its name beside the model) is not in the selection.',
    ]);
    const paired = planGgufImport([file('v/Vis.gguf'), file('v/Vis-mmproj-f16.gguf')], sourceOf, DEFAULT_CATALOG);
    expect(paired.problems).toEqual([]);
    expect(paired.models[0]!.mmprojUrl).toBe(`${H}/mmproj-Vis-Q8_0.gguf`);
    expect(paired.models[0]!.entries.map((e) => e.source.path)).toEqual(['v/Vis.gguf', 'v/Vis-mmproj-f16.gguf']);
    expect(paired.models[0]!.warnings[0]).toContain('Vis-mmproj-f16.gguf was imported as its vision projector mmproj-Vis-Q8_0.gguf');
  });

  it('no expected file: the problem names the files expected and those found', () => {
    const plan = planGgufImport([file('x/Other.gguf')], sourceOf, DEFAULT_CATALOG);
    expect(plan.models).toEqual([]);
    expect(plan.problems[0]).toContain('(it has Other.gguf)');
    expect(plan.problems[0]).toContain('Small.gguf for svc-model-5.2-short');
    expect(plan.problems[0]).toContain('Big-00001-of-00002.gguf (and its 1 other parts)');
  });
});
