// What the page offers on `window.inpage` (main.ts builds it): declared apart from the page entry, so the UI that
// uses it imports a type, not the entry that mounts the UI.
import type { getWorkspace, registerWorkspace } from '#shared/keys/workspace';
import type { createKey, deleteKey, listKeys, revokeKey } from '#shared/keys/key-store';
import type { EngineHost } from './engine-host';
import type { ModelTools } from './model-import';
import type { requestPersistence, storageReport } from './storage';

export interface InpageApi {
  baseURL: string;
  workspace: { get: typeof getWorkspace; register: typeof registerWorkspace };
  keys: { create: typeof createKey; list: typeof listKeys; revoke: typeof revokeKey; delete: typeof deleteKey };
  engine: EngineHost | null;
  /**
   * Hears when this tab starts hosting the engine: at once if it does, or later when it takes over from a
   * closed tab (one engine per origin; `engine` is null meanwhile). A window event `inpage:engine` says the same.
   */
  onEngine(listener: (host: EngineHost) => void): void;
  /** The origin's storage: quota and use (`report`), and asking the browser not to evict it (`persist`). */
  storage: { report: typeof storageReport; persist: typeof requestPersistence };
  /** Importing models from a folder into the cache, and which models the cache holds (web-llm model ids). */
  modelFiles: ModelTools;
}

declare global {
  interface Window {
    inpage?: InpageApi;
    /** Settles when the service worker controls the page and the engine (if hosted) is connected. */
    inpageReady?: Promise<InpageApi>;
  }
}
