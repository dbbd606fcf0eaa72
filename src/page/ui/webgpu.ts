// Does this browser give the page a WebGPU adapter? Asked in the page itself, apart from the engine's report.

export interface WebGpuProbe {
  available: boolean;
  /** Why not, in words a person can act on. */
  reason?: string;
}

export async function probeWebGpu(): Promise<WebGpuProbe> {
  if (!window.isSecureContext) {
    return { available: false, reason: 'The page is not in a secure context (https or localhost), and browsers offer WebGPU only there.' };
  }
  if (!('gpu' in navigator) || !navigator.gpu) {
    return { available: false, reason: 'This browser has no WebGPU (navigator.gpu is missing).' };
  }
  try {
    const adapter = await navigator.gpu.requestAdapter();
    if (!adapter) {
      return { available: false, reason: 'The browser has WebGPU but offered no adapter: the GPU is blocked, disabled or unsupported.' };
    }
    return { available: true };
  } catch (err) {
    return { available: false, reason: `Asking for a WebGPU adapter failed: ${err instanceof Error ? err.message : String(err)}` };
  }
}
