// The chat request's common case, accepted without building its zod schemas.
//
// A service worker that Chromium stopped (it does so after ~30 s idle, so most human-paced turns meet one) is
// started again by the next request, and building the chat schemas took 6 ms of that request's first byte on
// this machine's Chromium: more than the rest of the request's own work. Plain chats (text messages of the
// system, developer, user and assistant roles, sampling fields, stop, stream options) are accepted here; anything
// else (tools, images, response formats, a value out of range, a field of the wrong type) goes to the schemas,
// which remain the one definition of a request: they produce every error, and the unit tests check, over
// generated bodies, that this path accepts nothing they reject and returns exactly what they return.

/** Checks one field's value; returns it as the schema would, or NO for "not the common case". */
type FieldCheck = (value: unknown) => unknown;

/** Not handled here: the body goes to the schemas. */
const NO = Symbol('not the common case');

const isString = (v: unknown): v is string => typeof v === 'string';
const str: FieldCheck = (v) => (isString(v) ? v : NO);
const bool: FieldCheck = (v) => (typeof v === 'boolean' ? v : NO);
const num =
  (min: number, max: number): FieldCheck =>
  (v) =>
    typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max ? v : NO;
const int =
  (min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): FieldCheck =>
  (v) =>
    Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max ? v : NO;
const oneOf =
  (...values: string[]): FieldCheck =>
  (v) =>
    isString(v) && values.includes(v) ? v : NO;

/** Only the listed keys, each checked; an object with any other key is not the common case. */
function onlyKeys(v: unknown, keys: readonly string[]): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  for (const k in v) if (!keys.includes(k)) return false;
  return true;
}

const TEXT_ROLES = ['system', 'developer', 'user', 'assistant'];

/** A text message of a role without tool calls, as the schema returns it (its keys in the schema's order). */
function message(v: unknown): unknown {
  if (!onlyKeys(v, ['role', 'content', 'name'])) return NO;
  const { role, content, name } = v;
  if (!isString(role) || !TEXT_ROLES.includes(role) || !isString(content)) return NO;
  if (name === undefined) return { role, content };
  return isString(name) ? { role, content, name } : NO;
}

function messages(v: unknown): unknown {
  if (!Array.isArray(v) || v.length === 0) return NO;
  const out: unknown[] = [];
  for (const m of v) {
    const checked = message(m);
    if (checked === NO) return NO;
    out.push(checked);
  }
  return out;
}

function streamOptions(v: unknown): unknown {
  if (!onlyKeys(v, ['include_usage'])) return NO;
  if (v.include_usage === undefined) return {};
  return typeof v.include_usage === 'boolean' ? { include_usage: v.include_usage } : NO;
}

function stop(v: unknown): unknown {
  if (isString(v)) return v;
  return Array.isArray(v) && v.length <= 4 && v.every(isString) ? [...v] : NO;
}

/**
 * Every field of the chat request schema, in its order (a unit test holds the two together): a check where the
 * common case is handled here, `null` where a body that has the field goes to the schemas.
 */
export const CHAT_FIELDS: ReadonlyArray<readonly [string, FieldCheck | null]> = [
  ['model', str],
  ['messages', messages],
  ['stream', bool],
  ['stream_options', streamOptions],
  ['temperature', num(0, 2)],
  ['top_p', num(0, 1)],
  ['max_tokens', int(1)],
  ['max_completion_tokens', int(1)],
  ['stop', stop],
  ['seed', int()],
  ['presence_penalty', num(-2, 2)],
  ['frequency_penalty', num(-2, 2)],
  ['n', int(1, 128)],
  ['logprobs', bool],
  ['top_logprobs', int(0, 5)],
  ['response_format', null],
  ['reasoning_effort', oneOf('none', 'minimal', 'low', 'medium', 'high')],
  ['tools', null],
  ['tool_choice', null],
  ['parallel_tool_calls', bool],
  ['functions', null],
  ['function_call', null],
  ['logit_bias', null],
  ['modalities', null],
  ['audio', null],
  ['web_search_options', null],
  ['user', str],
  ['store', bool],
  ['metadata', null],
  ['service_tier', str],
  ['prediction', null],
  ['verbosity', oneOf('low', 'medium', 'high')],
  ['safety_identifier', str],
  ['prompt_cache_key', str],
];

/**
 * The chat request schema's output for `body` (its `null`s already dropped) when `body` is a plain chat, or
 * undefined when it is not: then the schemas decide. Fields the schema does not know are dropped, as it does.
 */
export function acceptPlainChat(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const [key, check] of CHAT_FIELDS) {
    const value = body[key];
    if (value === undefined) {
      if (key === 'model' || key === 'messages') return undefined;
      continue;
    }
    if (!check) return undefined;
    const checked = check(value);
    if (checked === NO) return undefined;
    out[key] = checked;
  }
  return out;
}
