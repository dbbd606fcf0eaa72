// The error catalogue of docs/contract.md: every failure a caller can see is one of these, in OpenAI's shape.

export type ErrorType = 'invalid_request_error' | 'rate_limit_exceeded' | 'server_error' | 'external_connector_error';

export type ErrorCode =
  | 'invalid_json'
  | 'invalid_content_type'
  | 'missing_required_parameter'
  | 'invalid_type'
  | 'invalid_value'
  | 'unsupported_parameter'
  | 'context_length_exceeded'
  | 'missing_api_key'
  | 'invalid_api_key'
  | 'model_not_found'
  | 'response_not_found'
  | 'item_not_found'
  | 'duplicate_item'
  | 'unknown_url'
  | 'method_not_allowed'
  | 'request_too_large'
  | 'queue_full'
  | 'internal_error'
  | 'engine_unavailable'
  | 'service_unavailable'
  | 'webgpu_unavailable'
  | 'model_load_failed'
  | 'model_too_large_for_device'
  /** Upstream (docs/hybrid.md): the server refused the request itself (a 4xx other than 401/403/429): its status. */
  | 'upstream_rejected'
  /** Upstream: unreachable, offline, refused inpage's credentials (401/403), or mode `upstream` with no way there. */
  | 'upstream_unavailable'
  /** Upstream: no first byte within the configured time. */
  | 'upstream_timeout'
  /** Upstream: a 5xx, or output inpage cannot read (not JSON, a broken stream). */
  | 'upstream_error'
  /** Remote MCP (docs/responses.md#remote-mcp-tools): a server's tools could not be listed (424, as OpenAI answers). */
  | 'http_error';

export interface ErrorObject {
  message: string;
  type: ErrorType;
  param: string | null;
  code: ErrorCode | null;
}

export interface ErrorBody {
  error: ErrorObject;
}

/** What crosses a MessagePort: an ApiError flattened to plain data. */
export interface ApiErrorData extends ErrorObject {
  status: number;
  retryAfter?: number;
}

const STATUS_OF: Record<ErrorCode, number> = {
  invalid_json: 400,
  invalid_content_type: 400,
  missing_required_parameter: 400,
  invalid_type: 400,
  invalid_value: 400,
  unsupported_parameter: 400,
  context_length_exceeded: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  model_not_found: 404,
  response_not_found: 404,
  item_not_found: 404,
  duplicate_item: 400,
  unknown_url: 404,
  method_not_allowed: 405,
  request_too_large: 413,
  queue_full: 429,
  internal_error: 500,
  engine_unavailable: 503,
  service_unavailable: 503,
  webgpu_unavailable: 503,
  model_load_failed: 503,
  model_too_large_for_device: 503,
  upstream_rejected: 400,
  upstream_unavailable: 503,
  upstream_timeout: 504,
  upstream_error: 502,
  http_error: 424,
};

/** Codes whose status is the one given with the error (an upstream's own 4xx), not one fixed per code. */
const OWN_STATUS: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['upstream_rejected']);

/** Codes kept here only to pick the status: OpenAI sends these errors with `code: null`, and so does inpage. */
const SENT_AS_NULL: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['item_not_found', 'duplicate_item']);

function typeOf(code: ErrorCode): ErrorType {
  if (code === 'queue_full') return 'rate_limit_exceeded';
  if (code === 'http_error') return 'external_connector_error';
  return STATUS_OF[code] >= 500 ? 'server_error' : 'invalid_request_error';
}

export class ApiError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  readonly code: ErrorCode;
  readonly param: string | null;
  /** Seconds, sent as `retry-after` (only for 429). */
  readonly retryAfter: number | undefined;

  constructor(code: ErrorCode, message: string, options: { param?: string | null; retryAfter?: number; status?: number } = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    // Only an upstream's refusal keeps its own status (400–499); every other code has its one status.
    const own = options.status;
    this.status = OWN_STATUS.has(code) && own !== undefined && Number.isInteger(own) && own >= 400 && own < 500 ? own : STATUS_OF[code];
    this.type = this.status >= 500 ? 'server_error' : typeOf(code);
    this.param = options.param ?? null;
    this.retryAfter = options.retryAfter;
  }

  toBody(): ErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: SENT_AS_NULL.has(this.code) ? null : this.code } };
  }

  toData(): ApiErrorData {
    // The code itself, not its wire form, so `fromData` gives back the same error.
    const data: ApiErrorData = { ...this.toBody().error, code: this.code, status: this.status };
    if (this.retryAfter !== undefined) data.retryAfter = this.retryAfter;
    return data;
  }

  static fromData(data: ApiErrorData): ApiError {
    const code = data.code && data.code in STATUS_OF ? data.code : 'internal_error';
    const opts: { param: string | null; retryAfter?: number; status?: number } = { param: data.param, status: data.status };
    if (data.retryAfter !== undefined) opts.retryAfter = data.retryAfter;
    return new ApiError(code, data.message, opts);
  }

  /** Anything thrown becomes an ApiError; a non-ApiError is a bug and says what failed. */
  static from(err: unknown, fallback: ErrorCode = 'internal_error'): ApiError {
    if (err instanceof ApiError) return err;
    if (isApiErrorData(err)) return ApiError.fromData(err);
    const message = err instanceof Error ? err.message : String(err);
    return new ApiError(fallback, message || 'Unknown failure.');
  }
}

export function isApiErrorData(value: unknown): value is ApiErrorData {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.message === 'string' && typeof v.type === 'string' && typeof v.status === 'number';
}

// Errors more than one part raises (the service worker, every engine): one text each, so they agree.

/** A model id that does not exist, or that the presented key does not reach (the two look alike). */
export function modelNotFound(id: string): ApiError {
  return new ApiError('model_not_found', `The model '${id}' does not exist or you do not have access to it.`, { param: 'model' });
}

/** A field the service (or the chosen model) cannot honour: 400 naming it, with the reason. */
export function unsupportedParameter(param: string, why: string): never {
  throw new ApiError('unsupported_parameter', `Unsupported parameter: '${param}' ${why}.`, { param });
}

/** The client went away (its fetch was aborted) before or while its request ran. */
export function clientAborted(): ApiError {
  return new ApiError('internal_error', 'The client aborted the request.');
}

/** Prompt plus requested output over the context this device gives the model (OpenAI's wording). */
/** `param`: where the prompt came from, `messages` (chat) or `prompt` (a legacy completion's raw prompt). */
export function contextExceeded(context: number, promptTokens: number, completionTokens: number, param: 'messages' | 'prompt' = 'messages'): ApiError {
  return new ApiError(
    'context_length_exceeded',
    `This model's maximum context length is ${context} tokens. However, you requested ${promptTokens + completionTokens} tokens (${promptTokens} in the ${param}, ${completionTokens} in the completion). Please reduce the length of the ${param} or completion.`,
    { param },
  );
}

/**
 * What an old version of inpage's service worker answers a new /v1 request while a newer version waits to take over
 * (worker/sw/handover.ts): retried a moment later, the request reaches the new version.
 */
export function serviceUpdating(retryAfter = 1): ApiError {
  return new ApiError(
    'service_unavailable',
    'inpage is updating: a new version of its service worker takes over in a moment and answers this request when it is sent again (retry-after).',
    { retryAfter },
  );
}

/**
 * What the web server answers for /v1 while no service worker of inpage controls the request (unregistered by
 * another script, or the site's data cleared under an open tab, until the page registers it again): `npm start`
 * sends it (vite.config.ts), and a deployment's server should (docs/contract.md).
 */
export function serviceWorkerMissing(): ApiError {
  return new ApiError(
    'service_unavailable',
    "inpage's service worker is not running in this browser right now: it did not register or take control of the page that sent this (the page's console, and installInpage()'s error, say why), or it was unregistered, or the site's data was cleared; an open page of the app registers it again: retry in a moment.",
    { retryAfter: 1 },
  );
}
