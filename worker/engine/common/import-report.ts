// What an import tells the page (engine-control's ImportReport), from any engine's import plan: each model planned
// with its file count, and the folders that could not be imported, with why.
import type { ImportReport } from '#shared/wire/engine-control';
import type { ModelId } from '#shared/variants';

/** The part of an engine's import plan the report reads. */
export interface PlannedImports {
  models: readonly { modelId: string; variants: ModelId[]; folder: string; entries: readonly unknown[]; bytes: number; warnings: string[] }[];
  problems: string[];
}

export function importReport(plan: PlannedImports): ImportReport {
  return {
    imported: plan.models.map((m) => ({
      modelId: m.modelId,
      variants: m.variants,
      folder: m.folder,
      files: m.entries.length,
      bytes: m.bytes,
      warnings: m.warnings,
    })),
    problems: plan.problems,
  };
}
