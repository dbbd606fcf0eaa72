import { describe, expect, it } from 'vitest';
import { MODEL_CARDS, cardTitle } from '../../worker/engine/webllm/model-cards';
import { WEBLLM_MODELS, prebuiltRecord } from '../../worker/engine/webllm/models';

describe('model cards', () => {
  it('name every web-llm model inpage can load, and only those web-llm ships', () => {
    const ids = Object.values(WEBLLM_MODELS).flatMap((m) => [m.f16, m.f32]);
    expect(Object.keys(MODEL_CARDS).sort()).toEqual([...ids].sort());
    for (const id of ids) expect(prebuiltRecord(id).model_id).toBe(id);
  });

  it('title a card as family, size and quantisation', () => {
    expect(cardTitle(MODEL_CARDS['Qwen3-8B-q4f16_1-MLC']!)).toBe('Qwen3 8B · 4-bit');
    expect(cardTitle(MODEL_CARDS['Phi-3.5-vision-instruct-q4f32_1-MLC']!)).toBe('Phi-3.5-vision-instruct 4.2B · 4-bit');
  });
});
