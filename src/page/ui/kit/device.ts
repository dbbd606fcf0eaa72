// This device as every area sees it, from the store: no usable WebGPU (and why), or llama.cpp running the models
// on the CPU (how many threads). The shell's banners, the sign-up, the Models area and the Playground ask the same.
import type { UiState } from '../store';

/**
 * Why no model can run in this browser, or null when one can (or we do not know yet). Without WebGPU, models
 * still run when llama.cpp serves them on the CPU (cpuEngine); the engine this tab starts decides, so until it
 * reports, the page's own WebGPU check alone says nothing.
 */
export function webGpuMissing(ui: UiState): string | null {
  if (cpuEngine(ui)) return null;
  if (ui.engineExpected && !ui.adapter) return null;
  if (ui.webgpu && !ui.webgpu.available) return ui.webgpu.reason ?? 'No WebGPU adapter.';
  if (ui.adapter && !ui.adapter.available) return ui.adapter.reason ?? 'The engine found no WebGPU adapter.';
  return null;
}

/** llama.cpp runs the models on this device's CPU (no WebGPU for web-llm): how many threads; else null. */
export function cpuEngine(ui: UiState): { threads: number; reason: string | null } | null {
  const reason = ui.adapter?.reason ?? ui.webgpu?.reason ?? null;
  if (ui.adapter?.cpu) return { threads: ui.adapter.cpu.threads, reason };
  return null;
}
