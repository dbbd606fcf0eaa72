// Which models are in web-llm's IndexedDB cache, and removing one (weights, tokenizer, library, config).
import type { AppConfig } from '@mlc-ai/web-llm';

/** web-llm's cache functions, as the adapter uses them (the real ones are wired in index.ts). */
export interface CacheFunctions {
  hasModelInCache(modelId: string, appConfig?: AppConfig): Promise<boolean>;
  deleteModelAllInfoInCache(modelId: string, appConfig?: AppConfig): Promise<void>;
  deleteModelWasmInCache(modelId: string, appConfig?: AppConfig): Promise<void>;
  deleteChatConfigInCache(modelId: string, appConfig?: AppConfig): Promise<void>;
}

export class ModelCache {
  constructor(
    private readonly fns: CacheFunctions,
    private readonly appConfig: AppConfig,
  ) {}

  /** True when every weight shard of the model is cached; false on any failure to tell. */
  async has(modelId: string): Promise<boolean> {
    try {
      return await this.fns.hasModelInCache(modelId, this.appConfig);
    } catch {
      return false;
    }
  }

  /**
   * Removes all of the model's files. web-llm's all-in-one delete reads the weight manifest first; when that
   * was never downloaded (a failed first load) it fails, and the library and config are removed one by one.
   */
  async remove(modelId: string): Promise<void> {
    try {
      await this.fns.deleteModelAllInfoInCache(modelId, this.appConfig);
      return;
    } catch {
      // fall through to the parts that can exist without a manifest
    }
    const results = await Promise.allSettled([
      this.fns.deleteModelWasmInCache(modelId, this.appConfig),
      this.fns.deleteChatConfigInCache(modelId, this.appConfig),
    ]);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      throw new Error(`Could not remove ${modelId} from the cache: ${failed.reason instanceof Error ? failed.reason.message : String(failed.reason)}`);
    }
  }

  /**
   * After a file failed its pin: web-llm caches a file before checking it, so the rejected copy would fail every
   * later load even once the server or the pin is corrected. The config and library are removed; a tokenizer
   * file is kept with the weights, so the whole model goes.
   */
  async forgetRejected(modelId: string, url: string): Promise<void> {
    if (/\/tokenizer\.(json|model)$/.test(url)) {
      await this.remove(modelId);
      return;
    }
    await Promise.allSettled([this.fns.deleteModelWasmInCache(modelId, this.appConfig), this.fns.deleteChatConfigInCache(modelId, this.appConfig)]);
  }
}
