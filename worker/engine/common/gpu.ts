// What WebGPU this worker has: the adapter report for the page (and for choosing an engine), the limits
// web-llm's context sizing needs (webllm/context-size.ts), and a watch on every GPU device web-llm creates so
// a lost device is noticed.
import type { AdapterReport } from '#shared/wire/engine-control';

/** web-llm's own floor (detectGPUDevice): below these it cannot run at all. */
const NEEDED_LIMITS: [keyof GPUSupportedLimits, number][] = [
  ['maxStorageBuffersPerShaderStage', 10],
  ['maxComputeWorkgroupStorageSize', 32 * 1024],
  ['maxBufferSize', 256 * 1024 * 1024],
  ['maxStorageBufferBindingSize', 128 * 1024 * 1024],
];

export interface GpuProbe {
  report: AdapterReport;
  /** Absent when there is no usable adapter. */
  maxBufferBytes?: number;
  /** `navigator.deviceMemory` in GiB, when the browser reports it. */
  deviceMemoryGiB?: number;
}

interface GpuNavigator {
  gpu?: GPU;
  deviceMemory?: number;
}

export async function probeGpu(nav: GpuNavigator = navigator as GpuNavigator): Promise<GpuProbe> {
  const deviceMemoryGiB = typeof nav.deviceMemory === 'number' ? nav.deviceMemory : undefined;
  const none = (reason: string): GpuProbe => ({
    report: { available: false, reason, features: [], shaderF16: false },
    ...(deviceMemoryGiB !== undefined ? { deviceMemoryGiB } : {}),
  });
  if (!nav.gpu) {
    return none(
      'navigator.gpu is undefined: this browser offers no WebGPU here (it needs Chrome or Edge 113+, Safari 26+ or Firefox 141+, a secure context, and WebGPU not disabled).',
    );
  }
  let adapter: GPUAdapter | null;
  try {
    adapter = await nav.gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch (err) {
    return none(`navigator.gpu.requestAdapter() failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!adapter) {
    return none(
      'navigator.gpu.requestAdapter() returned null: the browser found no usable GPU adapter (no GPU, a blocklisted driver, or WebGPU switched off).',
    );
  }
  const features = [...adapter.features].map(String).sort();
  const info = adapter.info;
  const report: AdapterReport = {
    available: true,
    vendor: info.vendor,
    architecture: info.architecture,
    description: info.description || [info.vendor, info.architecture, info.device].filter(Boolean).join(' '),
    features,
    shaderF16: adapter.features.has('shader-f16'),
  };
  const short = NEEDED_LIMITS.find(([name, min]) => (adapter.limits[name] as number) < min);
  if (short) {
    report.available = false;
    report.reason = `The GPU adapter's ${short[0]} is ${String(adapter.limits[short[0]])}, below the ${short[1]} web-llm needs.`;
  }
  return {
    report,
    maxBufferBytes: Math.min(adapter.limits.maxBufferSize, adapter.limits.maxStorageBufferBindingSize),
    ...(deviceMemoryGiB !== undefined ? { deviceMemoryGiB } : {}),
  };
}

export type DeviceLostListener = (message: string) => void;

let watching = false;
const lostListeners = new Set<DeviceLostListener>();

/**
 * Calls `listener` whenever a GPU device created in this worker is lost for a reason other than being
 * destroyed on purpose (web-llm destroys its device when it unloads a model). web-llm requests its devices
 * itself, so the watch wraps GPUAdapter.prototype.requestDevice of this worker once.
 */
export function watchDeviceLoss(listener: DeviceLostListener): void {
  lostListeners.add(listener);
  if (watching || typeof GPUAdapter === 'undefined') return;
  watching = true;
  const original = GPUAdapter.prototype.requestDevice;
  GPUAdapter.prototype.requestDevice = async function (this: GPUAdapter, descriptor?: GPUDeviceDescriptor) {
    const device = await original.call(this, descriptor);
    void device.lost.then((info) => {
      if (info.reason === 'destroyed') return;
      for (const l of lostListeners) l(info.message || 'the GPU device was lost');
    });
    return device;
  };
}
