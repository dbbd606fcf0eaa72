// `npm run models:pull`: downloads the files of chosen variants into a folder laid out as inpage's model source,
// so a deployment can serve the weights from its own origin (air-gapped use, or no third-party hosts):
//
//   DIR/<web-llm model id>/resolve/main/mlc-chat-config.json, tokenizer files, tensor-cache.json, shards
//   DIR/libs/<model library>.wasm
//
// Serve DIR at, say, /models and set `{"modelBaseUrl": "/models", "modelLibBaseUrl": "/models/libs"}` in
// inpage.config.json: the engine then asks exactly these paths (worker/engine/webllm/models.ts, recordFor).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { VARIANTS, VARIANT_IDS, isVariantId, type VariantId } from '../../src/shared/variants';
import { modelIdOf, prebuiltRecord, type Precision } from '../../worker/engine/webllm/models';
import { DEFAULT_CATALOG, type ModelIntegrity } from '../../src/shared/model-config';
import { download, HttpError, sizeOf, type PulledFile } from './download';
import { GGUF_DIR, pullGguf } from './gguf';
import { checkedTokenizerFile, modelPins, suggestedConfig, SRI_ALGORITHMS, type SriAlgorithm } from './pins';

/** The weight manifest web-llm 0.2.86 reads; older MLC builds named it ndarray-cache.json. */
export const TENSOR_MANIFEST = 'tensor-cache.json';
export const LEGACY_TENSOR_MANIFEST = 'ndarray-cache.json';
export const CHAT_CONFIG = 'mlc-chat-config.json';
/** The folder under DIR that holds model libraries. */
export const LIB_DIR = 'libs';

export interface PullOptions {
  variants: VariantId[];
  out: string;
  precisions: Precision[];
  /** Weights from `{source}/{model id}/resolve/main/…` instead of web-llm's hosts (a mirror, or a test server). */
  source?: string;
  /** Model libraries from `{libSource}/{file}` instead of web-llm's hosts. */
  libSource?: string;
  /** Parallel shard downloads. */
  concurrency?: number;
  /** The hash the pins use (default sha384). */
  sri?: SriAlgorithm;
  /** Which engines' files: web-llm's (MLC) and llama.cpp's GGUF defaults (gguf.ts); default both. */
  engines?: ('webllm' | 'llamacpp')[];
  /** GGUF files from `{ggufSource}/{repo}/resolve/main/{file}` instead of Hugging Face. */
  ggufSource?: string;
  log?: (line: string) => void;
}

export interface PulledModel {
  modelId: string;
  variants: VariantId[];
  files: PulledFile[];
  /** The pins for what was pulled (web-llm's ModelRecord.integrity). */
  integrity: ModelIntegrity;
}

export interface PullReport {
  models: PulledModel[];
  bytes: number;
}

export interface TensorManifest {
  records: { dataPath: string; nbytes?: number }[];
}

/** The web-llm model ids behind `variants` at `precisions`, each once, with the variants it serves. */
export function modelsFor(variants: readonly VariantId[], precisions: readonly Precision[]): { modelId: string; variants: VariantId[] }[] {
  const out = new Map<string, VariantId[]>();
  for (const precision of precisions) {
    for (const id of variants) {
      const modelId = modelIdOf(DEFAULT_CATALOG, VARIANTS[id], precision);
      const list = out.get(modelId) ?? [];
      if (!list.includes(id)) list.push(id);
      out.set(modelId, list);
    }
  }
  return [...out].map(([modelId, variants]) => ({ modelId, variants }));
}

const slash = (base: string) => (base.endsWith('/') ? base : `${base}/`);
const fileName = (url: string) => url.slice(url.lastIndexOf('/') + 1);

/** Where a model's files come from: `{base}/{model id}/resolve/main/` (web-llm's own hosts use the same scheme). */
export function weightBase(modelId: string, source: string | undefined): string {
  const base = source ? `${slash(source)}${modelId}` : prebuiltRecord(modelId).model;
  const url = slash(base);
  return /\/resolve\/.+\/$/.test(url) ? url : `${url}resolve/main/`;
}

export function libraryUrl(modelId: string, libSource: string | undefined): string {
  const lib = prebuiltRecord(modelId).model_lib;
  return libSource ? `${slash(libSource)}${fileName(lib)}` : lib;
}

export function libraryFile(modelId: string): string {
  return fileName(prebuiltRecord(modelId).model_lib);
}

async function runLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(lanes);
}

export async function pull(options: PullOptions): Promise<PullReport> {
  const log = options.log ?? (() => undefined);
  const report: PullReport = { models: [], bytes: 0 };
  for (const { modelId, variants } of modelsFor(options.variants, options.precisions)) {
    const record = prebuiltRecord(modelId);
    if (record.model_manifest !== undefined) throw new Error(`${modelId} uses a model package manifest, which models:pull does not handle.`);
    const base = weightBase(modelId, options.source);
    const dir = join(options.out, modelId, 'resolve', 'main');
    const model: PulledModel = { modelId, variants, files: [], integrity: {} };
    const note = (path: string, bytes: number, downloaded: boolean) => {
      model.files.push({ path, bytes, downloaded });
      report.bytes += bytes;
    };
    /** Small files (config, tokenizer, manifest) are always fetched again: they are what says what is current. */
    const fetchSmall = async (name: string, saveAs = name): Promise<Buffer> => {
      const bytes = await download(base + name, join(dir, saveAs));
      note(join(modelId, 'resolve', 'main', saveAs), bytes, true);
      return readFile(join(dir, saveAs));
    };
    log(`${modelId} (${variants.join(', ')}) from ${base}`);

    const chatConfigBytes = await fetchSmall(CHAT_CONFIG);
    const chatConfig = JSON.parse(chatConfigBytes.toString('utf8')) as { tokenizer_files?: unknown };
    const tokenizerFiles = Array.isArray(chatConfig.tokenizer_files) ? chatConfig.tokenizer_files.filter((f): f is string => typeof f === 'string') : [];
    const checkedTokenizer = checkedTokenizerFile(tokenizerFiles);
    let tokenizerBytes: Buffer | undefined;
    for (const name of tokenizerFiles) {
      const bytes = await fetchSmall(name);
      if (name === checkedTokenizer) tokenizerBytes = bytes;
    }

    let manifestText: Buffer;
    try {
      manifestText = await fetchSmall(TENSOR_MANIFEST);
    } catch (err) {
      if (!(err instanceof HttpError && err.status === 404)) throw err;
      // An older build: same format under the old name. web-llm reads tensor-cache.json, so keep both.
      manifestText = await fetchSmall(LEGACY_TENSOR_MANIFEST, TENSOR_MANIFEST);
      log(`  ${LEGACY_TENSOR_MANIFEST} saved as ${TENSOR_MANIFEST}`);
    }
    const manifest = JSON.parse(manifestText.toString('utf8')) as TensorManifest;
    if (!Array.isArray(manifest.records)) throw new Error(`${base}${TENSOR_MANIFEST} has no "records" list.`);
    const shards = [...new Map(manifest.records.map((r) => [r.dataPath, r.nbytes])).entries()];
    let done = 0;
    await runLimited(shards, options.concurrency ?? 4, async ([dataPath, nbytes]) => {
      const path = join(dir, dataPath);
      const have = await sizeOf(path);
      if (have !== null && (nbytes === undefined || have === nbytes)) {
        note(join(modelId, 'resolve', 'main', dataPath), have, false);
      } else {
        const bytes = await download(new URL(dataPath, base).href, path, nbytes);
        note(join(modelId, 'resolve', 'main', dataPath), bytes, true);
      }
      log(`  ${++done}/${shards.length} ${dataPath}`);
    });

    const lib = libraryFile(modelId);
    const libPath = join(options.out, LIB_DIR, lib);
    const libUrl = libraryUrl(modelId, options.libSource);
    const libBytes = await download(libUrl, libPath);
    note(join(LIB_DIR, lib), libBytes, true);
    log(`  library ${lib} from ${libUrl}`);
    model.integrity = modelPins(
      {
        config: chatConfigBytes,
        lib: await readFile(libPath),
        ...(checkedTokenizer && tokenizerBytes ? { tokenizer: { name: checkedTokenizer, data: tokenizerBytes } } : {}),
      },
      options.sri ?? 'sha384',
    );
    report.models.push(model);
  }
  return report;
}

/** Where models:pull writes the settings it suggests, beside the pulled files. */
export const SUGGESTED_CONFIG = 'suggested-inpage.config.json';

export const USAGE = `Usage: npm run models:pull -- <variant…|all> --out DIR [options]

Downloads the files of the chosen variants into DIR, laid out so inpage can load them from its own origin:
serve DIR at /models and set {"modelBaseUrl": "/models", "modelLibBaseUrl": "/models/libs"} in
inpage.config.json (beside index.html).

Variants: ${VARIANT_IDS.join(', ')}, or all.

Options:
  --out DIR             where to write (required)
  --precision P         f16 (adapters with shader-f16), f32 (the rest) or both (default: both)
  --source URL          weights from URL/<model id>/resolve/main/… instead of web-llm's hosts
  --lib-source URL      model libraries from URL/<file> instead of web-llm's hosts
  --concurrency N       parallel shard downloads (default 4)
  --sri ALGORITHM       the hash of the pins it suggests: sha256, sha384 (default) or sha512
  --engine E            webllm (MLC files), llamacpp (GGUF files, into DIR/gguf) or both (default)
  --gguf-source URL     GGUF files from URL/<repo>/resolve/main/<file> instead of Hugging Face

The suggested settings pin what was pulled: the hashes of each model's mlc-chat-config.json, model library and
tokenizer file, which web-llm checks before using them (a changed file fails the load, naming it). They are
also written to DIR/${SUGGESTED_CONFIG}.`;

export interface ParsedArgs {
  options: PullOptions;
}

export function parseArgs(argv: readonly string[]): ParsedArgs | { help: true } {
  const variants: VariantId[] = [];
  let out: string | undefined;
  let precision = 'both';
  let source: string | undefined;
  let libSource: string | undefined;
  let concurrency = 4;
  let sriAlgorithm: SriAlgorithm = 'sha384';
  let engine = 'both';
  let ggufSource: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new Error(`${arg} needs a value.`);
      return v;
    };
    if (arg === '--help' || arg === '-h') return { help: true };
    else if (arg === '--out') out = value();
    else if (arg === '--precision') precision = value();
    else if (arg === '--source') source = value();
    else if (arg === '--lib-source') libSource = value();
    else if (arg === '--concurrency') concurrency = Number(value());
    else if (arg === '--engine') engine = value();
    else if (arg === '--gguf-source') ggufSource = value();
    else if (arg === '--sri') {
      const v = value();
      if (!(SRI_ALGORITHMS as readonly string[]).includes(v)) throw new Error(`--sri is ${SRI_ALGORITHMS.join(', ')}, not '${v}'.`);
      sriAlgorithm = v as SriAlgorithm;
    } else if (arg.startsWith('--')) throw new Error(`Unknown option ${arg}.`);
    else if (arg === 'all') variants.push(...VARIANT_IDS);
    else if (isVariantId(arg)) variants.push(arg);
    else throw new Error(`Unknown variant '${arg}'; choose from ${VARIANT_IDS.join(', ')} or all.`);
  }
  if (variants.length === 0) throw new Error('Name at least one variant (or all).');
  if (!out) throw new Error('--out DIR is required.');
  if (precision !== 'f16' && precision !== 'f32' && precision !== 'both') throw new Error(`--precision is f16, f32 or both, not '${precision}'.`);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error('--concurrency is a whole number of at least 1.');
  if (engine !== 'webllm' && engine !== 'llamacpp' && engine !== 'both') throw new Error(`--engine is webllm, llamacpp or both, not '${engine}'.`);
  const precisions: Precision[] = precision === 'both' ? ['f16', 'f32'] : [precision];
  const engines: ('webllm' | 'llamacpp')[] = engine === 'both' ? ['webllm', 'llamacpp'] : [engine];
  return {
    options: {
      variants: [...new Set(variants)],
      out,
      precisions,
      concurrency,
      sri: sriAlgorithm,
      engines,
      ...(source ? { source } : {}),
      ...(libSource ? { libSource } : {}),
      ...(ggufSource ? { ggufSource } : {}),
    },
  };
}

/** The command line: returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs(argv);
  } catch (err) {
    console.error(`${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
    return 2;
  }
  if ('help' in parsed) {
    console.log(USAGE);
    return 0;
  }
  const { options } = parsed;
  try {
    const engines = options.engines ?? ['webllm', 'llamacpp'];
    const log = (line: string) => console.error(line);
    const report: PullReport = engines.includes('webllm') ? await pull({ ...options, log }) : { models: [], bytes: 0 };
    const gguf = engines.includes('llamacpp') ? await pullGguf({ ...options, log }) : [];
    const files = [...report.models.flatMap((m) => m.files), ...gguf.flatMap((g) => g.files)];
    const bytes = files.reduce((n, f) => n + f.bytes, 0);
    const names = [...report.models.map((m) => m.modelId), ...gguf.flatMap((g) => g.files.map((f) => f.path.split('/').pop()!))];
    console.log(
      `Pulled ${names.join(', ')} into ${options.out}: ${(bytes / 1024 / 1024).toFixed(1)} MiB, ${files.filter((f) => f.downloaded).length} files downloaded.`,
    );
    const settings: Record<string, unknown> = report.models.length > 0 ? suggestedConfig(report.models, LIB_DIR) : {};
    // The GGUF defaults under DIR/gguf in Hugging Face's layout: llama.cpp's source is that folder as served.
    if (gguf.length > 0) settings.ggufBaseUrl = `/models/${GGUF_DIR}`;
    const suggested = JSON.stringify(settings, null, 2);
    await writeFile(join(options.out, SUGGESTED_CONFIG), `${suggested}\n`);
    console.log(`Serve ${options.out} at /models on the app's origin and put this in inpage.config.json (also in ${join(options.out, SUGGESTED_CONFIG)}):`);
    console.log(suggested);
    return 0;
  } catch (err) {
    console.error(`models:pull failed: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}
