// The schemas web-llm's grammar is built from: the offered tools' `parameters` (models with a tool format) and
// `response_format.json_schema.schema`. Each becomes inpage's own grammar (common/json-grammar.ts), run by
// web-llm's xgrammar; a keyword that grammar cannot hold is refused with 400 naming its path, before web-llm is
// asked, so a client never gets output that merely looks constrained.
import { checkSchema } from '../common/json-grammar';
import type { PlannedRequest } from '../common/plan';

/**
 * Every schema of the request web-llm's grammar will be built from: the offered tools' (offered only to a model with
 * a tool format: `toolsOffered`), the response format's.
 */
export function assertSchemasSupported(request: PlannedRequest, toolsOffered: boolean): void {
  const tools = toolsOffered ? request.plan.tools : null;
  tools?.tools.forEach((tool, i) => {
    if (tool.function.parameters === undefined) return;
    const param = request.legacy_functions ? `functions[${i}].parameters` : `tools[${i}].function.parameters`;
    checkSchema(tool.function.parameters, param);
  });
  const format = request.plan.format;
  if (format?.type === 'json_schema' && format.json_schema.schema !== undefined) checkSchema(format.json_schema.schema, 'response_format.json_schema.schema');
}
