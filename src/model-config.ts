// Models by configuration: the `models` setting of /inpage.config.json (or `installInpage({config})`) maps any of
// the five public ids to another model, hides any of them, and adds ids of the deployment's own. This module
// declares the setting's shape (zod) and turns it into the catalog every part reads: the variants the service
// offers (src/variants.ts's promise: id, thinks, vision, context, weight group) and, per weight group, the
// configured entry whose engine-specific fields the engine reads (worker/engine/webllm/models.ts for web-llm).
import { z } from 'zod';
import { VARIANTS, VARIANT_IDS, isVariantId, type Variant } from './variants';

// This runs in the page, whose Content-Security-Policy forbids eval: without `jitless`, zod probes with
// `new Function`, which the page reports as a CSP violation even though zod catches it.
z.config({ jitless: true });

const positiveInt = z.number().int().min(1);

/** The shape of one layer's KV cache, from the model's config.json; lets the engine size the context. */
const kvShape = z.strictObject({ layers: positiveInt, kvHeads: positiveInt, headDim: positiveInt });

/** Bytes of each SRI digest: a pin of another length is a typo, not a hash. */
const SRI_BYTES = { sha256: 32, sha384: 48, sha512: 64 } as const;

/** One Subresource Integrity hash (`sha256-…`, `sha384-…` or `sha512-…`, base64), as web-llm verifies them. */
const sri = z.string().refine((value) => {
  const m = /^(sha256|sha384|sha512)-([A-Za-z0-9+/]+={0,2})$/.exec(value);
  if (!m) return false;
  const b64 = m[2]!;
  return Math.floor((b64.replace(/=+$/, '').length * 3) / 4) === SRI_BYTES[m[1] as keyof typeof SRI_BYTES];
}, 'must be one SRI hash: sha256-, sha384- or sha512- and the base64 digest');

/**
 * Pins for one web-llm model's files, in web-llm's `ModelRecord.integrity` shape: web-llm 0.2.86 checks its
 * `mlc-chat-config.json`, its model library (before running it) and the tokenizer file it reads against these,
 * and a mismatch fails the load (inpage never sets web-llm's `onFailure: "warn"`). The weight shards and
 * `tensor-cache.json` are not covered by web-llm's check.
 */
const modelIntegrity = z.strictObject({
  config: sri.optional(),
  model_lib: sri.optional(),
  /** web-llm reads (and checks) `tokenizer.json`, or `tokenizer.model` when there is no tokenizer.json. */
  tokenizer: z.partialRecord(z.enum(['tokenizer.json', 'tokenizer.model']), sri).optional(),
});

export type ModelIntegrity = z.output<typeof modelIntegrity>;

/**
 * A web-llm `ModelRecord` for a model web-llm does not ship: where its weights and compiled library are, and the
 * chat options (`overrides`: `conv_template`, `context_window_size`, …) as web-llm takes them. Relative URLs
 * resolve against the page's origin.
 */
const webllmRecord = z.strictObject({
  model_id: z.string().regex(/^[\w.+-]{1,128}$/, 'must be 1–128 letters, digits or . _ + -'),
  model: z.string().min(1),
  model_lib: z.string().min(1),
  overrides: z.record(z.string(), z.unknown()).optional(),
  vram_required_MB: z.number().positive().optional(),
  low_resource_required: z.boolean().optional(),
  buffer_size_required_bytes: z.number().positive().optional(),
  required_features: z.array(z.string()).optional(),
  model_type: z.number().int().min(0).optional(),
});

/** What every entry may say, whatever engine runs it. */
const common = {
  /** Leaves the id out of /v1/models, keys and the workspace; requests for it get 404 model_not_found. */
  hidden: z.boolean().optional(),
  /** Whether the model thinks before answering (reasoning_effort "none" switches it off). */
  thinks: z.boolean().optional(),
  vision: z.boolean().optional(),
  /** How thinking is switched per request: Qwen3's `enable_thinking`, or `none` (the model has no switch). */
  thinking: z.enum(['enable_thinking', 'none']).optional(),
  /** The model's trained maximum context (the ceiling this device may configure). */
  contextLength: positiveInt.optional(),
  /** With `contextLength`, lets the engine give the model more than web-llm's default 4096 tokens. */
  kv: kvShape.optional(),
};

const webllmEntry = z.strictObject({
  engine: z.literal('webllm').optional(),
  ...common,
  /** A web-llm prebuilt model id for both precisions, or one for adapters with `shader-f16` and one without. */
  webllm: z.union([z.string().min(1), z.strictObject({ f16: z.string().min(1), f32: z.string().min(1) })]).optional(),
  /** A model of the deployment's own (see webllmRecord). */
  record: webllmRecord.optional(),
  /**
   * Pins, by web-llm model id (either precision of this entry's model, or of the shipped model when the entry
   * names none): the hashes its files must have. `npm run models:pull` writes them for what it pulled.
   */
  integrity: z.record(z.string().min(1), modelIntegrity).optional(),
});

/**
 * A llama.cpp model (GGUF): its own fields belong to that engine (worker/engine/llamacpp/), which checks them.
 * This build has no llama.cpp engine, so such an entry is refused by name at start-up.
 */
const llamacppEntry = z.looseObject({ engine: z.literal('llamacpp'), ...common });

const entry = z.union([webllmEntry, llamacppEntry]);

export type WebLlmRecordConfig = z.output<typeof webllmRecord>;
export type WebLlmEntry = z.output<typeof webllmEntry>;
export type ModelEntry = z.output<typeof entry>;
export type ModelsConfig = Record<string, ModelEntry>;

/** Engines this build can run; an entry naming another is refused. */
export const ENGINES = ['webllm'] as const;

/** Ids of the deployment's own: what OpenAI-style clients accept as a model name. */
const OWN_ID = /^[A-Za-z0-9][\w.:/-]{0,63}$/;

/** A bad `models` setting: the message names the entry and what is wrong with it. */
export class ModelConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelConfigError';
  }
}

const where = (id: string, path: readonly PropertyKey[] = []) =>
  `models[${JSON.stringify(id)}]${path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}`;

function describeIssue(id: string, issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_union') {
    // The branch the entry was meant for: a llamacpp entry says so; every other entry is a web-llm one.
    const branch = issue.errors[0];
    const first = branch?.[0];
    if (first) return describeIssue(id, { ...first, path: [...issue.path, ...first.path] } as z.core.$ZodIssue);
  }
  if (issue.code === 'unrecognized_keys') return `${where(id, issue.path)}: unknown field ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
  return `${where(id, issue.path)}: ${issue.message}`;
}

/** The configured entry behind a weight group (none: a built-in group the engine knows by itself). */
export interface WeightGroupSpec {
  engine: 'webllm' | 'llamacpp';
  /** The first id that named this model in the config, for messages. */
  configuredBy?: string;
  entry?: ModelEntry;
}

export interface ModelCatalog {
  /** The variants the service offers, in order: the five (less the hidden ones), then the deployment's own. */
  variants: Variant[];
  /** Every weight group the variants use. */
  groups: Record<string, WeightGroupSpec>;
  /** web-llm model id → the hashes its files must have, from every entry's `integrity` (hidden ones too). */
  pins: Record<string, ModelIntegrity & { pinnedBy: string }>;
}

/** Unix seconds for the deployment's own ids: after the five's, in the order they are configured. */
const FIRST_OWN_CREATED = VARIANTS['svc-vision'].created + 100;

/** The web-llm model an entry names, as one key: entries naming the same model share one weight group. */
function groupKey(e: WebLlmEntry): string | null {
  if (e.record) return e.record.model_id;
  if (typeof e.webllm === 'string') return e.webllm;
  if (e.webllm) return e.webllm.f16 === e.webllm.f32 ? e.webllm.f16 : `${e.webllm.f16}/${e.webllm.f32}`;
  return null;
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
  const entries = new Map<string, ModelEntry>();
  for (const [id, raw] of Object.entries(given)) {
    if (!isVariantId(id) && !OWN_ID.test(id)) {
      throw new ModelConfigError(`${where(id)}: a model id must be 1–64 letters, digits or . _ : / - and start with a letter or digit`);
    }
    const parsed = entry.safeParse(raw);
    if (!parsed.success) throw new ModelConfigError(describeIssue(id, parsed.error.issues[0]!));
    const e = parsed.data;
    const engine = e.engine ?? 'webllm';
    if (!(ENGINES as readonly string[]).includes(engine)) {
      throw new ModelConfigError(`${where(id, ['engine'])}: this build cannot run '${engine}' models (engines: ${ENGINES.join(', ')})`);
    }
    const web = e as WebLlmEntry;
    if (web.webllm !== undefined && web.record !== undefined) {
      throw new ModelConfigError(`${where(id)}: give either 'webllm' (a prebuilt model id) or 'record' (a model of your own), not both`);
    }
    if (!isVariantId(id) && web.webllm === undefined && web.record === undefined) {
      throw new ModelConfigError(`${where(id)}: a model id of the deployment's own needs 'webllm' (a prebuilt model id) or 'record'`);
    }
    if (web.webllm === undefined && web.record === undefined && (e.thinking !== undefined || e.kv !== undefined)) {
      throw new ModelConfigError(`${where(id)}: 'thinking' and 'kv' describe a model: give them with 'webllm' or 'record'`);
    }
    if (e.kv !== undefined && e.contextLength === undefined) {
      throw new ModelConfigError(`${where(id, ['kv'])}: give 'contextLength' (the trained maximum) with 'kv'`);
    }
    if (e.thinks === true && e.thinking === 'none') {
      throw new ModelConfigError(`${where(id)}: a model that thinks needs a thinking switch ('thinking': 'enable_thinking'), else 'reasoning_effort: none' could not be honoured`);
    }
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
          throw new ModelConfigError(`${where(id, ['integrity', modelId])}: pins '${modelId}' differently from ${where(before.pinnedBy, ['integrity', modelId])}`);
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
  const ids = [...VARIANT_IDS, ...[...entries.keys()].filter((id) => !isVariantId(id))];
  for (const id of ids) {
    const e = entries.get(id) as WebLlmEntry | undefined;
    const base: Variant | undefined = isVariantId(id) ? VARIANTS[id] : undefined;
    if (e?.hidden) continue;
    const key = e ? groupKey(e) : null;
    let weightGroup = base?.weightGroup ?? '';
    if (key !== null) {
      const builtIn = VARIANT_IDS.some((v) => VARIANTS[v].weightGroup === key);
      weightGroup = keyToGroup.get(key) ?? (builtIn ? `config:${key}` : key);
      keyToGroup.set(key, weightGroup);
      groups[weightGroup] ??= { engine: e!.engine ?? 'webllm', configuredBy: id, entry: e! };
    } else {
      groups[weightGroup] ??= { engine: 'webllm' };
    }
    const configured = key !== null;
    variants.push({
      id: id as Variant['id'],
      thinks: e?.thinks ?? base?.thinks ?? false,
      vision: e?.vision ?? base?.vision ?? false,
      hostedContext: base?.hostedContext ?? null,
      weightGroup,
      // Another model than the shipped one: its own trained maximum if given, else web-llm's default context.
      trainedContext: e?.contextLength ?? (configured || !base ? 4096 : base.trainedContext),
      created: base?.created ?? FIRST_OWN_CREATED + own++,
      // svc-embed as shipped is the embedding model (mapped to another model, it is what that entry says).
      ...(base?.embeddings && !configured ? { embeddings: base.embeddings } : {}),
    });
  }
  if (variants.length === 0) throw new ModelConfigError('models: every model is hidden; the service would offer none');
  return { variants, groups, pins };
}

/** The five as they ship. */
export const DEFAULT_CATALOG: ModelCatalog = buildCatalog({});

/** The variant of `id` in `catalog`, if the catalog offers it. */
export function variantIn(catalog: ModelCatalog, id: string): Variant | undefined {
  return catalog.variants.find((v) => v.id === id);
}
