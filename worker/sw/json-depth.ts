// Request bodies nested deeper than MAX_JSON_DEPTH are refused before anything clones or validates them: a deep
// value would otherwise overflow the stack of a recursive step further on (structured clone in postMessage,
// schema walks) and turn a 4 KB body into a 500. The check is iterative, so it cannot overflow itself.
import { ApiError } from '#shared/protocol/errors';

/** Containers (objects and arrays) a body may nest, the body itself counting as the first. */
export const MAX_JSON_DEPTH = 64;

/** Where a value first nests deeper than `limit`: the top-level field it is under (null: the body itself). */
export function nestedTooDeep(value: unknown, limit = MAX_JSON_DEPTH): { field: string | null } | null {
  if (typeof value !== 'object' || value === null) return null;
  const stack: [object, number, string | null][] = [[value, 1, null]];
  while (stack.length > 0) {
    const [node, depth, field] = stack.pop()!;
    if (depth > limit) return { field };
    if (Array.isArray(node)) {
      for (const item of node) if (typeof item === 'object' && item !== null) stack.push([item, depth + 1, field]);
    } else {
      for (const key of Object.keys(node)) {
        const item = (node as Record<string, unknown>)[key];
        if (typeof item === 'object' && item !== null) stack.push([item, depth + 1, field ?? key]);
      }
    }
  }
  return null;
}

/** Throws 400 `invalid_value` naming the top-level field when `body` nests deeper than MAX_JSON_DEPTH. */
export function assertJsonDepth(body: unknown): void {
  const deep = nestedTooDeep(body);
  if (!deep) return;
  const where = deep.field === null ? 'The request body' : `The field '${deep.field}'`;
  throw new ApiError(
    'invalid_value',
    `${where} is nested more than ${MAX_JSON_DEPTH} levels deep; requests may nest at most ${MAX_JSON_DEPTH} objects and arrays.`,
    {
      param: deep.field,
    },
  );
}
