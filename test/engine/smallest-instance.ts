// The smallest JSON value valid against a JSON schema, by the rules issue 10 fixes for the deterministic test
// engine (so clients and tests agree on what it answers): required properties only; a string is "a" (repeated
// to minLength) or the first enum value; a number the minimum (exclusiveMinimum + 1) or 0; a boolean false; an
// array `minItems` items (none without `items`); `const` that value; `anyOf` / `oneOf` the first branch; `$ref`
// resolved against the root's `$defs` / `definitions`; a type array its first non-null type.

type Schema = Record<string, unknown>;

const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Resolves a local `$ref` (`#/$defs/x`, `#/definitions/x`, any JSON pointer into the root). */
function resolveRef(root: Schema, ref: string): Schema {
  if (!ref.startsWith('#')) throw new Error(`Only local $ref is supported, not ${ref}`);
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node = isSchema(node) ? node[key] : undefined;
  }
  if (!isSchema(node)) throw new Error(`$ref ${ref} does not resolve`);
  return node;
}

function typeOf(schema: Schema): string | undefined {
  const type = schema.type;
  if (Array.isArray(type)) return (type.find((t) => t !== 'null') ?? type[0]) as string | undefined;
  if (typeof type === 'string') return type;
  if (isSchema(schema.properties) || Array.isArray(schema.required)) return 'object';
  if (schema.items !== undefined || schema.minItems !== undefined) return 'array';
  return undefined;
}

function smallestNumber(schema: Schema, integer: boolean): number {
  let value = 0;
  if (typeof schema.minimum === 'number') value = schema.minimum;
  else if (typeof schema.exclusiveMinimum === 'number') value = schema.exclusiveMinimum + 1;
  else if (typeof schema.maximum === 'number' && schema.maximum < 0) value = schema.maximum;
  else if (typeof schema.exclusiveMaximum === 'number' && schema.exclusiveMaximum <= 0) value = schema.exclusiveMaximum - 1;
  return integer ? Math.ceil(value) : value;
}

export function smallestInstance(schema: unknown, root: unknown = schema, depth = 0): unknown {
  if (depth > 64) throw new Error('The schema nests too deeply (a recursive $ref that requires itself?)');
  if (schema === true || schema === undefined) return null;
  if (!isSchema(schema)) throw new Error('A schema must be an object');
  const rootSchema = isSchema(root) ? root : schema;
  const next = (s: unknown) => smallestInstance(s, rootSchema, depth + 1);
  if (typeof schema.$ref === 'string') return next(resolveRef(rootSchema, schema.$ref));
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0) return next(branches[0]);
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    // The parts of an allOf hold together: merge their properties and requirements.
    const merged: Schema = { ...schema, allOf: undefined };
    for (const part of schema.allOf) {
      const p = isSchema(part) && typeof part.$ref === 'string' ? resolveRef(rootSchema, part.$ref) : part;
      if (!isSchema(p)) continue;
      Object.assign(merged, p, {
        properties: { ...(merged.properties as Schema), ...(p.properties as Schema) },
        required: [...((merged.required as string[]) ?? []), ...((p.required as string[]) ?? [])],
      });
    }
    delete merged.allOf;
    return next(merged);
  }
  switch (typeOf(schema)) {
    case 'string':
      return 'a'.repeat(Math.max(1, typeof schema.minLength === 'number' ? schema.minLength : 1));
    case 'number':
      return smallestNumber(schema, false);
    case 'integer':
      return smallestNumber(schema, true);
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'array': {
      if (schema.items === undefined || Array.isArray(schema.items)) return [];
      const count = typeof schema.minItems === 'number' ? schema.minItems : 0;
      return Array.from({ length: count }, () => next(schema.items));
    }
    case 'object': {
      const properties = isSchema(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
      return Object.fromEntries(required.map((key) => [key, next(properties[key] ?? {})]));
    }
    default:
      return null;
  }
}
