// One entry of the `models` setting as every engine kind sees it: the fields any entry may say, the error a bad one
// throws and how it names the entry. Each engine kind adds its own fields and checks (src/shared/engine-kinds/);
// src/shared/model-config.ts turns the entries into the catalog.
import { z } from './protocol/zod';
import type { Variant } from './variants';

/**
 * The hybrid modes (docs/hybrid.md), per id: `local` never asks an upstream; `prefer-local` answers locally when
 * this device can run the model and its weights are ready, else upstream; `prefer-upstream` answers upstream unless
 * it is unreachable or the browser is offline; `upstream` never runs locally.
 */
export const HYBRID_MODES = ['local', 'prefer-local', 'prefer-upstream', 'upstream'] as const;
/** A hybrid mode: whether this device or an upstream server answers an id, and which one first. */
export type HybridMode = (typeof HYBRID_MODES)[number];

/** A bad `models` setting: the message names the entry and what is wrong with it. */
export class ModelConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelConfigError';
  }
}

/** How a message names an entry or one of its fields: `models["svc-fast"].gguf[1]`. */
export const where = (id: string, path: readonly PropertyKey[] = []) =>
  `models[${JSON.stringify(id)}]${path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}`;

/** The schemas every kind's entry is built from (called once, when the setting is first parsed: see `lazy`). */
export function entryParts() {
  // zod's mini build (src/shared/protocol/zod.ts, `jitless` there: the page's CSP forbids eval): `z.optional(x)`,
  // `x.check(z.minLength(1))` where the classic build chains `x.optional()`, `x.min(1)`.
  const positiveInt = z.int().check(z.minimum(1));
  const nonEmptyName = z.string().check(z.minLength(1), z.maxLength(256));
  const nonEmpty = z.string().check(z.minLength(1));

  /** The shape of one layer's KV cache, from the model's config.json; lets the engine size the context. */
  const kvShape = z.strictObject({ layers: positiveInt, kvHeads: positiveInt, headDim: positiveInt });

  /** What every entry may say, whatever engine runs it. */
  const common = {
    /** Leaves the id out of /v1/models, keys and the workspace; requests for it get 404 model_not_found. */
    hidden: z.optional(z.boolean()),
    /** Whether the model thinks before answering (reasoning_effort "none" switches it off). */
    thinks: z.optional(z.boolean()),
    vision: z.optional(z.boolean()),
    /** How thinking is switched per request: Qwen3's `enable_thinking`, or `none` (the model has no switch). */
    thinking: z.optional(z.enum(['enable_thinking', 'none'])),
    /** The model's trained maximum context (the ceiling this device may configure). */
    contextLength: z.optional(positiveInt),
    /** With `contextLength`, lets the engine give the model more than web-llm's default 4096 tokens. */
    kv: z.optional(kvShape),
    /**
     * Hybrid (docs/hybrid.md): which side answers this id. Default: `local` without `upstream`, `prefer-local` with.
     */
    mode: z.optional(z.enum(HYBRID_MODES)),
    /** Hybrid: the upstream server (`via`, a name in the `upstreams` setting) and its name for the model. */
    upstream: z.optional(z.strictObject({ via: z.optional(nonEmptyName), model: nonEmptyName })),
  };
  return { positiveInt, nonEmpty, common };
}
export type EntryParts = ReturnType<typeof entryParts>;

/** What any parsed entry says (each kind's entry has these and its own fields). */
export type CommonEntry = z.output<z.ZodMiniObject<EntryParts['common']>> & { engine?: string };

/** How one kind's `models` entries are parsed, checked and turned into weight groups (src/shared/engine-kinds/kind.ts). */
export interface EntryKind<Entry extends CommonEntry = CommonEntry> {
  /** The zod schema of one entry (strict: an unknown field is refused). */
  schema(parts: EntryParts): z.ZodMiniType<Entry>;
  /** The model an entry names, as one key (entries naming the same model share a weight group); null: none named. */
  groupKey(entry: Entry): string | null;
  /** The weight group's name for a model key (`taken`: names already used; `builtIn`: a group the five use). */
  groupName(key: string, taken: (name: string) => boolean, builtIn: boolean): string;
  /**
   * What a parsed entry says as a whole, after the checks every entry has (shape is zod's job). `base`: the public
   * variant the id maps, if it is one of the five; `upstreamOnly`: the entry has no local model (hybrid). Throws a
   * ModelConfigError naming it.
   */
  check(id: string, entry: Entry, base: Variant | undefined, upstreamOnly: boolean): void;
  /** The weight group's fields for this kind's engine (the GGUF files), checked. Default: none. */
  group?(id: string, entry: Entry): object;
  /** The trained context of a model an entry names. Default: `contextLength`, else 4,096. */
  trainedContext?(entry: Entry): number;
}
