// How many tokens of context a model gets on this device: web-llm configures 4096 by default; we raise it as
// far as GPU memory and buffer limits allow, up to the model's trained maximum.
import type { KvShape, Precision } from './models';
import { WEBLLM_DEFAULT_CONTEXT } from './models';
import type { GpuProbe } from '../common/gpu';

const MiB = 1024 * 1024;
/** Contexts are multiples of this (web-llm's KV pages are 16 tokens; round figures read better). */
export const CONTEXT_STEP = 1024;

export interface DeviceBudget {
  /** Megabytes the engine may use on the GPU for one loaded model. */
  memoryMB: number;
  /** The largest single buffer the adapter allows (min of maxBufferSize and maxStorageBufferBindingSize). */
  maxBufferBytes: number;
}

export function budgetOf(probe: GpuProbe, memoryMB: number): DeviceBudget {
  return { memoryMB, maxBufferBytes: probe.maxBufferBytes ?? 0 };
}

/** Bytes of KV cache one token takes: keys and values, every layer, in the activation dtype. */
export function kvBytesPerToken(shape: KvShape, precision: Precision): number {
  return 2 * shape.layers * shape.kvHeads * shape.headDim * (precision === 'f16' ? 2 : 4);
}

export interface ContextInputs {
  shape: KvShape;
  precision: Precision;
  /** web-llm's `vram_required_MB` for this model id, measured at `WEBLLM_DEFAULT_CONTEXT`. */
  vramRequiredMB: number;
  trainedContext: number;
  budget: DeviceBudget;
}

/**
 * The largest context that fits: what the weights and activations take (web-llm's figure less its
 * 4096-token KV cache) plus the KV cache must stay within the budget, and one layer's KV pages (one buffer)
 * within the largest buffer. Never below web-llm's default (smaller would not help a model that does not
 * fit at all) and never above the trained maximum.
 */
export function contextLength(inputs: ContextInputs): number {
  const perToken = kvBytesPerToken(inputs.shape, inputs.precision);
  const perLayerToken = perToken / inputs.shape.layers;
  const fixedMB = inputs.vramRequiredMB - (perToken * WEBLLM_DEFAULT_CONTEXT) / MiB;
  const byMemory = Math.floor(((inputs.budget.memoryMB - fixedMB) * MiB) / perToken);
  const byBuffer = Math.floor(inputs.budget.maxBufferBytes / perLayerToken);
  const fits = Math.min(byMemory, byBuffer, inputs.trainedContext);
  const floor = Math.min(WEBLLM_DEFAULT_CONTEXT, inputs.trainedContext);
  if (fits <= floor) return floor;
  return fits === inputs.trainedContext ? fits : Math.max(floor, Math.floor(fits / CONTEXT_STEP) * CONTEXT_STEP);
}

/** The next smaller context to try after a load ran out of memory, or null when none is left. */
export function smallerContext(current: number, trainedContext: number): number | null {
  const floor = Math.min(WEBLLM_DEFAULT_CONTEXT, trainedContext);
  if (current <= floor) return null;
  return Math.max(floor, Math.floor(current / 2 / CONTEXT_STEP) * CONTEXT_STEP);
}

/**
 * The GPU memory budget: the deployment's figure when set, else half the device memory the browser reports
 * (`navigator.deviceMemory`, GiB; WebGPU tells nothing of VRAM), else 4 GiB.
 */
export function memoryBudgetMB(configuredMB: number, deviceMemoryGiB: number | undefined): number {
  if (configuredMB > 0) return configuredMB;
  if (deviceMemoryGiB !== undefined && deviceMemoryGiB > 0) return Math.floor(deviceMemoryGiB * 1024 * 0.5);
  return 4096;
}
