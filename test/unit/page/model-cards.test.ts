import { describe, expect, it } from 'vitest';
import { cardOf, cardTitle } from '../../../src/page/model-cards';
import { ENGINE_KIND_SPECS } from '#shared/engine-kinds/specs';
import { WEBLLM_MODELS, prebuiltRecord } from '../../../worker/engine/webllm/models';
import { GGUF_DEFAULTS } from '../../../worker/engine/llamacpp/models';

const MODEL_CARDS = { webllm: ENGINE_KIND_SPECS.webllm.cards, llamacpp: ENGINE_KIND_SPECS.llamacpp.cards };

describe('model cards', () => {
  it('name every web-llm model inpage can load, and only those web-llm ships', () => {
    const ids = Object.values(WEBLLM_MODELS).flatMap((m) => [m.f16, m.f32]);
    expect(Object.keys(MODEL_CARDS.webllm).sort()).toEqual([...new Set(ids)].sort());
    for (const id of ids) expect(prebuiltRecord(id).model_id).toBe(id);
  });

  it('name every GGUF file llama.cpp loads by default, with the quantisation its default states', () => {
    const defaults = Object.values(GGUF_DEFAULTS);
    expect(Object.keys(MODEL_CARDS.llamacpp).sort()).toEqual(defaults.map((d) => d.file).sort());
    for (const d of defaults) expect(MODEL_CARDS.llamacpp[d.file]!.quantisation).toContain(`(${d.quantization})`);
  });

  it('title a card as family, size and quantisation', () => {
    expect(cardTitle(MODEL_CARDS.webllm['Qwen3-8B-q4f16_1-MLC']!)).toBe('Qwen3 8B · 4-bit');
    expect(cardTitle(MODEL_CARDS.webllm['Phi-3.5-vision-instruct-q4f32_1-MLC']!)).toBe('Phi-3.5-vision-instruct 4.2B · 4-bit');
    expect(cardTitle(MODEL_CARDS.webllm['snowflake-arctic-embed-s-q0f32-MLC-b4']!)).toBe('snowflake-arctic-embed-s 33M · 32-bit');
    expect(cardTitle(MODEL_CARDS.llamacpp['Qwen3VL-2B-Thinking-Q4_K_M.gguf']!)).toBe('Qwen3-VL-Thinking 2B · 4-bit');
  });

  it('are found by the engine a status names, web-llm where it names none', () => {
    const qwen = MODEL_CARDS.webllm['Qwen3-1.7B-q4f32_1-MLC'];
    expect(qwen).toBeDefined();
    expect(cardOf({ modelId: 'Qwen3-1.7B-q4f32_1-MLC' })).toBe(qwen);
    expect(cardOf({ modelId: 'Qwen3-1.7B-q4f32_1-MLC', runtime: { engine: 'webllm', device: 'webgpu' } })).toBe(qwen);
    // Another engine's table is not searched for a web-llm id.
    expect(cardOf({ modelId: 'Qwen3-1.7B-q4f32_1-MLC', runtime: { engine: 'llamacpp', device: 'cpu' } })).toBeUndefined();
    const gguf = MODEL_CARDS.llamacpp['Qwen3-1.7B-Q4_K_M.gguf'];
    expect(gguf).toBeDefined();
    expect(cardOf({ modelId: 'Qwen3-1.7B-Q4_K_M.gguf', runtime: { engine: 'llamacpp', device: 'cpu' } })).toBe(gguf);
    expect(cardOf({ modelId: 'Acme-Chat-q4f32_1-MLC' })).toBeUndefined();
    expect(cardOf({})).toBeUndefined();
    expect(cardOf(undefined)).toBeUndefined();
  });
});
