// Models by configuration: the `models` setting of /inpage.config.json (or `installInpage({config})`) maps any of
// the five public ids to another model, hides any of them, and adds ids of the deployment's own. This module
// declares the setting's shape (zod) and turns it into the catalog every part reads: the variants the service
// offers (src/shared/variants.ts's promise: id, thinks, vision, context, weight group) and, per weight group, the
// configured entry whose engine-specific fields the engine reads (worker/engine/webllm/models.ts for web-llm).
import { lazy, z } from './protocol/zod';
import { VARIANTS, VARIANT_IDS, isVariantId, type Variant } from './variants';

/** llama.cpp's split naming (gguf-split): `…-00001-of-00003.gguf`; wllama loads a split model from its first part. */
export const SPLIT_PART = /-(\d{5})-of-(\d{5})\.gguf(\?.*)?$/i;

/** Bytes of each SRI digest: a pin of another length is a typo, not a hash. */
const SRI_BYTES = { sha256: 32, sha384: 48, sha512: 64 } as const;

/** The setting's schemas (built on first use: see `lazy`; the service worker never parses the setting). */
function buildSchemas() {
  // zod's mini build (src/shared/protocol/zod.ts, `jitless` there: the page's CSP forbids eval): `z.optional(x)`,
  // `x.check(z.minLength(1))` where the classic build chains `x.optional()`, `x.min(1)`.
  const positiveInt = z.int().check(z.minimum(1));
  const nonEmptyName = z.string().check(z.minLength(1), z.maxLength(256));

  /** The shape of one layer's KV cache, from the model's config.json; lets the engine size the context. */
  const kvShape = z.strictObject({ layers: positiveInt, kvHeads: positiveInt, headDim: positiveInt });

  /** One Subresource Integrity hash (`sha256-…`, `sha384-…` or `sha512-…`, base64), as web-llm verifies them. */
  const sri = z.string().check(
    z.refine((value: string) => {
      const m = /^(sha256|sha384|sha512)-([A-Za-z0-9+/]+={0,2})$/.exec(value);
      if (!m) return false;
      const b64 = m[2]!;
      return Math.floor((b64.replace(/=+$/, '').length * 3) / 4) === SRI_BYTES[m[1] as keyof typeof SRI_BYTES];
    }, 'must be one SRI hash: sha256-, sha384- or sha512- and the base64 digest'),
  );

  /**
   * Pins for one web-llm model's files, in web-llm's `ModelRecord.integrity` shape: web-llm 0.2.86 checks its
   * `mlc-chat-config.json`, its model library (before running it) and the tokenizer file it reads against these,
   * and a mismatch fails the load (inpage never sets web-llm's `onFailure: "warn"`). The weight shards and
   * `tensor-cache.json` are not covered by web-llm's check.
   */
  const modelIntegrity = z.strictObject({
    config: z.optional(sri),
    model_lib: z.optional(sri),
    /** web-llm reads (and checks) `tokenizer.json`, or `tokenizer.model` when there is no tokenizer.json. */
    tokenizer: z.optional(z.partialRecord(z.enum(['tokenizer.json', 'tokenizer.model']), sri)),
  });

  /**
   * A web-llm `ModelRecord` for a model web-llm does not ship: where its weights and compiled library are, and the
   * chat options (`overrides`: `conv_template`, `context_window_size`, …) as web-llm takes them. Relative URLs
   * resolve against the page's origin.
   */
  const webllmRecord = z.strictObject({
    model_id: z.string().check(z.regex(/^[\w.+-]{1,128}$/, 'must be 1–128 letters, digits or . _ + -')),
    model: z.string().check(z.minLength(1)),
    model_lib: z.string().check(z.minLength(1)),
    overrides: z.optional(z.record(z.string(), z.unknown())),
    vram_required_MB: z.optional(z.number().check(z.positive())),
    low_resource_required: z.optional(z.boolean()),
    buffer_size_required_bytes: z.optional(z.number().check(z.positive())),
    required_features: z.optional(z.array(z.string())),
    model_type: z.optional(z.int().check(z.minimum(0))),
  });

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

  const nonEmpty = z.string().check(z.minLength(1));

  const webllmEntry = z.strictObject({
    engine: z.optional(z.literal('webllm')),
    ...common,
    /** A web-llm prebuilt model id for both precisions, or one for adapters with `shader-f16` and one without. */
    webllm: z.optional(z.union([nonEmpty, z.strictObject({ f16: nonEmpty, f32: nonEmpty })])),
    /** A model of the deployment's own (see webllmRecord). */
    record: z.optional(webllmRecord),
    /**
     * Pins, by web-llm model id (either precision of this entry's model, or of the shipped model when the entry
     * names none): the hashes its files must have. `npm run models:pull` writes them for what it pulled.
     */
    integrity: z.optional(z.record(nonEmpty, modelIntegrity)),
  });

  /** A GGUF file's URL: http(s), or relative to the page's origin; the name ends in `.gguf` (as wllama requires). */
  const ggufUrl = z.string().check(
    z.minLength(1),
    z.refine((u: string) => {
      try {
        const url = new URL(u, 'https://origin.invalid/');
        return (url.protocol === 'https:' || url.protocol === 'http:') && /\.gguf$/i.test(url.pathname);
      } catch {
        return false;
      }
    }, 'must be an http(s) URL (or a path on this origin) of a .gguf file'),
  );

  /**
   * A llama.cpp model (GGUF). Without `gguf` (one of the five only) the variant keeps its GGUF default and is only
   * tied to llama.cpp. `kv` (web-llm's context sizing) does not apply.
   */
  const llamacppEntry = z.strictObject({
    engine: z.literal('llamacpp'),
    ...common,
    kv: z.optional(z.undefined({ error: "'kv' sizes web-llm's context; on llama.cpp give 'context'" })),
    /** The model file's URL, or the URLs of its split parts in order (each under llama.cpp's 2 GB buffer limit). */
    gguf: z.optional(z.union([ggufUrl, z.array(ggufUrl).check(z.minLength(1))])),
    /** The vision projector's URL (a vision model's image encoder). */
    mmproj: z.optional(ggufUrl),
    /** Tokens of context llama.cpp allocates when it loads the model (default 4096; at most `contextLength`). */
    context: z.optional(positiveInt),
    /** The files' size in bytes, for the "too large for this device" check (unknown: no check before the load). */
    bytes: z.optional(positiveInt),
  });
  return { modelIntegrity, webllmRecord, webllmEntry, llamacppEntry };
}
type Schemas = ReturnType<typeof buildSchemas>;
const schemas = lazy(buildSchemas);

/** The schemas of one `models` entry (web-llm's, llama.cpp's), for the settings' JSON Schema (src/shared/config-schema.ts). */
export const modelEntrySchemas = () => {
  const { webllmEntry, llamacppEntry } = schemas();
  return { webllmEntry, llamacppEntry };
};

export type ModelIntegrity = z.output<Schemas['modelIntegrity']>;
export type WebLlmRecordConfig = z.output<Schemas['webllmRecord']>;
export type WebLlmEntry = z.output<Schemas['webllmEntry']>;
export type LlamaCppEntry = z.output<Schemas['llamacppEntry']>;
export type ModelEntry = WebLlmEntry | LlamaCppEntry;
export type ModelsConfig = Record<string, ModelEntry>;

/**
 * The hybrid modes (docs/hybrid.md), per id: `local` never asks an upstream; `prefer-local` answers locally when
 * this device can run the model and its weights are ready, else upstream; `prefer-upstream` answers upstream unless
 * it is unreachable or the browser is offline; `upstream` never runs locally.
 */
export const HYBRID_MODES = ['local', 'prefer-local', 'prefer-upstream', 'upstream'] as const;
/** A hybrid mode: whether this device or an upstream server answers an id, and which one first. */
export type HybridMode = (typeof HYBRID_MODES)[number];

/** Where one id is answered: its mode and, unless `local`, the upstream (by name) and that server's model name. */
export interface Route {
  mode: HybridMode;
  upstream?: { via?: string; model: string };
}

/** Engines a `models` entry may name. */
export const ENGINES = ['webllm', 'llamacpp'] as const;

/** A configured GGUF model as the llama.cpp engine loads it: every file's URL (a split model's parts in order). */
export interface GgufModelConfig {
  /** The model's files: one, or a split model's parts `-00001-of-N` … `-N-of-N`; wllama is given the first. */
  files: string[];
  mmproj?: string;
  context?: number;
  bytes?: number;
  thinking?: 'enable_thinking' | 'none';
}

/** The GGUF files of a llamacpp entry, checked against llama.cpp's split naming. Throws a ModelConfigError. */
function ggufFiles(id: string, gguf: string | string[]): string[] {
  const files = typeof gguf === 'string' ? [gguf] : gguf;
  const parts = files.map((f) => f.match(SPLIT_PART));
  if (files.length === 1) {
    const m = parts[0];
    if (m && Number(m[1]) !== 1) {
      throw new ModelConfigError(`${where(id, ['gguf'])}: '${files[0]}' is part ${Number(m[1])} of a split model; give the first part (-00001-of-${m[2]}.gguf) or every part in order`);
    }
    return files;
  }
  const prefix = (f: string) => f.replace(SPLIT_PART, '');
  for (let i = 0; i < files.length; i++) {
    const m = parts[i];
    const expected = `-${String(i + 1).padStart(5, '0')}-of-${String(files.length).padStart(5, '0')}.gguf`;
    if (!m || Number(m[1]) !== i + 1 || Number(m[2]) !== files.length || prefix(files[i]!) !== prefix(files[0]!) || (m[3] ?? '') !== (parts[0]![3] ?? '')) {
      throw new ModelConfigError(
        `${where(id, ['gguf', i])}: the parts of a split model must be named as llama.cpp's gguf-split names them, in order and with one prefix: expected '${prefix(files[0]!)}${expected}', got '${files[i]}'`,
      );
    }
  }
  return files;
}

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
  engine: 'webllm' | 'llamacpp' | 'upstream';
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

/** The model an entry names, as one key: entries naming the same model share one weight group. */
function groupKey(e: ModelEntry): string | null {
  if (e.engine === 'llamacpp') {
    const gguf = (e as LlamaCppEntry).gguf;
    return gguf === undefined ? null : `gguf:${typeof gguf === 'string' ? gguf : gguf[0]}`;
  }
  const web = e as WebLlmEntry;
  if (web.record) return web.record.model_id;
  if (typeof web.webllm === 'string') return web.webllm;
  if (web.webllm) return web.webllm.f16 === web.webllm.f32 ? web.webllm.f16 : `${web.webllm.f16}/${web.webllm.f32}`;
  return null;
}

/** A readable weight-group name for a GGUF model: its file name without the split suffix and `.gguf`. */
function ggufGroupName(url: string, taken: (name: string) => boolean): string {
  const file = decodeURIComponent(new URL(url, 'https://origin.invalid/').pathname.split('/').pop() ?? 'model.gguf');
  const stem = `gguf:${file.replace(SPLIT_PART, '').replace(/\.gguf$/i, '')}`;
  let name = stem;
  for (let n = 2; taken(name); n++) name = `${stem}~${n}`;
  return name;
}

/**
 * An id of the deployment's own that an upstream server alone answers: mode `upstream` and no local model (no
 * `webllm`, `record`, `engine` or `gguf`). Its variant has engine `upstream` and a weight group no local engine serves.
 */
function upstreamOnly(id: string, e: ModelEntry): boolean {
  const web = e as WebLlmEntry;
  return !isVariantId(id) && e.mode === 'upstream' && e.upstream !== undefined && e.engine === undefined && web.webllm === undefined && web.record === undefined;
}

/** Checks what a parsed entry says as a whole (shape is zod's job). Throws a ModelConfigError naming it. */
function checkEntry(id: string, e: ModelEntry): void {
  if (e.mode !== undefined && e.mode !== 'local' && e.upstream === undefined) {
    throw new ModelConfigError(`${where(id, ['mode'])}: '${e.mode}' needs 'upstream' (the server's name for the model, and 'via' the upstream it is on)`);
  }
  if (e.kv !== undefined && e.contextLength === undefined) {
    throw new ModelConfigError(`${where(id, ['kv'])}: give 'contextLength' (the trained maximum) with 'kv'`);
  }
  if (e.thinks === true && e.thinking === 'none') {
    throw new ModelConfigError(`${where(id)}: a model that thinks needs a thinking switch ('thinking': 'enable_thinking'), else 'reasoning_effort: none' could not be honoured`);
  }
  if (e.engine === 'llamacpp') {
    const l = e as LlamaCppEntry;
    const base = isVariantId(id) ? VARIANTS[id] : undefined;
    if (base?.embeddings) throw new ModelConfigError(`${where(id, ['engine'])}: the llama.cpp engine has no embedding model; '${id}' runs on web-llm only`);
    if (l.gguf === undefined) {
      if (!base) throw new ModelConfigError(`${where(id)}: a model id of the deployment's own on llama.cpp needs 'gguf' (the model file's URL, or its split parts' URLs)`);
      for (const field of ['mmproj', 'thinking', 'contextLength', 'bytes'] as const) {
        if (l[field] !== undefined) throw new ModelConfigError(`${where(id, [field])}: '${field}' describes a model: give it with 'gguf' (without 'gguf', ${id} keeps its GGUF default)`);
      }
      return;
    }
    ggufFiles(id, l.gguf);
    const vision = l.vision ?? base?.vision ?? false;
    if (vision && l.mmproj === undefined) throw new ModelConfigError(`${where(id)}: a vision model on llama.cpp needs 'mmproj' (its vision projector's URL), or set 'vision' to false`);
    if (!vision && l.mmproj !== undefined) throw new ModelConfigError(`${where(id, ['mmproj'])}: a vision projector is for a vision model: set 'vision' to true, or leave 'mmproj' out`);
    if (l.context !== undefined && l.contextLength !== undefined && l.context > l.contextLength) {
      throw new ModelConfigError(`${where(id, ['context'])}: ${l.context} is more than the model's trained maximum ('contextLength': ${l.contextLength})`);
    }
    return;
  }
  const web = e as WebLlmEntry;
  if (upstreamOnly(id, e)) {
    for (const field of ['integrity', 'thinking', 'kv'] as const) {
      if (web[field] !== undefined) throw new ModelConfigError(`${where(id, [field])}: '${id}' has no local model (mode 'upstream' without 'webllm', 'record' or 'gguf'), so '${field}' describes nothing here`);
    }
    return;
  }
  if (web.webllm !== undefined && web.record !== undefined) {
    throw new ModelConfigError(`${where(id)}: give either 'webllm' (a prebuilt model id) or 'record' (a model of your own), not both`);
  }
  if (!isVariantId(id) && web.webllm === undefined && web.record === undefined) {
    throw new ModelConfigError(
      `${where(id)}: a model id of the deployment's own needs 'webllm' (a prebuilt model id) or 'record', or 'engine': 'llamacpp' with 'gguf'; or, answered by an upstream server only, 'mode': 'upstream' with 'upstream'`,
    );
  }
  if (web.webllm === undefined && web.record === undefined && (e.thinking !== undefined || e.kv !== undefined)) {
    throw new ModelConfigError(`${where(id)}: 'thinking' and 'kv' describe a model: give them with 'webllm' or 'record'`);
  }
}

/** Parses one entry: a llamacpp one by its own shape, every other as a web-llm one. */
function parseEntry(id: string, raw: unknown): ModelEntry {
  const engine = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as { engine?: unknown }).engine : undefined;
  if (engine !== undefined && !(ENGINES as readonly unknown[]).includes(engine)) {
    throw new ModelConfigError(`${where(id, ['engine'])}: unknown engine ${JSON.stringify(engine)} (engines: ${ENGINES.join(', ')})`);
  }
  const { llamacppEntry, webllmEntry } = schemas();
  const parsed = (engine === 'llamacpp' ? llamacppEntry : webllmEntry).safeParse(raw);
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
  const entries = new Map<string, ModelEntry>();
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
      groups[weightGroup] = { engine: 'upstream', configuredBy: id, entry: e };
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
    const key = e ? groupKey(e) : null;
    const llama = e?.engine === 'llamacpp' ? (e as LlamaCppEntry) : undefined;
    let weightGroup = base?.weightGroup ?? '';
    if (key !== null) {
      const builtIn = VARIANT_IDS.some((v) => VARIANTS[v].weightGroup === key);
      weightGroup =
        keyToGroup.get(key) ?? (llama ? ggufGroupName(key.slice('gguf:'.length), (name) => name in groups) : builtIn ? `config:${key}` : key);
      keyToGroup.set(key, weightGroup);
      if (!groups[weightGroup]) {
        const spec: WeightGroupSpec = { engine: e!.engine ?? 'webllm', configuredBy: id, entry: e! };
        if (llama) {
          spec.gguf = { files: ggufFiles(id, llama.gguf!) };
          for (const field of ['mmproj', 'context', 'bytes', 'thinking'] as const) if (llama[field] !== undefined) Object.assign(spec.gguf, { [field]: llama[field] });
        }
        groups[weightGroup] = spec;
      } else if (groups[weightGroup]!.engine !== (e!.engine ?? 'webllm')) {
        throw new ModelConfigError(`${where(id)}: names the model '${groups[weightGroup]!.configuredBy}' names, for another engine`);
      }
    } else {
      groups[weightGroup] ??= { engine: 'webllm' };
    }
    const configured = key !== null;
    // The engine the entry ties the variant to: the one its model is for, or the one it names.
    const engine = e?.engine ?? (configured ? 'webllm' : undefined);
    const trainedContext = llama && configured ? (llama.contextLength ?? Math.max(llama.context ?? 0, 4096)) : (e?.contextLength ?? (configured || !base ? 4096 : base.trainedContext));
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
