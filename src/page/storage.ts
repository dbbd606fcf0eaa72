// The origin's storage: how much the browser lets it use, how much it uses, and whether its data (model weights,
// keys) is persistent or may be evicted under storage pressure. Weights are gigabytes, so inpage asks for
// persistence when it first stores some (a download or an import); browsers decide without asking the user
// (Chromium) or ask once (Firefox).
import * as Comlink from 'comlink';
import type { ModelStatus } from '#shared/wire/engine-port';
import type { EngineHost } from './engine-host';

export interface StorageReport {
  /** False when the browser offers no StorageManager (then the rest is null). */
  supported: boolean;
  /** true: the browser will not evict this origin's data; false: it may, under storage pressure. */
  persisted: boolean | null;
  /** Bytes this origin uses, by the browser's (rounded, padded) estimate. */
  usage: number | null;
  /** Bytes this origin may use. */
  quota: number | null;
  /** Usage by kind where the browser says (Chromium: indexedDB, caches, serviceWorkerRegistrations). */
  usageDetails: Record<string, number>;
}

function manager(): StorageManager | null {
  return typeof navigator !== 'undefined' && navigator.storage && typeof navigator.storage.estimate === 'function' ? navigator.storage : null;
}

export async function storageReport(): Promise<StorageReport> {
  const storage = manager();
  if (!storage) return { supported: false, persisted: null, usage: null, quota: null, usageDetails: {} };
  const [estimate, persisted] = await Promise.all([
    storage.estimate(),
    typeof storage.persisted === 'function' ? storage.persisted().catch(() => null) : Promise.resolve(null),
  ]);
  const details = (estimate as StorageEstimate & { usageDetails?: Record<string, number> }).usageDetails ?? {};
  return { supported: true, persisted, usage: estimate.usage ?? null, quota: estimate.quota ?? null, usageDetails: { ...details } };
}

/** Asks the browser to keep this origin's data; resolves with whether it will. */
export async function requestPersistence(): Promise<boolean> {
  const storage = manager();
  if (!storage || typeof storage.persist !== 'function') return false;
  if (typeof storage.persisted === 'function' && (await storage.persisted().catch(() => false))) return true;
  return storage.persist().catch(() => false);
}

/** In the tab hosting the engine: asks for persistence the first time a model starts downloading. */
export function persistOnFirstDownload(host: EngineHost): void {
  let asked = false;
  const listener = (models: ModelStatus[]) => {
    if (asked || !models.some((m) => m.state === 'downloading')) return;
    asked = true;
    void requestPersistence();
  };
  void host.control.subscribe(Comlink.proxy(listener)).catch(() => undefined);
}
