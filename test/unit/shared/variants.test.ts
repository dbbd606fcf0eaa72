// The variant table in code, docs/models.md's mirror of it, and web-llm's records behind it stay in step.
import { readFileSync } from 'node:fs';
import { DEFAULT_CATALOG } from '#shared/model-config';
import { prebuiltAppConfig } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import { CHAT_VARIANT_IDS, VARIANTS, VARIANT_IDS, isVariantId } from '#shared/variants';
import { WEBLLM_MODELS, modelIdOf, weightGroups } from '../../../worker/engine/webllm/models';
import type { Variant } from '#shared/variants';

/** The web-llm model ids behind a variant, by precision. */
const webllm = (v: Variant) => ({ f16: modelIdOf(DEFAULT_CATALOG, v, 'f16'), f32: modelIdOf(DEFAULT_CATALOG, v, 'f32') });

const record = (id: string) => prebuiltAppConfig.model_list.find((r) => r.model_id === id);

/** The rows of the first table of docs/models.md. */
function modelsDocRows(): string[][] {
  const lines = readFileSync(new URL('../../../docs/models.md', import.meta.url), 'utf8').split('\n');
  const start = lines.findIndex((l) => l.startsWith('| id |'));
  expect(start).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim().replace(/`/g, '')),
    );
  }
  return rows;
}

const mb = (n: number) => `${Math.round(n).toLocaleString('en-US')} MB`;

describe('the variant table', () => {
  it("has the five contract ids, fixed created times, and the contract's thinking and vision flags", () => {
    expect(CHAT_VARIANT_IDS).toEqual(['svc-model-5.2', 'svc-model-5.2-fast', 'svc-model-5.2-short', 'svc-model-5.2-short-fast', 'svc-vision']);
    expect(VARIANT_IDS).toEqual([...CHAT_VARIANT_IDS, 'svc-embed']);
    expect(CHAT_VARIANT_IDS.map((id) => [VARIANTS[id].thinks, VARIANTS[id].vision])).toEqual([
      [true, false],
      [false, false],
      [true, false],
      [false, false],
      [false, true],
    ]);
    expect(new Set(VARIANT_IDS.map((id) => VARIANTS[id].created)).size).toBe(6);
    expect(isVariantId('svc-model-5.2')).toBe(true);
    expect(isVariantId('gpt-4o')).toBe(false);
  });

  it('shares weights between each thinking variant and its -fast twin, and only there', () => {
    expect(webllm(VARIANTS['svc-model-5.2'])).toEqual(webllm(VARIANTS['svc-model-5.2-fast']));
    expect(webllm(VARIANTS['svc-model-5.2-short'])).toEqual(webllm(VARIANTS['svc-model-5.2-short-fast']));
    expect(weightGroups(DEFAULT_CATALOG).map((v) => v.weightGroup)).toEqual(['qwen3-8b', 'qwen3-1.7b', 'phi-3.5-vision', 'arctic-embed-s']);
    for (const id of VARIANT_IDS) {
      const same = VARIANT_IDS.filter((other) => VARIANTS[other].weightGroup === VARIANTS[id].weightGroup);
      for (const other of same) expect(webllm(VARIANTS[other])).toEqual(webllm(VARIANTS[id]));
    }
  });

  it('names web-llm models this release ships: q4f16 ones need shader-f16, the q4f32 fallbacks do not', () => {
    for (const id of CHAT_VARIANT_IDS) {
      const { f16, f32 } = webllm(VARIANTS[id]);
      expect(f16).toMatch(/-q4f16_1-MLC$/);
      expect(f32).toMatch(/-q4f32_1-MLC$/);
      expect(record(f16), f16).toBeDefined();
      expect(record(f32), f32).toBeDefined();
      expect(record(f32)!.required_features ?? []).not.toContain('shader-f16');
      expect(record(f16)!.vram_required_MB).toBeGreaterThan(0);
      expect(record(f32)!.vram_required_MB).toBeGreaterThan(0);
      expect(record(f16)!.model_type ?? 0).toBe(VARIANTS[id].vision ? 2 : 0); // web-llm's ModelType.VLM = 2
      expect(WEBLLM_MODELS[VARIANTS[id].weightGroup]?.kv).toBeDefined();
    }
  });

  it("serves svc-embed with web-llm's snowflake-arctic-embed-s (an embedding model, one q0f32 build for every adapter)", () => {
    const v = VARIANTS['svc-embed'];
    expect(v.embeddings).toEqual({ dimensions: 384, vocabulary: 30_522 });
    expect(v.thinks || v.vision).toBe(false);
    const { f16, f32 } = webllm(v);
    expect(f16).toBe('snowflake-arctic-embed-s-q0f32-MLC-b4');
    expect(f32).toBe(f16);
    expect(record(f16)!.model_type).toBe(1); // web-llm's ModelType.embedding
    expect(record(f16)!.required_features ?? []).not.toContain('shader-f16');
    // Less than half of -m's memory.
    expect(record(f16)!.vram_required_MB!).toBeLessThan(record('snowflake-arctic-embed-m-q0f32-MLC-b4')!.vram_required_MB! / 2);
  });

  it("is mirrored in docs/models.md, memory figures from web-llm's vram_required_MB", () => {
    const rows = modelsDocRows();
    expect(rows.map((r) => r[0])).toEqual([...VARIANT_IDS]);
    for (const row of rows) {
      const v = VARIANTS[row[0] as (typeof VARIANT_IDS)[number]];
      expect(row.slice(1, 6)).toEqual([
        v.thinks ? 'yes' : 'no',
        v.vision ? 'yes' : 'no',
        webllm(v).f16,
        webllm(v).f32,
        v.trainedContext.toLocaleString('en-US'),
      ]);
      expect(row[6]).toBe(`${mb(record(webllm(v).f16)!.vram_required_MB!)} / ${mb(record(webllm(v).f32)!.vram_required_MB!)}`);
    }
  });
});
