// Deployment settings: defaults, then `/inpage.config.json` if the site ships one, then URL overrides.

export interface InpageConfig {
  /** Requests that may wait behind the running one before 429 `queue_full`. */
  queueDepth: number;
  /** Where model weights are fetched from: `{modelBaseUrl}/{web-llm model id}/resolve/main/…`. Empty: web-llm's prebuilt hosts. */
  modelBaseUrl: string;
  /** Where compiled model libraries (.wasm) are fetched from: `{modelLibBaseUrl}/{file}`. Empty: web-llm's prebuilt hosts. */
  modelLibBaseUrl: string;
  /** GPU memory (MB) one loaded model may use, which sets each model's context length. 0: half of `navigator.deviceMemory`. */
  gpuMemoryMB: number;
  /** How often the page checks that its engine worker is alive; one silent for 3 periods is restarted. */
  engineHeartbeatMs: number;
  /** Test builds only: milliseconds the deterministic engine waits between tokens. */
  tokenDelayMs: number;
  /** Which engine serves the models: `auto` (web-llm where its WebGPU needs are met, else llama.cpp), `webllm` or `llamacpp`. */
  engine: string;
  /** Where GGUF files are fetched from for llama.cpp: `{ggufBaseUrl}/{repo}/resolve/main/{file}`. Empty: Hugging Face. */
  ggufBaseUrl: string;
  /** CPU threads llama.cpp may use; 0: all logical cores (one when the page is not cross-origin isolated). */
  llamaThreads: number;
}

export const DEFAULT_CONFIG: Readonly<InpageConfig> = {
  queueDepth: 16,
  modelBaseUrl: '',
  modelLibBaseUrl: '',
  gpuMemoryMB: 0,
  engineHeartbeatMs: 5000,
  tokenDelayMs: 0,
  engine: 'auto',
  ggufBaseUrl: '',
  llamaThreads: 0,
};

function coerce(key: keyof InpageConfig, raw: unknown): InpageConfig[keyof InpageConfig] | undefined {
  const fallback = DEFAULT_CONFIG[key];
  if (typeof fallback === 'number') {
    const n = typeof raw === 'string' ? Number(raw) : raw;
    return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
  }
  return typeof raw === 'string' ? raw : undefined;
}

export function mergeConfig(base: InpageConfig, overrides: Record<string, unknown>): InpageConfig {
  const out: InpageConfig = { ...base };
  for (const key of Object.keys(DEFAULT_CONFIG) as (keyof InpageConfig)[]) {
    if (!(key in overrides)) continue;
    const value = coerce(key, overrides[key]);
    if (value !== undefined) (out as unknown as Record<string, unknown>)[key] = value;
  }
  return out;
}

export async function loadConfig(location: Location): Promise<InpageConfig> {
  let config = { ...DEFAULT_CONFIG };
  try {
    const res = await fetch(new URL('/inpage.config.json', location.origin), { cache: 'no-cache' });
    if (res.ok) config = mergeConfig(config, (await res.json()) as Record<string, unknown>);
  } catch {
    // No config file, or offline without one cached: the defaults stand.
  }
  return mergeConfig(config, Object.fromEntries(new URLSearchParams(location.search)));
}
