// The schemas web-llm's grammar is built from: the offered tools' `parameters` (models with a tool format) and
// `response_format.json_schema.schema`. Each becomes inpage's own grammar (common/json-grammar.ts), run by
// web-llm's xgrammar; a keyword that grammar cannot hold is refused with 400 naming its path, before web-llm is
// asked, so a client never gets output that merely looks constrained.
import { unsupportedParameter } from '#shared/protocol/errors';
import type { ModelCatalog } from '#shared/model-config';
import { checkSchema } from '../common/json-grammar';
import type { PlannedRequest } from '../common/plan';
import { webllmModels } from './models';

/**
 * A model without a tool format (models.ts, `toolFormat: 'none'`) is never offered tools: a request that offers
 * them (tool_choice other than `none`) is refused, not answered as if none were sent. svc-vision's refusal is
 * request-support.ts's. Shared by the test engine, so the test build refuses what production refuses.
 */
export function assertToolsSupported(catalog: ModelCatalog, request: PlannedRequest): void {
  const { variant } = request;
  if (request.plan.tools === null || variant.vision || webllmModels(catalog).get(variant.weightGroup)?.toolFormat !== 'none') return;
  unsupportedParameter(
    request.legacy_functions ? 'functions' : 'tools',
    `is not supported: the model '${variant.id}' has no tool-call format (send tool_choice: 'none', or give its models entry a 'toolFormat')`,
  );
}

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
