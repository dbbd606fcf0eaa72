// Which JSON Schema keywords web-llm's grammar engine (xgrammar 0.1.27, bundled in web-llm 0.2.86) really
// enforces. Schemas reach it from `response_format.json_schema.schema` and from the tools' `parameters`; a
// keyword it would silently ignore (or that makes its compiler abort) is refused with 400 naming it, so a
// client never gets output that merely looks constrained. Measured against xgrammar (test/unit/qwen3-tools.test.ts
// compiles what this accepts and shows the refused keywords unenforced).
import { ApiError } from '../../../src/protocol/errors';
import type { PlannedRequest } from '../common/plan';
import { hasThinkingSwitch } from './models';

/** Keywords xgrammar accepts but does not enforce, or that abort its compiler. */
const REFUSED: Record<string, string> = {
  not: 'is not enforced by the grammar engine',
  if: 'is not enforced by the grammar engine',
  then: 'is not enforced by the grammar engine',
  else: 'is not enforced by the grammar engine',
  uniqueItems: 'is not enforced by the grammar engine',
  multipleOf: 'is not enforced by the grammar engine',
  dependentRequired: 'is not enforced by the grammar engine',
  dependentSchemas: 'is not enforced by the grammar engine',
  minContains: 'is not enforced by the grammar engine',
  maxContains: 'is not enforced by the grammar engine',
  minProperties: 'is not supported by the grammar engine',
};

/** Numeric bounds are not enforced, except that zod's default integer bounds (±2^53−1) constrain nothing anyway. */
const BOUNDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'];
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
// Keywords whose value is a schema, a list of schemas, or a map of schemas.
const ONE = ['items', 'additionalProperties', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems'];
const MANY = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const MAP = ['properties', 'patternProperties', '$defs', 'definitions'];

function refuse(param: string, why: string): never {
  throw new ApiError('unsupported_parameter', `Unsupported parameter: '${param}' ${why}; the output could not be held to it.`, { param });
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Throws 400 `unsupported_parameter` naming the first keyword of `schema` the grammar cannot hold output to. */
export function checkSchema(schema: unknown, path: string): void {
  if (typeof schema === 'boolean') return;
  if (!isObject(schema)) refuse(path, 'must be a JSON Schema object');
  for (const [key, value] of Object.entries(schema)) {
    const at = `${path}.${key}`;
    if (key in REFUSED) refuse(at, REFUSED[key]!);
    if (BOUNDS.includes(key) && !(typeof value === 'number' && Math.abs(value) >= Number.MAX_SAFE_INTEGER)) {
      refuse(at, 'is not enforced by the grammar engine (numeric bounds are not)');
    }
    if (key === 'type') {
      const types = Array.isArray(value) ? value : [value];
      if (!types.every((t) => typeof t === 'string' && TYPES.has(t))) refuse(at, `names a type JSON Schema does not have (${JSON.stringify(value)})`);
    }
    if (key === '$ref' && !(typeof value === 'string' && value.startsWith('#'))) refuse(at, 'must point into the schema itself (#/$defs/…): other documents cannot be fetched');
    if (key === 'allOf' && Array.isArray(value) && value.length > 1) refuse(at, 'with more than one schema is not enforced by the grammar engine');
    if (ONE.includes(key)) checkSchema(value, at);
    if (MANY.includes(key) && Array.isArray(value)) value.forEach((sub, i) => checkSchema(sub, `${at}[${i}]`));
    if (MAP.includes(key) && isObject(value)) for (const [name, sub] of Object.entries(value)) checkSchema(sub, `${at}.${name}`);
  }
}

/** Every schema of the request web-llm's grammar will be built from: the offered tools', the response format's. */
export function assertSchemasSupported(request: PlannedRequest): void {
  const tools = hasThinkingSwitch(request.variant) ? request.plan.tools : null;
  tools?.tools.forEach((tool, i) => {
    if (tool.function.parameters === undefined) return;
    const param = request.legacy_functions ? `functions[${i}].parameters` : `tools[${i}].function.parameters`;
    checkSchema(tool.function.parameters, param);
  });
  const format = request.plan.format;
  if (format?.type === 'json_schema' && format.json_schema.schema !== undefined) checkSchema(format.json_schema.schema, 'response_format.json_schema.schema');
}
