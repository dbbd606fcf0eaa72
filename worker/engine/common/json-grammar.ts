// A JSON Schema as a grammar both engines run: GBNF for llama.cpp (wllama's `grammar`) and xgrammar's EBNF for
// web-llm (`response_format: grammar`, and the `grammar` format of its structural tags) share the subset written
// here. inpage writes it itself rather than hand the schema to each engine's converter, because both converters
// let a number run on without end (llama.cpp's allowed `3751414141414141e2222222222222222`, which JSON.parse reads
// as Infinity): here every number is bounded (number-grammar.ts) and parses to a finite double, and integer
// `minimum` / `maximum` are held exactly on both engines.
//
// What the grammar holds: type (and type lists), properties / required / additionalProperties (absent: none
// beside listed properties), items
// / prefixItems / minItems / maxItems, enum, const, anyOf / oneOf (as anyOf), allOf of one schema, local $ref
// ($defs, definitions, recursion), minLength / maxLength, pattern (regex-grammar.ts), the formats of FORMATS, and
// numeric bounds. A keyword it cannot hold is refused with 400 `unsupported_parameter` naming its path
// (REFUSED); annotations (title, description, default, examples, $schema, $id, $comment, other formats) are
// accepted and change nothing.
import { ApiError } from '#shared/protocol/errors';
import { integerGrammar, numberGrammar, NUMBER_RULE, type Bounds } from './number-grammar';
import { JSON_CHAR, PatternError, patternGrammar } from './regex-grammar';

/** Keywords no grammar here holds: refused, naming them. */
export const REFUSED: Record<string, string> = {
  not: 'is not enforced by the grammar',
  if: 'is not enforced by the grammar',
  then: 'is not enforced by the grammar',
  else: 'is not enforced by the grammar',
  uniqueItems: 'is not enforced by the grammar',
  multipleOf: 'is not enforced by the grammar',
  dependentRequired: 'is not enforced by the grammar',
  dependentSchemas: 'is not enforced by the grammar',
  dependencies: 'is not enforced by the grammar',
  contains: 'is not enforced by the grammar',
  minContains: 'is not enforced by the grammar',
  maxContains: 'is not enforced by the grammar',
  minProperties: 'is not enforced by the grammar',
  maxProperties: 'is not enforced by the grammar',
  patternProperties: 'is not enforced by the grammar',
  propertyNames: 'is not enforced by the grammar',
  unevaluatedProperties: 'is not enforced by the grammar',
  unevaluatedItems: 'is not enforced by the grammar',
  $dynamicRef: 'is not supported by the grammar',
  $recursiveRef: 'is not supported by the grammar',
};

/** Whitespace between tokens: none, a space, or a newline and an indent of at most this many spaces or tabs. */
export const JSON_INDENT_MAX = 20;

const DIGITS = (n: number) => `[0-9]{${n}}`;
const DATE = `${DIGITS(4)} "-" ("0" [1-9] | "1" [0-2]) "-" ("0" [1-9] | [12] [0-9] | "3" [01])`;
const TIME = `([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9] ":" [0-5] [0-9] ("." [0-9]{1,9})? ("Z" | [+-] ([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9])`;
const HEX = (n: number) => `[0-9a-fA-F]{${n}}`;
/** The string formats the grammar holds (a string's content); other formats are annotations. */
export const FORMATS: Record<string, string> = {
  date: DATE,
  time: TIME,
  'date-time': `${DATE} "T" ${TIME}`,
  uuid: `${HEX(8)} "-" ${HEX(4)} "-" ${HEX(4)} "-" ${HEX(4)} "-" ${HEX(12)}`,
  email: `[A-Za-z0-9_+-]+ ("." [A-Za-z0-9_+-]+)* "@" ([A-Za-z0-9] [A-Za-z0-9-]{0,62} ".")+ [A-Za-z]{2,63}`,
};

/** The rules of any JSON value (json_object, `{}`, `true`, additionalProperties: true). */
const ANY: Record<string, string> = {
  'json-value': 'json-object | json-array | json-string | json-number | "true" | "false" | "null"',
  'json-object': '"{" space (json-member (space "," space json-member)*)? space "}"',
  'json-member': 'json-string space ":" space json-value',
  'json-array': '"[" space (json-value (space "," space json-value)*)? space "]"',
  'json-string': `"\\"" ${JSON_CHAR}* "\\""`,
  'json-number': NUMBER_RULE,
};
const SPACE = `(" " | "\\n" [ \\t]{0,${JSON_INDENT_MAX}})?`;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A grammar literal of this text. */
function literal(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t')}"`;
}
const jsonLiteral = (value: unknown) => literal(JSON.stringify(value));

function refuse(param: string, why: string): never {
  throw new ApiError('unsupported_parameter', `Unsupported parameter: '${param}' ${why}; the output could not be held to it.`, { param });
}

/** Keywords that describe and constrain nothing: beside a $ref too. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'default',
  'examples',
  '$schema',
  '$id',
  '$comment',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$defs',
  'definitions',
]);

class Builder {
  readonly rules = new Map<string, string>();
  readonly #byBody = new Map<string, string>();
  readonly #refs = new Map<string, string>();

  constructor(readonly root: unknown) {}

  /** A rule with this body (the same body: the same rule), named after `hint`. */
  rule(hint: string, body: string): string {
    const known = this.#byBody.get(body);
    if (known) return known;
    const name = this.#name(hint);
    this.rules.set(name, body);
    this.#byBody.set(body, name);
    return name;
  }

  #name(hint: string): string {
    const base = `r-${
      hint
        .replace(/[^A-Za-z0-9]+/g, '-')
        .replace(/^-|-$/g, '')
        .slice(-40)
        .replace(/^-/, '') || 'x'
    }`;
    let name = base;
    for (let i = 1; this.rules.has(name); i++) name = `${base}-${i}`;
    return name;
  }

  /** The any-value rules, added once. */
  any(): string {
    if (!this.rules.has('json-value')) for (const [name, body] of Object.entries(ANY)) this.rules.set(name, body);
    return 'json-value';
  }

  /** The grammar expression of `schema`, at `path` (for errors). */
  visit(schema: unknown, path: string): string {
    if (schema === true) return this.any();
    if (schema === false) refuse(path, 'allows no value');
    if (!isObject(schema)) refuse(path, 'must be a JSON Schema object');
    for (const key of Object.keys(schema)) if (key in REFUSED) refuse(`${path}.${key}`, REFUSED[key]!);
    if (typeof schema.$ref === 'string') return this.#ref(schema, path);
    if (schema.$ref !== undefined) refuse(`${path}.$ref`, 'must be a string');
    if ('const' in schema) return jsonLiteral(schema.const);
    if (Array.isArray(schema.enum)) {
      if (schema.enum.length === 0) refuse(`${path}.enum`, 'allows no value');
      return `(${schema.enum.map(jsonLiteral).join(' | ')})`;
    }
    for (const key of ['anyOf', 'oneOf'] as const) {
      const list = schema[key];
      if (list === undefined) continue;
      if (!Array.isArray(list) || list.length === 0) refuse(`${path}.${key}`, 'must be a non-empty list of schemas');
      const { [key]: _, ...rest } = schema;
      // Keywords beside the list apply to each branch (zod writes `{anyOf: […], description}`).
      return this.rule(path, list.map((branch, i) => this.visit(isObject(branch) ? { ...rest, ...branch } : branch, `${path}.${key}[${i}]`)).join(' | '));
    }
    if (schema.allOf !== undefined) {
      if (!Array.isArray(schema.allOf) || schema.allOf.length !== 1) refuse(`${path}.allOf`, 'with more than one schema is not enforced by the grammar');
      const { allOf, ...rest } = schema;
      return this.visit(isObject(allOf[0]) ? { ...rest, ...allOf[0] } : allOf[0], `${path}.allOf[0]`);
    }
    const type = schema.type;
    if (Array.isArray(type)) {
      if (type.length === 0) refuse(`${path}.type`, 'allows no value');
      return this.rule(path, type.map((t) => this.#typed(schema, t, path)).join(' | '));
    }
    if (type !== undefined) return this.#typed(schema, type, path);
    // No type: what its keywords describe, or any value.
    if (schema.properties !== undefined || schema.additionalProperties !== undefined || schema.required !== undefined)
      return this.#typed(schema, 'object', path);
    if (schema.items !== undefined || schema.prefixItems !== undefined) return this.#typed(schema, 'array', path);
    return this.any();
  }

  #ref(schema: Record<string, unknown>, path: string): string {
    const ref = schema.$ref as string;
    const beside = Object.keys(schema).find((key) => key !== '$ref' && !ANNOTATIONS.has(key));
    if (beside) refuse(`${path}.${beside}`, 'beside $ref is not enforced by the grammar');
    const known = this.#refs.get(ref);
    if (known) return known;
    if (!ref.startsWith('#')) refuse(`${path}.$ref`, 'must point into the schema itself (#/$defs/…): other documents cannot be fetched');
    let target: unknown = this.root;
    for (const part of ref.slice(1).split('/').filter(Boolean)) {
      const key = decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~');
      target = isObject(target) ? target[key] : Array.isArray(target) ? target[Number(key)] : undefined;
      if (target === undefined) refuse(`${path}.$ref`, `points at nothing in the schema (${ref})`);
    }
    // Named before it is visited, so a schema that refers to itself refers to its own rule.
    const name = this.#name(`ref-${ref.split('/').pop()}`);
    this.#refs.set(ref, name);
    this.rules.set(name, '');
    this.rules.set(name, this.visit(target, `${path}.$ref`));
    return name;
  }

  #typed(schema: Record<string, unknown>, type: unknown, path: string): string {
    switch (type) {
      case 'null':
        return '"null"';
      case 'boolean':
        return '("true" | "false")';
      case 'integer':
      case 'number': {
        const bounds: Bounds = {};
        for (const key of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'] as const) {
          if (schema[key] === undefined) continue;
          if (typeof schema[key] !== 'number') refuse(`${path}.${key}`, 'must be a number');
          bounds[key] = schema[key];
        }
        const grammar = type === 'integer' ? integerGrammar(bounds) : numberGrammar(bounds);
        if (typeof grammar !== 'string') refuse(`${path}.${grammar.keyword}`, grammar.why);
        return this.rule(`${path}-${type}`, grammar);
      }
      case 'string':
        return this.#string(schema, path);
      case 'array':
        return this.#array(schema, path);
      case 'object':
        return this.#object(schema, path);
      default:
        return refuse(`${path}.type`, `names a type JSON Schema does not have (${JSON.stringify(type)})`);
    }
  }

  #string(schema: Record<string, unknown>, path: string): string {
    const count = (key: 'minLength' | 'maxLength'): number | undefined => {
      const value = schema[key];
      if (value === undefined) return undefined;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) refuse(`${path}.${key}`, 'must be a non-negative integer');
      return value;
    };
    const min = count('minLength');
    const max = count('maxLength');
    if (min !== undefined && max !== undefined && max < min) refuse(`${path}.maxLength`, 'is below minLength: no string has both');
    const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
    let content: string | undefined;
    if (schema.pattern !== undefined) {
      if (typeof schema.pattern !== 'string') refuse(`${path}.pattern`, 'must be a string');
      try {
        content = patternGrammar(schema.pattern);
      } catch (err) {
        if (!(err instanceof PatternError)) throw err;
        // zod's email pattern looks ahead; its format says the same, and the grammar holds that.
        if (format === undefined) refuse(`${path}.pattern`, `cannot be held by a grammar: ${err.message}`);
      }
    }
    content ??= format;
    if (content !== undefined && (min !== undefined || max !== undefined))
      refuse(
        `${path}.${min !== undefined ? 'minLength' : 'maxLength'}`,
        `is not enforced by the grammar together with ${schema.pattern !== undefined ? 'pattern' : 'format'}`,
      );
    content ??= `${JSON_CHAR}{${min ?? 0},${max ?? ''}}`;
    return this.rule(`${path}-string`, `"\\"" ${content} "\\""`);
  }

  #array(schema: Record<string, unknown>, path: string): string {
    const count = (key: 'minItems' | 'maxItems'): number | undefined => {
      const value = schema[key];
      if (value === undefined) return undefined;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) refuse(`${path}.${key}`, 'must be a non-negative integer');
      return value;
    };
    const min = count('minItems') ?? 0;
    const max = count('maxItems');
    if (max !== undefined && max < min) refuse(`${path}.maxItems`, 'is below minItems: no array has both');
    const prefix =
      schema.prefixItems === undefined
        ? []
        : Array.isArray(schema.prefixItems)
          ? schema.prefixItems
          : refuse(`${path}.prefixItems`, 'must be a list of schemas');
    const fixed = prefix.map((item, i) => this.visit(item, `${path}.prefixItems[${i}]`));
    const rest = schema.items === false ? undefined : schema.items === undefined ? this.any() : this.visit(schema.items, `${path}.items`);
    // Items in order: the prefix's (all of them before any other), then the rest up to maxItems.
    const slots: { rule: string; required: boolean }[] = fixed.map((rule, i) => ({ rule, required: i < min }));
    const restMin = Math.max(0, min - fixed.length);
    const restMax = max === undefined ? undefined : Math.max(0, max - fixed.length);
    if (max !== undefined && fixed.length > max) slots.length = max;
    if (rest === undefined && min > fixed.length) refuse(`${path}.minItems`, 'asks for more items than prefixItems allows');
    const sep = 'space "," space';
    // After the first item each one is preceded by the separator; optional ones end the array when left out.
    let tail = '';
    if (rest !== undefined && restMax !== 0) {
      const more = `(${sep} ${rest})`;
      tail = restMin > 0 ? `${more}{${restMin},${restMax ?? ''}}` : `${more}{0,${restMax ?? ''}}`;
    }
    let body = tail;
    for (let i = slots.length - 1; i >= 1; i--) body = slots[i]!.required ? `${sep} ${slots[i]!.rule} ${body}` : `(${sep} ${slots[i]!.rule} ${body})?`;
    let items: string;
    if (slots.length > 0) items = slots[0]!.required ? `${slots[0]!.rule} ${body}` : `(${slots[0]!.rule} ${body})?`;
    else if (rest !== undefined && restMax !== 0)
      items =
        restMin > 0
          ? `${rest} (${sep} ${rest}){${restMin - 1},${restMax === undefined ? '' : restMax - 1}}`
          : `(${rest} (${sep} ${rest}){0,${restMax === undefined ? '' : restMax - 1}})?`;
    else items = '';
    return this.rule(`${path}-array`, `"[" space ${items} space "]"`.replace(/ {2,}/g, ' '));
  }

  #object(schema: Record<string, unknown>, path: string): string {
    const properties =
      schema.properties === undefined ? {} : isObject(schema.properties) ? schema.properties : refuse(`${path}.properties`, 'must be an object of schemas');
    const required =
      schema.required === undefined
        ? []
        : Array.isArray(schema.required) && schema.required.every((r) => typeof r === 'string')
          ? (schema.required as string[])
          : refuse(`${path}.required`, 'must be a list of names');
    for (const name of required)
      if (!(name in properties)) refuse(`${path}.required`, `names '${name}', which is not in properties (the grammar writes only the properties it knows)`);
    const members = Object.entries(properties).map(([name, sub]) => ({
      rule: `${jsonLiteral(name)} space ":" space ${this.visit(sub, `${path}.properties.${name}`)}`,
      required: required.includes(name),
    }));
    // additionalProperties absent: none beside the properties listed (as both engines' converters do in strict
    // mode), but any member when no property is listed either (`{type: "object"}` is any object).
    const extra = schema.additionalProperties ?? (schema.properties === undefined ? true : undefined);
    const additional =
      extra === undefined || extra === false
        ? undefined
        : `json-string space ":" space ${extra === true ? this.any() : this.visit(extra, `${path}.additionalProperties`)}`;
    if (additional) this.any();
    // Properties in the schema's order, the optional ones left out or not; then, if allowed, other members. One
    // rule per (property, whether one was written before it): each optional property doubles the choices, not
    // the grammar.
    const sep = 'space "," space';
    const states = new Map<string, string>();
    const from = (i: number, started: boolean): string => {
      const key = `${i}:${started}`;
      const known = states.get(key);
      if (known !== undefined) return known;
      let body: string;
      if (i === members.length) {
        body = additional === undefined ? '' : started ? `(${sep} ${additional})*` : `(${additional} (${sep} ${additional})*)?`;
      } else {
        const member = members[i]!;
        const take = `${started ? `${sep} ` : ''}${member.rule} ${from(i + 1, true)}`.trim();
        body = member.required ? take : `(${take})?`;
        if (!member.required) {
          const skip = from(i + 1, started);
          if (skip !== '') body = `(${take} | ${skip})`;
        }
      }
      const name = body === '' ? '' : this.rule(`${path}-${i}${started ? 'n' : 'f'}`, body);
      states.set(key, name);
      return name;
    };
    return this.rule(`${path}-object`, `"{" space ${from(0, false)} space "}"`.replace(/ {2,}/g, ' '));
  }
}

/** The grammar (its text, `root` first) of a JSON value matching `schema`; throws 400 naming what it cannot hold. */
export function jsonSchemaGrammar(schema: unknown, path: string): string {
  const builder = new Builder(schema);
  const root = builder.visit(schema, path);
  const lines = [`root ::= ${root}`, `space ::= ${SPACE}`];
  for (const [name, body] of builder.rules) lines.push(`${name} ::= ${body}`);
  return `${lines.join('\n')}\n`;
}

/** `json_object`: any JSON object, its numbers bounded as every grammar's are. */
export function jsonObjectGrammar(): string {
  return jsonSchemaGrammar({ type: 'object', additionalProperties: true }, 'response_format');
}

/** The end of a thinking block, which the thinking text never holds. */
const THINK_END = '</think>';

/**
 * A grammar whose answer may come after a thinking block (`<think>…</think>`, then up to a few blank lines): for
 * llama.cpp, whose grammar runs from the first token, on variants that think (its own conversion of a
 * `json_schema` lets them think first, and llama.cpp splits the block off as `reasoning_content`). The text inside
 * is free but for `</think>` itself, written as the states of matching it (each state: the next character of
 * `</think>`, a `<` that may begin it again, or any other character back to the start).
 */
export function thinkingFirst(grammar: string): string {
  const [first, ...rest] = grammar.split('\n');
  if (!first?.startsWith('root ::= ')) throw new Error('thinkingFirst: the grammar does not begin with its root rule');
  const states = [...THINK_END].slice(0, -1).map((_, i) => {
    const next = THINK_END[i + 1]!;
    const other = `[^${next}<]`;
    const forward = i + 1 < THINK_END.length - 1 ? `"${next}" think-${i + 1}` : null;
    // After "</think" the only way on is a character that is not ">" (or a "<").
    return `think-${i} ::= (${[forward, '"<" think-0', `${other} think-text`].filter(Boolean).join(' | ')})?`;
  });
  return [
    `root ::= ("<think>" think-text "${THINK_END}" [ \\t\\n]{0,8})? answer`,
    `answer ::= ${first.slice('root ::= '.length)}`,
    'think-text ::= ([^<] think-text | "<" think-0)?',
    ...states,
    ...rest,
  ].join('\n');
}

/**
 * A JSON `response_format` beside tools under `tool_choice: "auto"`: the answer is free text or calls, so a grammar
 * of JSON cannot hold it (and llama.cpp refuses a grammar beside its tool parsing). Refused on every engine.
 */
export function jsonFormatBesideAutoTools(format: string): ApiError {
  const param = 'response_format';
  return new ApiError(
    'unsupported_parameter',
    `Unsupported parameter: '${param}' ${format} together with tools under tool_choice 'auto': one answer cannot be held to both. Use tool_choice 'none' or 'required', or leave one out.`,
    { param },
  );
}

/** Throws 400 `unsupported_parameter` naming the first keyword of `schema` (at `path`) the grammar cannot hold. */
export function checkSchema(schema: unknown, path: string): void {
  jsonSchemaGrammar(schema, path);
}
