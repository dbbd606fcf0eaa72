// The grammar pieces every tool-call format builds its structural tag from (xgrammar's, through web-llm's
// `response_format: structural_tag`), and the JSON answer's format (not a tool's, but held the same way).
import type { ResponseFormat as WebLlmResponseFormat } from '@mlc-ai/web-llm';
import type { FunctionTool } from '#shared/protocol/types';
import { jsonObjectGrammar, jsonSchemaGrammar } from '../../common/json-grammar';
import type { ToolPlan } from '../../common/plan';

export type Format = Record<string, unknown>;

/** The schema a call's arguments must match: the tool's parameters, or any object when it has none. */
function argumentsSchema(tool: FunctionTool): Record<string, unknown> {
  return tool.function.parameters ?? { type: 'object' };
}

/**
 * A call's arguments held by inpage's grammar of its schema (json-grammar.ts: numbers bounded, integer bounds held),
 * not by xgrammar's own conversion. The schemas were checked before (schema-support.ts), naming the request's path.
 */
export function argumentsTag(tool: FunctionTool, begin: string, end: string): Format {
  const grammar = jsonSchemaGrammar(argumentsSchema(tool), `tools.${tool.function.name}.parameters`);
  return { type: 'tag', begin, content: { type: 'grammar', grammar }, end };
}

/** The tools a plan lets the model call: the named one, or all. */
export function callable(plan: ToolPlan): FunctionTool[] {
  return plan.mode === 'named' ? plan.tools.filter((t) => t.function.name === plan.name) : plan.tools;
}

/** Qwen3 thinks first when thinking is on: a free `<think>…</think>` block, then the constrained answer. */
export function afterThinking(thinking: boolean, answer: Format): Format {
  if (!thinking) return answer;
  return {
    type: 'sequence',
    elements: [{ type: 'tag', begin: '<think>', content: { type: 'any_text' }, end: '</think>' }, { type: 'const_string', value: '\n\n' }, answer],
  };
}

export function structuralTag(format: Format): WebLlmResponseFormat {
  return { type: 'structural_tag', structural_tag: { type: 'structural_tag', format } as never };
}

/** JSON as Python's json.dumps writes it (", " and ": "), which is what chat templates' `tojson` produces. */
export function pythonJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`).join(', ')}}`;
}

/**
 * A JSON answer (`json_object`: any object; `json_schema`: that schema), after thinking when the model thinks: inpage's
 * grammar (json-grammar.ts), as web-llm's `grammar` format or the grammar of a structural tag's answer.
 */
export function jsonFormat(schema: Record<string, unknown> | undefined, thinking: boolean): WebLlmResponseFormat {
  const grammar = schema === undefined ? jsonObjectGrammar() : jsonSchemaGrammar(schema, 'response_format.json_schema.schema');
  if (!thinking) return { type: 'grammar', grammar };
  const answer: Format = { type: 'grammar', grammar };
  return structuralTag(afterThinking(true, answer));
}
