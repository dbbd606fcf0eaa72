// web-llm's errors → the contract's. web-llm names its error classes (err.name); request-support.ts keeps
// most of the request errors from ever reaching web-llm, and these mappings are the backstop.
import { ApiError } from '#shared/protocol/errors';

function describe(err: unknown): { name: string; message: string } {
  if (err instanceof Error) return { name: err.name, message: err.message };
  if (typeof err === 'object' && err !== null && 'message' in err) return { name: '', message: String((err as { message: unknown }).message) };
  return { name: '', message: String(err) };
}

/** web-llm's request-shape errors: it cannot do what the request asks. */
const UNSUPPORTED = new Set([
  'UnsupportedFieldsError',
  'StreamingCountError',
  'MultipleTextContentError',
  'SystemMessageOrderError',
  'MessageOrderError',
  'UnsupportedDetailError',
  'UnsupportedImageURLError',
  'UserMessageContentErrorForNonVLM',
  'UnsupportedContentPartError',
  'ContentTypeError',
  'UnsupportedRoleError',
  'InvalidResponseFormatError',
  'UnsupportedModelIdError',
]);
/** web-llm's range checks on generation settings. */
const INVALID = new Set([
  'RangeError',
  'MinValueError',
  'NonNegativeError',
  'DependencyError',
  'SeedTypeError',
  'InvalidNumberStringError',
  'GrammarMatcherInitError',
]);

const OUT_OF_MEMORY = /out of memory|OOM|device (was )?lost|DeviceLostError|allocation failed|Failed to allocate/i;

/** Whether a failed load ran out of GPU memory (a smaller context may fit). */
export function isOutOfMemory(err: unknown): boolean {
  const { name, message } = describe(err);
  return name === 'DeviceLostError' || OUT_OF_MEMORY.test(message);
}

export function isNoWebGpu(err: unknown): boolean {
  const { name, message } = describe(err);
  return name === 'WebGPUNotAvailableError' || name === 'WebGPUNotFoundError' || /Unable to find a compatible GPU/.test(message);
}

/**
 * A failure while loading `what` (e.g. "svc-model-5.2 (web-llm model Qwen3-8B-q4f32_1-MLC)") from `source`
 * (where its files were fetched from, so a wrong self-hosting path shows).
 */
export function loadError(err: unknown, what: string, source?: string): ApiError {
  if (err instanceof ApiError) return err;
  const { message } = describe(err);
  if (isNoWebGpu(err)) return new ApiError('webgpu_unavailable', `WebGPU is not available to load ${what}: ${message}`);
  if (err instanceof Error && err.name === 'IntegrityError') {
    // web-llm checked a file against the deployment's pin (ModelRecord.integrity) before using it.
    const { url, expected, actual } = err as Error & { url?: string; expected?: string; actual?: string };
    return new ApiError(
      'model_load_failed',
      `Loading ${what} failed: ${url} does not match the hash this deployment pinned for it (pinned ${expected}, the file has ${actual}); ` +
        'the file was changed or the pin is out of date, so it was not used',
    );
  }
  // A server that answers a missing file with its HTML page (an SPA fallback) makes web-llm's JSON parse fail.
  const html = /Unexpected token '<'|<!doctype/i.test(message) ? ' (the server answered with an HTML page, not the model file: check the model URLs)' : '';
  return new ApiError('model_load_failed', `Loading ${what} failed: ${message}${html}${source ? ` [${source}]` : ''}`);
}

/** A failure from web-llm's chat completion, before or during generation. */
export function generationError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const { name, message } = describe(err);
  if (name === 'ContextWindowSizeExceededError') {
    return new ApiError('context_length_exceeded', `This model's maximum context length is exceeded: ${message}`, { param: 'messages' });
  }
  if (UNSUPPORTED.has(name)) return new ApiError('unsupported_parameter', `The model cannot honour this request: ${message}`);
  // (web-llm's own RangeError says "Make sure …"; a JavaScript RangeError is a bug.)
  if (INVALID.has(name) && (name !== 'RangeError' || message.startsWith('Make sure'))) return new ApiError('invalid_value', message);
  if (isNoWebGpu(err)) return new ApiError('webgpu_unavailable', message);
  if (name === 'ModelNotLoadedError' || name === 'SpecifiedModelNotFoundError') {
    return new ApiError('engine_unavailable', `The model was unloaded during the request (${message}); retry.`);
  }
  return new ApiError('internal_error', `web-llm failed during generation: ${name ? `${name}: ` : ''}${message}`);
}
