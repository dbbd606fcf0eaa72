// Llama 3.1–3.3's JSON tool calling, as Meta's model card and chat template give it: the tools are listed as JSON
// with the instruction to answer `{"name": function name, "parameters": dictionary of argument name and its value}`;
// the model answers that object (bare, or after `<|python_tag|>`), several separated by `; `. A call in history is
// that object; a result is the content of the template's `ipython` turn, here a user turn (web-llm's Llama 3
// template has no `ipython` role).
import type { ResponseFormat as WebLlmResponseFormat } from '@mlc-ai/web-llm';
import type { FunctionTool, ToolCall } from '#shared/protocol/types';
import type { ToolPlan } from '../../common/plan';
import { argumentsTag, callable, structuralTag, type Format } from './grammar';
import { JsonCallsParser, type JsonCallsSpec } from './json-calls-parser';
import type { ToolFormat, ToolResult } from './types';

export const PYTHON_TAG = '<|python_tag|>';

const SPEC: JsonCallsSpec = {
  regions: [
    { marker: PYTHON_TAG, list: 'sequence' },
    { marker: '{"name":', list: 'sequence', keep: true },
  ],
  argumentKeys: ['parameters', 'arguments'],
};

/** The template's `tool | tojson(indent=4)`. */
function toolJson(tool: FunctionTool): string {
  const { name, description, parameters } = tool.function;
  return JSON.stringify({ type: 'function', function: { name, description, parameters } }, null, 4);
}

function systemWithTools(system: string | null, tools: readonly FunctionTool[]): string {
  return (
    (system ? `${system}\n\n` : '') +
    'Given the following functions, please respond with a JSON for a function call with its proper arguments that best answers the given prompt.\n\n' +
    'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}. Do not use variables.\n\n' +
    tools.map(toolJson).join('\n\n')
  );
}

const callPrefix = (name: string) => `{"name": ${JSON.stringify(name)}, "parameters": `;

function assistantText(content: string, calls: readonly ToolCall[]): string {
  const text = calls.map((call) => `${callPrefix(call.function.name)}${call.function.arguments || '{}'}}`).join('; ');
  return [content, text].filter((part) => part.length > 0).join('\n\n');
}

function toolCallFormat(plan: ToolPlan): WebLlmResponseFormat {
  const tags = callable(plan).map((tool) => argumentsTag(tool, callPrefix(tool.function.name), '}'));
  const format: Format =
    plan.mode === 'auto'
      ? { type: 'triggered_tags', triggers: ['{"name": '], tags, at_least_one: false, stop_after_first: !plan.parallel }
      : { type: 'tags_with_separator', tags, separator: '; ', at_least_one: true, stop_after_first: !plan.parallel };
  return structuralTag(format);
}

export const llama3: ToolFormat = {
  systemWithTools,
  assistantText,
  toolResults: (results: readonly ToolResult[]) => results.map((r) => r.content).join('\n\n'),
  parser: () => new JsonCallsParser(SPEC),
  toolCallFormat,
};
