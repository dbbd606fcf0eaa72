// Models by configuration: the `models` setting of /inpage.config.json (or `installInpage({config})`) maps any of
// the five public ids to another model, hides any of them, and adds ids of the deployment's own. This module
// turns the setting into the catalog every part reads: the variants the service offers (src/shared/variants.ts's
// promise: id, thinks, vision, context, weight group) and, per weight group, the configured entry whose
// engine-specific fields the engine reads (worker/engine/webllm/models.ts for web-llm). What every entry may say is
// src/shared/model-entry.ts; each engine kind's own fields and checks, src/shared/engine-kinds/<kind>.ts.
import { lazy, z } from './protocol/zod';
import { DEFAULT_ENTRY_KIND, ENGINE_KINDS, ENGINE_KIND_SPECS, isEngineKind, type EngineKind } from './engine-kinds/specs';
import type { GgufModelConfig, LlamaCppEntry } from './engine-kinds/llamacpp';
import type { ModelIntegrity, WebLlmEntry } from './engine-kinds/webllm';
import { ModelConfigError, entryParts, where, type CommonEntry, type HybridMode } from './model-entry';
import { VARIANTS, VARIANT_IDS, isVariantId, type Variant } from './variants';

export { ModelConfigError, HYBRID_MODES, type HybridMode } from './model-entry';
export type { ModelIntegrity, WebLlmEntry, WebLlmRecordConfig } from './engine-kinds/webllm';

/** Each kind's entry schema (built on first use: see `lazy`; the service worker never parses the setting). */
const schemas = lazy(() => {
  const parts = entryParts();
  return Object.fromEntries(ENGINE_KINDS.map((kind) => [kind, ENGINE_KIND_SPECS[kind].entry.schema(parts)])) as Record<EngineKind, z.ZodMiniType<CommonEntry>>;
});

/** The schemas of one `models` entry, by engine kind, for the settings' JSON Schema (src/shared/config-schema.ts). */
export const modelEntrySchemas = (): Readonly<Record<EngineKind, z.ZodMiniType<CommonEntry>>> => schemas();

/** One entry of the `models` setting, parsed: its engine kind's shape. */
export type ModelEntry = WebLlmEntry | LlamaCppEntry;

/** Where one id is answered: its mode and, unless `local`, the upstream (by name) and that server's model name. */
export interface Route {
  mode: HybridMode;
  upstream?: { via?: string; model: string };
}

/** Ids of the deployment's own: what OpenAI-style clients accept as a model name. */
const OWN_ID = /^[A-Za-z0-9][\w.:/-]{0,63}$/;

function describeIssue(id: string, issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_union') {
    // `gguf`: one URL or a list; name the list's problem when a list was given, else the string's.
    const branch = issue.errors.find((errors) => errors.some((e) => e.path.length > 0)) ?? issue.errors[0];
    const first = branch?.[0];
    if (first) return describeIssue(id, { ...first, path: [...issue.path, ...first.path] } as z.core.$ZodIssue);
  }
  if (issue.code === 'unrecognized_keys') return `${where(id, issue.path)}: unknown field ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
  return `${where(id, issue.path)}: ${issue.message}`;
}

/** The configured entry behind a weight group (none: a built-in group the engine knows by itself). */
export interface WeightGroupSpec {
  /**
   * The engine the configured entry is for (a built-in group: `webllm`, though either engine can serve it);
   * `upstream`: an id only an upstream server answers (no local model).
   */
  engine: EngineKind | 'upstream';
  /** The first id that named this model in the config, for messages. */
  configuredBy?: string;
  entry?: ModelEntry;
  /** A configured GGUF model (engine `llamacpp`), checked. */
  gguf?: GgufModelConfig;
}

export interface ModelCatalog {
  /** The variants the service offers, in order: the five (less the hidden ones), then the deployment's own. */
  variants: Variant[];
  /** Every weight group the variants use. */
  groups: Record<string, WeightGroupSpec>;
  /** web-llm model id → the hashes its files must have, from every entry's `integrity` (hidden ones too). */
  pins: Record<string, ModelIntegrity & { pinnedBy: string }>;
  /** Hybrid: the ids an entry gives a mode or an upstream (the rest are `local`). Checked against `upstreams` by src/shared/upstreams.ts. */
  routes: Record<string, Route>;
}

/** Unix seconds for the deployment's own ids: after the five's, in the order they are configured. */
const FIRST_OWN_CREATED = VARIANTS['svc-vision'].created + 100;

/** The engine kind of a parsed entry: the one it names, else the default (web-llm). */
function kindOf(e: CommonEntry): EngineKind {
  return (e.engine as EngineKind | undefined) ?? DEFAULT_ENTRY_KIND;
}

/**
 * An id of the deployment's own that an upstream server alone answers: mode `upstream` and no local model (no
 * `engine`, and no model named: no `webllm` or `record`). Its variant has engine `upstream` and a weight group no
 * local engine serves.
 */
function upstreamOnly(id: string, e: CommonEntry): boolean {
  return (
    !isVariantId(id) &&
    e.mode === 'upstream' &&
    e.upstream !== undefined &&
    e.engine === undefined &&
    ENGINE_KIND_SPECS[DEFAULT_ENTRY_KIND].entry.groupKey(e) === null
  );
}

/** Checks what a parsed entry says as a whole (shape is zod's job), then what its engine kind checks. Throws a ModelConfigError naming it. */
function checkEntry(id: string, e: CommonEntry): void {
  if (e.mode !== undefined && e.mode !== 'local' && e.upstream === undefined) {
    throw new ModelConfigError(`${where(id, ['mode'])}: '${e.mode}' needs 'upstream' (the server's name for the model, and 'via' the upstream it is on)`);
  }
  if (e.kv !== undefined && e.contextLength === undefined) {
    throw new ModelConfigError(`${where(id, ['kv'])}: give 'contextLength' (the trained maximum) with 'kv'`);
  }
  if (e.thinks === true && e.thinking === 'none') {
    throw new ModelConfigError(
      `${where(id)}: a model that thinks needs a thinking switch ('thinking': 'enable_thinking'), else 'reasoning_effort: none' could not be honoured`,
    );
  }
  ENGINE_KIND_SPECS[kindOf(e)].entry.check(id, e, isVariantId(id) ? VARIANTS[id] : undefined, upstreamOnly(id, e));
}

/** Parses one entry by its engine kind's shape (an entry naming no `engine`: web-llm's). */
function parseEntry(id: string, raw: unknown): CommonEntry {
  const engine = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as { engine?: unknown }).engine : undefined;
  if (engine !== undefined && !isEngineKind(engine)) {
    throw new ModelConfigError(`${where(id, ['engine'])}: unknown engine ${JSON.stringify(engine)} (engines: ${ENGINE_KINDS.join(', ')})`);
  }
  const parsed = schemas()[engine ?? DEFAULT_ENTRY_KIND].safeParse(raw);
  if (!parsed.success) throw new ModelConfigError(describeIssue(id, parsed.error.issues[0]!));
  return parsed.data;
}

/**
 * Checks the `models` setting and builds the catalog. Throws a ModelConfigError naming the first bad entry;
 * `undefined` or `{}` gives the five as they ship.
 */
export function buildCatalog(models: unknown): ModelCatalog {
  const given: unknown = models ?? {};
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new ModelConfigError(`models: expected an object of model ids, but got ${Array.isArray(given) ? 'an array' : typeof given}`);
  }
  const entries = new Map<string, CommonEntry>();
  for (const [id, raw] of Object.entries(given)) {
    if (!isVariantId(id) && !OWN_ID.test(id)) {
      throw new ModelConfigError(`${where(id)}: a model id must be 1–64 letters, digits or . _ : / - and start with a letter or digit`);
    }
    const e = parseEntry(id, raw);
    checkEntry(id, e);
    entries.set(id, e);
  }

  // Pins are by model id, whichever entry gives them: two entries may repeat a pin, not contradict it.
  const pins: ModelCatalog['pins'] = {};
  for (const [id, e] of entries) {
    for (const [modelId, pin] of Object.entries((e as WebLlmEntry).integrity ?? {})) {
      const before = pins[modelId];
      if (before) {
        const { pinnedBy: _by, ...earlier } = before;
        if (JSON.stringify(earlier) !== JSON.stringify(pin)) {
          throw new ModelConfigError(
            `${where(id, ['integrity', modelId])}: pins '${modelId}' differently from ${where(before.pinnedBy, ['integrity', modelId])}`,
          );
        }
        continue;
      }
      pins[modelId] = { ...pin, pinnedBy: id };
    }
  }

  const variants: Variant[] = [];
  const groups: Record<string, WeightGroupSpec> = {};
  const keyToGroup = new Map<string, string>();
  let own = 0;
  const routes: Record<string, Route> = {};
  for (const [id, e] of entries) {
    if (e.hidden || (e.mode === undefined && e.upstream === undefined)) continue;
    routes[id] = { mode: e.mode ?? (e.upstream ? 'prefer-local' : 'local'), ...(e.upstream ? { upstream: { ...e.upstream } } : {}) };
  }
  const ids = [...VARIANT_IDS, ...[...entries.keys()].filter((id) => !isVariantId(id))];
  for (const id of ids) {
    const e = entries.get(id);
    const base: Variant | undefined = isVariantId(id) ? VARIANTS[id] : undefined;
    if (e?.hidden) continue;
    if (e && upstreamOnly(id, e)) {
      const weightGroup = `upstream:${id}`;
      groups[weightGroup] = { engine: 'upstream', configuredBy: id, entry: e as ModelEntry };
      variants.push({
        id: id as Variant['id'],
        thinks: e.thinks ?? false,
        vision: e.vision ?? false,
        hostedContext: null,
        weightGroup,
        // The server's own context decides; this is what /v1/models reports (contextLength, else 4,096).
        trainedContext: e.contextLength ?? 4096,
        created: FIRST_OWN_CREATED + own++,
        engine: 'upstream',
      });
      continue;
    }
    const kind = e ? ENGINE_KIND_SPECS[kindOf(e)].entry : undefined;
    const key = e ? kind!.groupKey(e) : null;
    let weightGroup = base?.weightGroup ?? '';
    if (key !== null) {
      const builtIn = VARIANT_IDS.some((v) => VARIANTS[v].weightGroup === key);
      weightGroup = keyToGroup.get(key) ?? kind!.groupName(key, (name) => name in groups, builtIn);
      keyToGroup.set(key, weightGroup);
      if (!groups[weightGroup]) {
        groups[weightGroup] = { engine: kindOf(e!), configuredBy: id, entry: e! as ModelEntry, ...kind!.group?.(id, e!) };
      } else if (groups[weightGroup]!.engine !== kindOf(e!)) {
        throw new ModelConfigError(`${where(id)}: names the model '${groups[weightGroup]!.configuredBy}' names, for another engine`);
      }
    } else {
      groups[weightGroup] ??= { engine: DEFAULT_ENTRY_KIND };
    }
    const configured = key !== null;
    // The engine the entry ties the variant to: the one its model is for, or the one it names.
    const engine = e?.engine !== undefined || configured ? kindOf(e!) : undefined;
    const trainedContext =
      configured && kind!.trainedContext ? kind!.trainedContext(e!) : (e?.contextLength ?? (configured || !base ? 4096 : base.trainedContext));
    variants.push({
      id: id as Variant['id'],
      thinks: e?.thinks ?? base?.thinks ?? false,
      vision: e?.vision ?? base?.vision ?? false,
      hostedContext: base?.hostedContext ?? null,
      weightGroup,
      // Another model than the shipped one: its own trained maximum if given, else a 4,096-token default.
      trainedContext,
      created: base?.created ?? FIRST_OWN_CREATED + own++,
      // svc-embed as shipped is the embedding model (mapped to another model, it is what that entry says).
      ...(base?.embeddings && !configured ? { embeddings: base.embeddings } : {}),
      ...(engine ? { engine } : {}),
    });
  }
  if (variants.length === 0) throw new ModelConfigError('models: every model is hidden; the service would offer none');
  return { variants, groups, pins, routes };
}

/** The five as they ship. */
export const DEFAULT_CATALOG: ModelCatalog = buildCatalog({});

/** The variant of `id` in `catalog`, if the catalog offers it. */
export function variantIn(catalog: ModelCatalog, id: string): Variant | undefined {
  return catalog.variants.find((v) => v.id === id);
}
